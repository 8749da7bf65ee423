/* btf_type_tag and btf_decl_tag (clang only). */
#define __tag1 __attribute__((btf_type_tag("tag1")))
#define __tag2 __attribute__((btf_type_tag("tag2")))
#define __user __attribute__((btf_type_tag("user")))
#define __decl(x) __attribute__((btf_decl_tag(x)))

struct tagged {
	int __tag1 *p1;
	int __tag1 __tag2 *p2;
	char __user *__tag1 *pp;
	int plain __decl("member_tag");
} __decl("struct_tag");

union __decl("union_tag") tu { int a; long b __decl("ub"); };

typedef int tdef_t __decl("typedef_tag");

int __decl("var_tag") __attribute__((section(".data..percpu"))) tagged_pcpu;

struct tagged g_tagged;
union tu g_tu;
tdef_t g_tdef;

int __decl("func_tag") tagged_func(int a __decl("param_tag"), void __user *buf)
{
	return a + (buf != 0) + g_tagged.plain + tagged_pcpu;
}
