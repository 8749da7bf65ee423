/* Layouts that differ between targets: alignment, packing, bitfields in
 * every kind of container, 64-bit and signed enums, flexible arrays,
 * function pointers returning function pointers. No #include: it builds
 * with gcc -m32 and cross compilers without a C library. */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long s64;

struct __attribute__((packed)) hdr { u8 type; u32 len; u16 csum; };
struct __attribute__((aligned(64))) cacheline { int hot; };
struct outer { char c; struct hdr h; struct cacheline line; u64 tail; };
struct over_aligned { char c; _Alignas(16) int x; };

struct empty { };
struct holds_empty { int a; struct empty e; int b; };

union ubits { u32 all; struct { u32 lo:12, mid:12, hi:8; }; u8 raw[4]; };
enum mode { M_OFF, M_ON, M_AUTO };
struct ebits {
	enum mode m:2;
	_Bool flag:1;
	char small:3;
	s64 wide:33;
	u64 top:31;
	u16 after;
};

enum neg64 { N_MIN = -0x7fffffffffffffffLL - 1, N_ZERO = 0 };
enum only_big { OB_LOW = 0x100000000ULL, OB_HIGH = 0x200000000ULL };
enum u32max { U_MAX = 0xffffffffU };
enum __attribute__((packed)) small_signed { SS_NEG = -1, SS_POS = 1 };
enum fwd_only;
struct has_fwd_enum { enum fwd_only *p; };

struct flex { u32 n; u64 items[]; };
struct zero_tail { u32 n; u8 pad[0]; };
struct vla_in_union { int kind; union { u32 words[0]; u8 bytes[0]; }; };

typedef int (*cmp_fn)(const void *, const void *);
typedef cmp_fn (*pick_fn)(int which);
struct sorter {
	cmp_fn cmp;
	pick_fn pick;
	void (*const fixed)(void);
	int (*table[4])(int);
	void *(*alloc)(unsigned long size, u32 flags);
};

struct node;
typedef struct node node_t;
struct node { node_t *next; const node_t *const *pp; volatile u32 v[2]; };

struct outer g_outer;
struct over_aligned g_over;
struct holds_empty g_he;
union ubits g_ubits;
struct ebits g_ebits;
enum neg64 g_neg64;
enum only_big g_only_big;
enum u32max g_u32max;
enum small_signed g_ss;
struct has_fwd_enum g_hfe;
struct flex *g_flex;
struct zero_tail g_zt;
struct vla_in_union g_vu;
struct sorter g_sorter;
node_t g_node;
const char g_name[] = "layout";
long double g_ld;

static int by_key(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static cmp_fn pick(int which) { return which ? by_key : 0; }

__attribute__((noinline)) u64 sum_flex(struct flex *f)
{
	u64 s = 0;
	for (u32 i = 0; i < f->n; i++)
		s += f->items[i];
	return s;
}

__attribute__((noinline)) int take_hdr(struct hdr h, union ubits u, enum mode m)
{
	return h.len + u.hi + m;
}

int layout_entry(struct sorter *s, struct outer *o)
{
	s->pick = pick;
	return take_hdr(o->h, g_ubits, g_ebits.m) + (int)sum_flex(g_flex) + g_ebits.wide;
}
