package dedup

// FWD <-> STRUCT/UNION equivalence inside the types that hold them. Each
// case has two different structs 'foo', so that Finish's resolution by
// unique name cannot resolve the FWD: only the walk of a containing
// struct can. TestDedupCases runs them (one batch and one batch per CU).

func init() { dedupCases = append(dedupCases, fwdCases...) }

// foo8 is a second, different struct foo that makes the name ambiguous.
func foo8(b *builder) { b.Int("l", "long", 8); b.Struct("foo8", "foo", 8, "x:l@0") }

// barToFoo is a unit with struct bar { struct foo *f; } and foo complete.
func barToFoo(b *builder) {
	b.Int("i", "int", 4)
	b.Struct("foo", "foo", 4, "x:i@0")
	b.Ptr("p", "foo")
	b.Struct("bar", "bar", 8, "f:p@0")
}

// barToFwd is a unit with struct bar { struct foo *f; } and foo only
// declared (as a union with union set).
func barToFwd(union bool) cu {
	return func(b *builder) { b.Fwd("f", "foo", union); b.Ptr("p", "f"); b.Struct("bar", "bar", 8, "f:p@0") }
}

var fwdCases = []dedupCase{
	{
		name: "fwd: FWD in the batch, struct in the table",
		cus: []cu{
			foo8,
			barToFoo,
			barToFwd(false),
		},
		want: []string{
			"[1] INT 'long' size 8 enc 0x1 off 0 bits 64",
			"[2] STRUCT 'foo' size 8 {x:1@0}",
			"[3] " + intLine,
			"[4] STRUCT 'foo' size 4 {x:3@0}",
			"[5] PTR '' -> 4",
			"[6] STRUCT 'bar' size 8 {f:5@0}",
		},
	},
	{
		name: "fwd: FWD in the table, struct in the batch",
		cus: []cu{
			foo8,
			barToFwd(false),
			barToFoo,
		},
		want: []string{
			"[1] INT 'long' size 8 enc 0x1 off 0 bits 64",
			"[2] STRUCT 'foo' size 8 {x:1@0}",
			"[3] PTR '' -> 6",
			"[4] STRUCT 'bar' size 8 {f:3@0}",
			"[5] " + intLine,
			"[6] STRUCT 'foo' size 4 {x:5@0}",
		},
	},
	{
		name: "fwd: a union FWD does not stand for a struct",
		cus: []cu{
			foo8,
			barToFoo,
			barToFwd(true),
		},
		want: []string{
			"[1] INT 'long' size 8 enc 0x1 off 0 bits 64",
			"[2] STRUCT 'foo' size 8 {x:1@0}",
			"[3] " + intLine,
			"[4] STRUCT 'foo' size 4 {x:3@0}",
			"[5] PTR '' -> 4",
			"[6] STRUCT 'bar' size 8 {f:5@0}",
			"[7] FWD 'foo' union",
			"[8] PTR '' -> 7",
			"[9] STRUCT 'bar' size 8 {f:8@0}",
		},
	},
	{
		// Two different 'bar' fit the FWD's bar: the newest candidate
		// wins (first come, in candidate order), like libbpf's bucket.
		name: "fwd: ambiguous, two containing structs fit",
		cus: []cu{
			barToFoo,
			func(b *builder) { foo8(b); b.Ptr("p", "foo8"); b.Struct("bar", "bar", 8, "f:p@0") },
			barToFwd(false),
		},
		want: []string{
			"[1] " + intLine,
			"[2] STRUCT 'foo' size 4 {x:1@0}",
			"[3] PTR '' -> 2",
			"[4] STRUCT 'bar' size 8 {f:3@0}",
			"[5] INT 'long' size 8 enc 0x1 off 0 bits 64",
			"[6] STRUCT 'foo' size 8 {x:5@0}",
			"[7] PTR '' -> 6",
			"[8] STRUCT 'bar' size 8 {f:7@0}",
		},
	},
	{
		name: "fwd: cycle through the struct that holds the FWD",
		cus: []cu{
			foo8,
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Struct("foo", "foo", 4, "x:i@0")
				b.Ptr("pf", "foo")
				b.Ptr("pn", "node")
				b.Struct("node", "node", 16, "next:pn@0", "f:pf@64")
			},
			func(b *builder) {
				b.Fwd("f", "foo", false)
				b.Ptr("pf", "f")
				b.Ptr("pn", "node")
				b.Struct("node", "node", 16, "next:pn@0", "f:pf@64")
			},
		},
		want: []string{
			"[1] INT 'long' size 8 enc 0x1 off 0 bits 64",
			"[2] STRUCT 'foo' size 8 {x:1@0}",
			"[3] " + intLine,
			"[4] STRUCT 'foo' size 4 {x:3@0}",
			"[5] PTR '' -> 4",
			"[6] PTR '' -> 7",
			"[7] STRUCT 'node' size 16 {next:6@0 f:5@64}",
		},
	},
	{
		// commitFwds once moved the batch's resolutions to table ids one
		// by one. Batch ids and new table ids are both numbered from the
		// batch's first id, and int folds into the base, so FWD b's table
		// id is FWD a's batch id: b's resolution overwrote a's, then was
		// moved again, leaving FWD a -> STRUCT b and FWD b unresolved ('b'
		// is ambiguous). Output had FWD 'b' and a PTR to it, and the
		// module's pointer to FWD a became the base's pointer to b (a
		// member pointing at the wrong base struct, as on nf_tables.ko).
		name: "split: two FWDs resolved by one walk keep their own structs",
		base: func(b *builder) {
			b.Int("int", "int", 4)
			b.Int("long", "long", 8)
			b.Struct("a", "a", 4, "x:int@0")
			b.Struct("b", "b", 4, "x:int@0")
			b.Struct("b8", "b", 8, "x:long@0")
			b.Ptr("pa", "a")
			b.Ptr("pb", "b")
			b.Struct("holder", "holder", 16, "p:pa@0", "q:pb@64")
		},
		cus: []cu{
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Fwd("fa", "a", false)
				b.Fwd("fb", "b", false)
				b.Ptr("p1", "fa")
				b.Ptr("p2", "fb")
				b.Struct("h", "holder", 16, "p:p1@0", "q:p2@64")
				b.Ptr("ph", "h")
				b.Struct("mod", "mod", 8, "h:ph@0")
			},
		},
		want: []string{
			"[9] PTR '' -> 8",
			"[10] STRUCT 'mod' size 8 {h:9@0}",
		},
	},
	{
		// Finish resolves the module's declarations that no walk met by
		// unique name among the base's and the table's definitions: a
		// to the base's a, c to the module's c; b stays (two base b's).
		name: "split: Finish resolves declarations by unique name over base and table",
		base: func(b *builder) {
			b.Int("int", "int", 4)
			b.Int("long", "long", 8)
			b.Struct("a", "a", 4, "x:int@0")
			b.Struct("b", "b", 4, "x:int@0")
			b.Struct("b8", "b", 8, "x:long@0")
		},
		cus: []cu{
			func(b *builder) {
				b.Fwd("fa", "a", false)
				b.Fwd("fb", "b", false)
				b.Fwd("fc", "c", false)
				b.Ptr("p1", "fa")
				b.Ptr("p2", "fb")
				b.Ptr("p3", "fc")
				b.Struct("m", "mod", 24, "p:p1@0", "q:p2@64", "r:p3@128")
			},
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Struct("c", "c", 4, "x:i@0")
			},
		},
		want: []string{
			"[6] FWD 'b' struct",
			"[7] PTR '' -> 3",
			"[8] PTR '' -> 6",
			"[9] PTR '' -> 11",
			"[10] STRUCT 'mod' size 24 {p:7@0 q:8@64 r:9@128}",
			"[11] STRUCT 'c' size 4 {x:1@0}",
		},
	},
}
