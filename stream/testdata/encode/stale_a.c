/* stale.o is stale_a.c, stale_b.c and stale_a.c again (as stale_c.c's
 * units) linked with -r: three units in which the second resolves a
 * declaration the first and third hold (struct foo, declared here), so a
 * worker that encodes the third unit before the merger has added the
 * second skips a closure with a declaration against a stale count
 * (stream/merge's TestStaleBatch). No pahole output is kept for it. */
struct foo;
struct holder { struct foo *p; int n; };
struct holder STALE_VAR;
