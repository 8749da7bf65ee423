/* Kernel-style annotations (clang only), per-CPU and 64-bit enum values:
 * what the feature switches turn on and off (pahole_test.go). */
#define __user __attribute__((btf_type_tag("user")))
#define __rcu __attribute__((btf_type_tag("rcu")))
#define __tag(x) __attribute__((btf_decl_tag(x)))

enum big { SMALL = 1, HUGE = 0x100000000ULL };
struct node {
	struct node __rcu *next;
	char __user *buf;
	enum big size __tag("member");
	float ratio;
} __tag("struct");

int __attribute__((section(".data..percpu"))) counter __tag("var");
struct node head;

int __tag("bpf_kfunc") node_len(struct node *n __tag("param"), void __user *p)
{
	return (int)n->size + (p != 0) + counter + (int)head.ratio;
}
