/* The second unit of stale.o (see stale_a.c): struct foo defined, so
 * dedup resolves the first unit's declaration to it. */
struct foo { long x; };
struct holder { struct foo *p; int n; };
struct holder g_b;
