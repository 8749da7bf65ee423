struct file { int fd; };

__attribute__((noinline)) int hook_mmap(struct file *file__nullable, int prot)
{
	return file__nullable ? file__nullable->fd + prot : prot;
}

static __attribute__((noinline)) int twice(long x, long y)
{
	return (int)(x * 2);
}

int b_entry(int v, int *p)
{
	return twice(v, 0) + twice(*p, 1) + hook_mmap(0, v);
}
