/* An empty, allocated .BTF inside a LOAD segment, as ld.lld leaves it in
 * kbuild's .tmp_vmlinux1 (make LLVM=1): see lld-empty-btf.sh. */
struct point { int x; long y; unsigned char tag[3]; };
struct point origin = { 1, 2, { 3 } };
const char banner[] = "btfstream";
static int counter;
int sum(struct point *p) { counter++; return p->x + (int)p->y; }
void _start(void) { sum(&origin); for (;;) ; }
/* Read-only like the kernel's .BTF_ids, so it follows .BTF in the same
 * segment. */
__attribute__((section(".BTF_ids"), used)) static const unsigned int ids[4] = { 1, 2, 3, 4 };
