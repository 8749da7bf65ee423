/* strong_a.c and strong_b.c are linked into one executable (strong.o), as
 * vmlinux is: pahole 1.32 compares each function's DW_AT_low_pc with the
 * symbols' addresses. */
struct file { int fd; };

/* A weak definition the linker drops for strong_b.c's: BTF must show the
 * strong one's parameter names. */
__attribute__((weak, noinline)) int hook_mmap(struct file *file, int prot)
{
	return prot;
}

/* A static function GCC clones (.isra/.constprop) without its unused
 * parameter: its ABI changed, so it is left out, but with true_signature
 * its clone's symbol names a FUNC. */
static __attribute__((noinline)) int scale(int unused, int v, int *p)
{
	return v * *p;
}

/* Called with a constant mode: a .constprop clone. */
static __attribute__((noinline)) int mode_op(int mode, int *p)
{
	if (mode == 3)
		return p[0] * 2;
	return p[mode];
}

/* An unused parameter of a global function: the ABI cannot change, the
 * function stays. */
__attribute__((noinline)) int keep_unused(int a, int unused)
{
	return a + 1;
}

int b_entry(int v, int *p);

int a_entry(int v, int *p)
{
	return hook_mmap(0, v) + scale(v, v, p) + scale(2, v + 1, p) + mode_op(3, p) + keep_unused(v, 9) + b_entry(v, p);
}
