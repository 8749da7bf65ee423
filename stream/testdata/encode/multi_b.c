/* The second unit of multi.o (see multi_a.c). */
struct shared { int id; struct shared *next; struct opaque_a *priv; };
struct opaque_b { unsigned long long word; struct shared *owner; };
struct opaque_a;			/* never complete */
struct only_b { struct opaque_b b; char name[8]; };

static __attribute__((noinline)) int twin(int x) { return x * 3; }
static __attribute__((noinline)) long clash(long x) { return -x; }

struct only_b g_only_b;
struct shared g_shared_b;

int unit_b(struct shared *s)
{
	return twin(s->id) + (int)clash(s->id) + (int)g_only_b.b.word;
}
