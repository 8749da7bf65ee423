/* Two compile units linked into one object (ld -r): the encoder must
 * deduplicate across units and apply the cross-unit function rules.
 * multi_b.c is the other unit. */
struct shared { int id; struct shared *next; struct opaque_a *priv; };
struct opaque_b;			/* complete only in multi_b.c */
struct only_a { struct opaque_b *b; long v; };
typedef int (*visit_fn)(struct shared *);

int same_proto(struct shared *s, int n);
int same_proto(struct shared *s, int n) { return s->id + n; }

/* Static functions of one name in both units: same prototype here... */
static __attribute__((noinline)) int twin(int x) { return x + 1; }
/* ... different prototypes here: pahole drops the inconsistent one. */
static __attribute__((noinline)) int clash(int x, int y) { return x - y; }

struct only_a g_only_a;
struct shared g_shared_a;

int unit_a(struct shared *s, visit_fn v)
{
	return twin(s->id) + clash(s->id, 2) + v(s) + same_proto(s, 1);
}
