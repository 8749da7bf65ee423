/* Input of the corrupt-input regression test (corrupt_test.go); gen.sh
 * builds point.o, point-btf.o, point.btf and ext.btf from it and ext.c. */
typedef unsigned long size_t;
enum shape { CIRCLE, SQUARE = 4, BIG = 0x7fffffff };
struct point {
	int x, y;
	unsigned int visible : 1, layer : 7;
	const char *name;
	double weight;
	struct point *next;
	union { long l; float f; } u;
	int hist[4];
};
typedef int (*visit_fn)(struct point *, void *);
struct list { struct point *head; size_t n; visit_fn visit; enum shape kind; };
struct list points;
volatile int ticks;

int walk(struct list *l, void *arg)
{
	int n = 0;
	for (struct point *p = l->head; p; p = p->next)
		n += l->visit(p, arg);
	return n + ticks;
}

static int count(struct point *p, void *arg) { return p->visible + (arg != 0); }

int count_all(void) { points.visit = count; return walk(&points, 0); }

double weigh(const struct point *p, int k) { return p->weight * k + p->u.f; }
