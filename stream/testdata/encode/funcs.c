/* Function rules: ELF symbol matching, optimized clones, inline copies,
 * static functions of the same name, per-CPU variables. */
struct pkt { int len; unsigned char data[60]; };
struct big { long a, b, c, d; };

int __attribute__((section(".data..percpu"))) pcpu_counter;
struct pkt __attribute__((section(".data..percpu"))) pcpu_pkt;
static long __attribute__((section(".data..percpu"), used)) pcpu_static;
int plain_global = 3;

static __attribute__((noinline)) int unused_arg(int a, int b, struct pkt *p)
{
	return a + p->len;
}

static __attribute__((noinline)) int const_arg(int mode, struct pkt *p)
{
	if (mode == 3)
		return p->len * 2;
	return p->data[mode];
}

static inline int always(int x) { return x * 7; }

static __attribute__((noinline)) int by_value(struct big b, int k)
{
	return b.a + b.d + k;
}

int many(int a, int b, int c, int d, int e, int f, int g, struct big h)
{
	return a + b + c + d + e + f + g + h.c;
}

int entry(struct pkt *p, int n)
{
	struct big b = { n, 2, 3, 4 };
	return unused_arg(n, 0, p) + const_arg(3, p) + always(n) + by_value(b, n)
		+ pcpu_counter + pcpu_pkt.len + (int)pcpu_static;
}

void no_params(void) { }
int unnamed_param(int, int b);
int unnamed_param(int a, int b) { return b; }

/* A packed struct passed by value on the stack (7th parameter on x86-64):
 * pahole drops the function as "uncertain parameter location". */
struct __attribute__((packed)) pk { char c; int i; };
struct unpacked { int a, b; };
__attribute__((noinline)) int stack_packed(int a, int b, int c, int d, int e, int f, struct pk p)
{
	return a + b + c + d + e + f + p.i;
}
__attribute__((noinline)) int stack_unpacked(int a, int b, int c, int d, int e, int f, struct unpacked p)
{
	return a + b + c + d + e + f + p.b;
}
