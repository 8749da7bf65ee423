/* stale.o is stale_a.c, stale_b.c, stale_a.c again and stale_d.c linked
 * with -r: four units. The second resolves a declaration the first and
 * third hold (struct foo), so a worker that encodes the third before the
 * merger has added the second skips a closure with a declaration against
 * a stale count; the fourth's closures with a declaration (struct bar)
 * reach no struct foo, so the resolution does not make it stale (stream/
 * merge's TestStaleBatch). No pahole output is kept for it. */
struct foo;
struct bar;
struct holder { struct foo *p; int n; };
struct other { struct bar *q; int m; };
struct holder STALE_HOLDER;
struct other STALE_OTHER;
