/* The fourth unit of stale.o (see stale_a.c): struct bar only declared. */
struct bar;
struct other { struct bar *q; int m; };
struct other g_d;
