package dedup

// Table cases for what libbpf's btf__dedup accepts and does (issue 17),
// one per behaviour its selftests (tools/testing/selftests/bpf/prog_tests/
// btf.c "dedup: ...", btf_dedup_split.c) check, written anew. Like every
// table case they run through Dedup and the Incremental
// (TestDedupCases), and through libbpf when it is at hand
// (TestDedupCasesLikeLibbpf).

func init() { dedupCases = append(dedupCases, libbpfCases...) }

var libbpfCases = []dedupCase{
	{
		// Issue 17, as libbpf's selftest "enum fwd resolution" has it:
		// the first declaration goes to the last complete 'e1' (libbpf
		// re-points it at every new one), the size 1 one to the newest
		// complete 'e1' before it.
		name: "enum forward declarations resolve whatever their size, however many enums have the name",
		cus: []cu{
			func(b *builder) { b.Enum("e1f", "e1", 4); b.Ptr("p1", "e1f") },
			func(b *builder) { b.Enum("e1", "e1", 4, "e1_val=123"); b.Enum("e2", "e2", 4, "e2_val=456") },
			func(b *builder) { b.Enum("e2f", "e2", 4); b.Enum("e1f", "e1", 1); b.Ptr("p2", "e1f") },
			func(b *builder) { b.Enum("e1", "e1", 4, "e1_val=321") },
		},
		want: []string{
			"[1] PTR '' -> 5",
			"[2] ENUM 'e1' size 4 {e1_val=123}",
			"[3] ENUM 'e2' size 4 {e2_val=456}",
			"[4] PTR '' -> 2",
			"[5] ENUM 'e1' size 4 {e1_val=321}",
		},
	},
	{
		name: "enum64 forward declarations resolve the same way",
		cus: []cu{
			func(b *builder) { b.Enum64("e1f", "e1", 8) },
			func(b *builder) { b.Enum64("e1", "e1", 8, "e1_val=4294967296"); b.Enum64("e2", "e2", 8, "e2_val=456") },
			func(b *builder) { b.Enum64("e2f", "e2", 8); b.Enum64("e1f", "e1", 4) },
			func(b *builder) { b.Enum64("e1", "e1", 8, "e1_val=321") },
		},
		want: []string{
			"[1] ENUM64 'e1' size 8 {e1_val=4294967296}",
			"[2] ENUM64 'e2' size 8 {e2_val=456}",
			"[3] ENUM64 'e1' size 8 {e1_val=321}",
		},
	},
	{
		name: "enum forward declarations of different sizes and kinds without an enum are one",
		cus: []cu{
			func(b *builder) { b.Enum("e", "e", 4); b.Ptr("p", "e") },
			func(b *builder) { b.Enum("e", "e", 1); b.Ptr("p", "e") },
			func(b *builder) { b.Enum64("e", "e", 8); b.Ptr("p", "e") },
		},
		want: []string{"[1] ENUM 'e' size 4 {}", "[2] PTR '' -> 1"},
	},
	{
		// Issue 17: Go's `type Foo func() Foo`, which the kernel verifier
		// refuses (a FUNC_PROTO returning a type without size) and
		// libbpf >= 1.7 deduplicates.
		name: "typedef recursing through a function prototype",
		cus: []cu{
			func(b *builder) { b.Typedef("t", "Foo", "p"); b.Proto("p", "t") },
			func(b *builder) { b.Typedef("t", "Foo", "p"); b.Proto("p", "t") },
		},
		want: []string{"[1] TYPEDEF 'Foo' -> 2", "[2] FUNC_PROTO '' ret 1 ()"},
	},
	{
		name: "typedef recursing through a pointer to a function prototype",
		cus: []cu{
			func(b *builder) {
				b.Typedef("t", "cb", "q")
				b.Ptr("q", "p")
				b.Int("i", "int", 4)
				b.Proto("p", "i", "f:t")
			},
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Proto("p", "i", "f:t")
				b.Ptr("q", "p")
				b.Typedef("t", "cb", "q")
			},
		},
		want: []string{"[1] TYPEDEF 'cb' -> 2", "[2] PTR '' -> 4", "[3] " + intLine, "[4] FUNC_PROTO '' ret 3 (f:1)"},
	},
	{
		// Issue 17: not a C identifier, which the kernel verifier
		// refuses and libbpf does not look at.
		name: "struct named with a string that is not a C identifier",
		cus: []cu{
			func(b *builder) { b.Int("i", "int", 4); b.Struct("s", "not an-identifier", 4, "x:i@0") },
			func(b *builder) { b.Int("i", "int", 4); b.Struct("s", "not an-identifier", 4, "x:i@0") },
		},
		want: []string{"[1] " + intLine, "[2] STRUCT 'not an-identifier' size 4 {x:1@0}"},
	},
	{
		// libbpf keys the names of structs and unions together: a
		// struct and a union 'u' leave FWD 'u' unresolved.
		name: "a struct and a union of one name leave the FWD",
		cus: []cu{
			func(b *builder) { b.Int("i", "int", 4); b.Union("u", "u", 4, "x:i@0") },
			func(b *builder) { b.Int("i", "int", 4); b.Struct("s", "u", 4, "x:i@0") },
			func(b *builder) { b.Fwd("f", "u", true); b.Ptr("p", "f") },
		},
		want: []string{"[1] " + intLine, "[2] UNION 'u' size 4 {x:1@0}", "[3] STRUCT 'u' size 4 {x:1@0}", "[4] FWD 'u' union", "[5] PTR '' -> 4"},
	},
	{
		// A FWD of the other kind stays ("standalone fwd declaration
		// wrong kind").
		name: "a union FWD does not resolve to the only struct of its name",
		cus: []cu{
			func(b *builder) { b.Int("i", "int", 4); b.Struct("s", "k", 4, "v:i@0") },
			func(b *builder) { b.Fwd("f", "k", true); b.Ptr("p", "f") },
		},
		want: []string{"[1] " + intLine, "[2] STRUCT 'k' size 4 {v:1@0}", "[3] FWD 'k' union", "[4] PTR '' -> 3"},
	},
	{
		// "enum64 fwd to enum": kind and size do not matter to a
		// declaration.
		name: "an ENUM64 declaration resolves to the ENUM of its name",
		cus: []cu{
			func(b *builder) { b.Enum64("d", "mode", 8); b.Ptr("p", "d") },
			func(b *builder) { b.Enum("m", "mode", 4, "OFF=0", "ON=1"); b.Ptr("p", "m") },
		},
		want: []string{"[1] PTR '' -> 2", "[2] ENUM 'mode' size 4 {OFF=0 ON=1}"},
	},
	{
		// "enum of different size: no dedup", "enum and enum64, no
		// dedup": complete enums merge only when equal.
		name: "complete enums of one name and values but other sizes or kinds stay apart",
		cus: []cu{
			func(b *builder) { b.Enum("a", "lvl", 4, "LO=1") },
			func(b *builder) { b.Enum("b", "lvl", 2, "LO=1") },
			func(b *builder) { b.Enum64("c", "lvl", 4, "LO=1") },
			func(b *builder) { b.Enum("a", "lvl", 4, "LO=1") },
		},
		want: []string{"[1] ENUM 'lvl' size 4 {LO=1}", "[2] ENUM 'lvl' size 2 {LO=1}", "[3] ENUM64 'lvl' size 4 {LO=1}"},
	},
	{
		// "void equiv check": a pointer to void and a pointer to an
		// empty struct are different members.
		name: "pointer to void is not a pointer to an empty struct",
		cus: []cu{
			func(b *builder) { b.Struct("e", "", 0); b.Ptr("p", "e"); b.Struct("h", "holder", 8, "ptr:p@0") },
			func(b *builder) { b.Ptr("p", "void"); b.Struct("h", "holder", 8, "ptr:p@0") },
		},
		want: []string{
			"[1] STRUCT '' size 0 {}",
			"[2] PTR '' -> 1",
			"[3] STRUCT 'holder' size 8 {ptr:2@0}",
			"[4] PTR '' -> 0",
			"[5] STRUCT 'holder' size 8 {ptr:4@0}",
		},
	},
	{
		// "typedef tags": tags on a typedef merge with it.
		name: "decl tags on a typedef in two CUs",
		cus: []cu{
			func(b *builder) { b.Int("i", "int", 4); b.Typedef("t", "word", "i"); b.DeclTag("a", "hot", "t", -1) },
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Typedef("t", "word", "i")
				b.DeclTag("a", "hot", "t", -1)
				b.DeclTag("c", "cold", "t", -1)
			},
		},
		want: []string{"[1] " + intLine, "[2] TYPEDEF 'word' -> 1", "[3] DECL_TAG 'hot' -> 2 comp -1", "[4] DECL_TAG 'cold' -> 2 comp -1"},
	},
	{
		// "struct/struct_member tags": tags follow the struct they tag,
		// each (value, component) once.
		name: "decl tags on a struct and its member from two CUs",
		cus: []cu{
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Struct("s", "pair", 8, "lo:i@0", "hi:i@32")
				b.DeclTag("a", "packed", "s", -1)
				b.DeclTag("b", "user", "s", 1)
			},
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Struct("s", "pair", 8, "lo:i@0", "hi:i@32")
				b.DeclTag("a", "packed", "s", -1)
				b.DeclTag("c", "percpu", "s", -1)
				b.DeclTag("b", "user", "s", 1)
			},
		},
		want: []string{
			"[1] " + intLine,
			"[2] STRUCT 'pair' size 8 {lo:1@0 hi:1@32}",
			"[3] DECL_TAG 'packed' -> 2 comp -1",
			"[4] DECL_TAG 'user' -> 2 comp 1",
			"[5] DECL_TAG 'percpu' -> 2 comp -1",
		},
	},
	{
		// "btf_type_tag #5, struct": members typed through equal
		// TYPE_TAG chains make equal structs; another tag does not.
		name: "structs whose members carry type tags",
		cus: []cu{
			func(b *builder) { b.Int("i", "int", 4); b.TypeTag("t", "rcu", "i"); b.Struct("s", "slot", 4, "v:t@0") },
			func(b *builder) { b.Int("i", "int", 4); b.TypeTag("t", "rcu", "i"); b.Struct("s", "slot", 4, "v:t@0") },
			func(b *builder) { b.Int("i", "int", 4); b.TypeTag("t", "user", "i"); b.Struct("s", "slot", 4, "v:t@0") },
		},
		want: []string{
			"[1] " + intLine,
			"[2] TYPE_TAG 'rcu' -> 1",
			"[3] STRUCT 'slot' size 4 {v:2@0}",
			"[4] TYPE_TAG 'user' -> 1",
			"[5] STRUCT 'slot' size 4 {v:4@0}",
		},
	},
	{
		// btf_dedup_split.c: a module FWD resolves to the base struct,
		// and the module's copies of base types fold onto them.
		name: "module declaration and copies fold onto the base",
		base: func(b *builder) {
			b.Int("i", "int", 4)
			b.Struct("n", "node", 16, "val:i@0", "next:np@64")
			b.Ptr("np", "n")
		},
		cus: []cu{
			func(b *builder) {
				b.Fwd("f", "node", false)
				b.Ptr("fp", "f")
				b.Struct("l", "list", 8, "head:fp@0")
			},
			func(b *builder) {
				b.Int("i2", "int", 4)
				b.Struct("n2", "node", 16, "val:i2@0", "next:np2@64")
				b.Ptr("np2", "n2")
				b.Struct("l", "list", 8, "head:np2@0")
			},
		},
		want: []string{"[4] STRUCT 'list' size 8 {head:3@0}"},
	},
	{
		// libbpf 1.7 (pahole 1.32) never checks a module typedef against
		// the base's (it hashes them differently): the module's ndctl_fn
		// stays, resolving no base FWD; desc's check then meets the base's
		// FWD nvdimm opposite the module's struct, so desc stays too, and
		// ndctl_fn's prototype points at the module's desc. Checking the
		// typedef against the base first made FWD nvdimm stand for the
		// module's struct, desc fold onto the base's, and the kept
		// ndctl_fn's prototype name the base's desc (Linux 7.2's
		// libnvdimm.ko).
		name: "a module typedef is not checked against the base's",
		base: func(b *builder) {
			b.Int("i", "int", 4)
			b.Typedef("fn", "ndctl_fn", "fnp")
			b.Ptr("fnp", "pr")
			b.Proto("pr", "i", ":dp", ":nfp")
			b.Ptr("dp", "d")
			b.Struct("d", "desc", 8, "ndctl:fn@0")
			b.Ptr("nfp", "nf")
			b.Fwd("nf", "nvdimm", false)
		},
		cus: []cu{
			func(b *builder) {
				b.Int("mi", "int", 4)
				b.Typedef("mfn", "ndctl_fn", "mfnp")
				b.Ptr("mfnp", "mpr")
				b.Proto("mpr", "mi", ":mdp", ":mnfp")
				b.Ptr("mdp", "md")
				b.Struct("md", "desc", 8, "ndctl:mfn@0")
				b.Ptr("mnfp", "mnf")
				b.Struct("mnf", "nvdimm", 4, "x:mi@0")
			},
		},
		want: []string{
			"[9] TYPEDEF 'ndctl_fn' -> 10",
			"[10] PTR '' -> 11",
			"[11] FUNC_PROTO '' ret 1 (:12 :14)",
			"[12] PTR '' -> 13",
			"[13] STRUCT 'desc' size 8 {ndctl:9@0}",
			"[14] PTR '' -> 15",
			"[15] STRUCT 'nvdimm' size 4 {x:1@0}",
		},
	},
	{
		// The same module typedef identical to the base's folds onto it
		// by its exact edges (libbpf leaves it a copy: "typedef bug").
		name: "a module typedef identical to the base's folds onto it",
		base: func(b *builder) {
			b.Int("i", "int", 4)
			b.Typedef("fn", "ndctl_fn", "fnp")
			b.Ptr("fnp", "pr")
			b.Proto("pr", "i", ":dp")
			b.Ptr("dp", "d")
			b.Struct("d", "desc", 8, "ndctl:fn@0")
		},
		cus: []cu{
			func(b *builder) {
				b.Int("mi", "int", 4)
				b.Typedef("mfn", "ndctl_fn", "mfnp")
				b.Ptr("mfnp", "mpr")
				b.Proto("mpr", "mi", ":mdp")
				b.Ptr("mdp", "md")
				b.Struct("md", "desc", 8, "ndctl:mfn@0")
				b.Typedef("w", "word", "mi")
			},
		},
		want: []string{"[7] TYPEDEF 'word' -> 1"},
	},
	{
		// libbpf checks a struct against a module candidate by walking
		// the candidate's own unit: the first unit's vcpu folded onto the
		// base's, but its mmu, kept apart from the base's (the module
		// defines x, which the base only declares), is what its pointer
		// reaches. The second unit's cache, checked against the first's,
		// meets its mmu opposite that kept mmu, not the base's, so the
		// second mmu's prototype is the first's; read over classes it met
		// the base's mmu and left a second, unreferenced prototype
		// (Linux 7.2's kvm-amd.ko: gfn_to_pfn_cache, kvm_vcpu, kvm_mmu,
		// x86_exception, kvm_mmu.gva_to_gpa).
		name: "a struct checked against a module struct meets the module's kept structs below it",
		base: func(b *builder) {
			b.Int("i", "int", 4)
			b.Fwd("x", "x", false)
			b.Ptr("px", "x")
			b.Fwd("c", "cache", false)
			b.Ptr("pc", "c")
			b.Struct("v", "vcpu", 16, "m:pm@0", "c:pc@64")
			b.Struct("m", "mmu", 16, "f:pf@0", "v:pv@64")
			b.Ptr("pm", "m")
			b.Ptr("pv", "v")
			b.Proto("pr", "i", ":pm", ":px")
			b.Ptr("pf", "pr")
		},
		cus: []cu{unitWithCache, unitWithCache},
		want: []string{
			"[12] STRUCT 'cache' size 8 {v:9@0}",
			"[13] STRUCT 'mmu' size 16 {f:19@0 v:9@64}",
			"[14] STRUCT 'x' size 4 {a:1@0}",
			"[15] PTR '' -> 12",
			"[16] PTR '' -> 13",
			"[17] PTR '' -> 14",
			"[18] FUNC_PROTO '' ret 1 (:16 :17)",
			"[19] PTR '' -> 18",
		},
	},
	{
		// libbpf tries a module typedef's candidates newest first: the
		// second unit's U, equal edge for edge to the base's U (both reach
		// FWD d), checks OK against the first unit's U, which reaches the
		// module's struct d, and takes it, so the second unit's FWD d
		// stands for that struct (the differential test's graph 1677 of
		// seed 17). Taking the base's equal U first left s pointing at the
		// base's typedef and its FWD.
		name: "a module typedef takes the newest candidate that checks OK before an equal base typedef",
		base: func(b *builder) {
			b.Fwd("f", "d", false)
			b.Ptr("pf", "f")
			b.Typedef("u", "U", "pf")
		},
		cus: []cu{
			func(b *builder) {
				b.Struct("d", "d", 8, "x:pu@0")
				b.Ptr("pu", "u1")
				b.Typedef("u1", "U", "pd")
				b.Ptr("pd", "d")
			},
			func(b *builder) {
				b.Fwd("f2", "d", false)
				b.Ptr("pf2", "f2")
				b.Typedef("u2", "U", "pf2")
				b.Struct("s", "s", 8, "y:u2@0")
			},
		},
		want: []string{
			"[4] STRUCT 'd' size 8 {x:5@0}",
			"[5] PTR '' -> 6",
			"[6] TYPEDEF 'U' -> 7",
			"[7] PTR '' -> 4",
			"[8] STRUCT 's' size 8 {y:6@0}",
		},
	},
}

// unitWithCache is a unit of the case above: cache, mmu and vcpu on one
// cycle, cache first.
func unitWithCache(b *builder) {
	b.Int("ui", "int", 4)
	b.Struct("uc", "cache", 8, "v:upv@0")
	b.Struct("um", "mmu", 16, "f:upf@0", "v:upv@64")
	b.Struct("ux", "x", 4, "a:ui@0")
	b.Struct("uv", "vcpu", 16, "m:upm@0", "c:upc@64")
	b.Ptr("upc", "uc")
	b.Ptr("upm", "um")
	b.Ptr("upv", "uv")
	b.Ptr("upx", "ux")
	b.Proto("upr", "ui", ":upm", ":upx")
	b.Ptr("upf", "upr")
}
