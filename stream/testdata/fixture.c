/* Fixture for the stream tests: plain C, no #include, compiled with -c. */
typedef unsigned long size_t;
typedef signed char s8;
typedef unsigned int u32;
typedef unsigned long long u64;

enum color { RED, GREEN = 5, BLUE = -3 };
enum big { BIG_LO = 0, BIG_HI = 0x7fffffffffffffffLL };

struct list_head {
	struct list_head *next, *prev;
};

union value {
	int i;
	float f;
	double d;
	void *p;
	char bytes[16];
};

struct flags {
	unsigned int a : 1;
	unsigned int b : 3;
	signed int c : 7;
	unsigned long long wide : 40;
	_Bool ok;
};

struct packet {
	u32 len;
	const volatile u64 *stamp;
	union value v;
	struct flags fl;
	enum color col;
	struct list_head node;
	int (*handler)(struct packet *, void *);
	long matrix[3][4];
	char name[];
};

struct anon_host {
	int tag;
	union {
		int x;
		struct {
			short lo, hi;
		};
	};
} __attribute__((aligned(16)));

typedef struct packet packet_t;
typedef int (*cmp_fn)(const void *, const void *);

struct packet global_packet = { .len = 3 };
static struct anon_host host;
extern int external_counter;
int counters[8] __attribute__((section(".data.percpu_like")));
const char greeting[] = "hello, fixture";
_Thread_local int tls_var;
volatile unsigned char flag_byte;
static const double pi = 3.14159;

static inline int square(int x) { return x * x; }

static int compare(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

cmp_fn pick(int which) { return which ? compare : 0; }

int process(packet_t *p, int n, ...)
{
	int sum = 0;
	static int calls;
	for (int i = 0; i < n; i++) {
		struct flags local = { .a = 1, .b = (unsigned)i };
		sum += square(i) + local.b + p->matrix[i % 3][i % 4];
	}
	calls++;
	return sum + calls + counters[n & 7] + host.tag + (int)pi;
}

struct packet *first(struct list_head *h)
{
	return (struct packet *)((char *)h->next - __builtin_offsetof(struct packet, node));
}

__attribute__((noinline)) u64 mix(u64 a, u32 b, s8 c, enum color col)
{
	union value v;
	v.d = (double)a;
	return a * b + c + col + v.i + external_counter;
}

void *use_all(void)
{
	static struct anon_host *hp = &host;
	flag_byte = (unsigned char)tls_var;
	return hp ? (void *)greeting : (void *)&global_packet;
}
