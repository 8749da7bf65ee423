/* Type rules of the encoder: every kind pahole produces from C. */
typedef unsigned long size_t;
typedef _Bool bool;

struct list_head { struct list_head *next, *prev; };

struct bits {
	unsigned int a:3;
	unsigned int b:5;
	int c:7;
	unsigned long long d:40;
	char e;
	bool f:1;
};

struct plain { int x; long y; char z[3]; };

union u { int i; float f; struct { short lo, hi; } parts; };

struct anon {
	int kind;
	union { int ival; double dval; };
	struct { char tag; unsigned char utag; } s;
	int flex[];
};

enum color { RED, GREEN = 5, BLUE = -1 };
enum big { SMALL = 1, HUGE = 0x100000000ULL };
enum ubig { UHUGE = 0xffffffffffffffffULL };
enum onebyte { OB_A = 1 } __attribute__((packed));

struct opaque;
union opaque_u;

struct uses_fwd { struct opaque *o; union opaque_u *ou; };

typedef int (*handler_t)(int, const char *, ...);
typedef void (*noargs_t)(void);
typedef int (*knr_t)();

struct ops {
	handler_t h;
	noargs_t n;
	knr_t k;
	void (*cb)(struct ops *self, unsigned long flags);
};

struct matrix { int m[3][4]; char cube[2][3][4]; long zero[0]; };

struct quals {
	const int ci;
	volatile long vl;
	const volatile char *cvp;
	int *restrict rp;
	const struct plain *cp;
};

struct floats { float f; double d; long double ld; };

struct ints {
	signed char sc; unsigned char uc; char c;
	short s; unsigned short us;
	long l; unsigned long ul; long long ll; unsigned long long ull;
#ifdef __SIZEOF_INT128__ /* not on 32-bit targets */
	__int128 i128; unsigned __int128 u128;
#endif
	bool b;
};

struct list_head global_list;
struct bits g_bits;
struct anon g_anon;
union u g_u;
enum color g_color;
enum big g_big;
enum ubig g_ubig;
enum onebyte g_onebyte;
struct uses_fwd g_uses;
struct ops g_ops;
struct matrix g_matrix;
struct quals g_quals;
struct floats g_floats;
struct ints g_ints;
size_t g_size;

int use_everything(struct ops *o, struct matrix *m, int n)
{
	struct local_only { int a; } lo = { n };
	return o->h(lo.a, "x") + m->m[1][2] + n;
}

static int helper(int a, int b)
{
	return a * b + g_bits.a;
}

int call_helper(int x)
{
	return helper(x, 3) + helper(x, x);
}

int varargs_fn(int n, ...)
{
	return n;
}
