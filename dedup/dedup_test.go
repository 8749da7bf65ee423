package dedup

import (
	"bytes"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

type cu func(b *builder)

type dedupCase struct {
	name string
	base cu // optional: split mode against this base
	cus  []cu
	want []string
}

const intLine = "INT 'int' size 4 enc 0x1 off 0 bits 32"

var dedupCases = []dedupCase{
	{
		name: "primitive duplicates across CUs",
		cus: []cu{
			func(b *builder) { b.Int("i", "int", 4); b.Float("d", "double", 8) },
			func(b *builder) { b.Float("d", "double", 8); b.Int("i", "int", 4); b.Int("l", "long", 8) },
		},
		want: []string{"[1] " + intLine, "[2] FLOAT 'double' size 8", "[3] INT 'long' size 8 enc 0x1 off 0 bits 64"},
	},
	{
		name: "self-referencing struct in two CUs",
		cus:  []cu{listHead, listHead},
		want: []string{
			"[1] STRUCT 'list_head' size 16 {next:2@0 prev:2@64}",
			"[2] PTR '' -> 1",
		},
	},
	{
		name: "reference chains",
		cus:  []cu{chain("int", 4), chain("int", 4), chain("long", 8)},
		want: []string{
			"[1] " + intLine,
			"[2] CONST '' -> 1",
			"[3] VOLATILE '' -> 2",
			"[4] TYPEDEF 'u' -> 3",
			"[5] RESTRICT '' -> 6",
			"[6] PTR '' -> 4",
			"[7] INT 'long' size 8 enc 0x1 off 0 bits 64",
			"[8] CONST '' -> 7",
			"[9] VOLATILE '' -> 8",
			"[10] TYPEDEF 'u' -> 9",
			"[11] RESTRICT '' -> 12",
			"[12] PTR '' -> 10",
		},
	},
	{
		name: "arrays",
		cus: []cu{
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Array("a", "i", "i", 4)
				b.Array("b", "i", "i", 4)
				b.Array("c", "i", "i", 5)
			},
		},
		want: []string{"[1] " + intLine, "[2] ARRAY '' 1[4] idx 1", "[3] ARRAY '' 1[5] idx 1"},
	},
	{
		name: "FUNC and FUNC_PROTO",
		cus:  []cu{funcCU("a"), funcCU("a"), funcCU("b")},
		want: []string{
			"[1] " + intLine,
			"[2] FUNC_PROTO '' ret 1 (a:1 y:1)",
			"[3] FUNC 'f' linkage 1 -> 2",
			"[4] FUNC_PROTO '' ret 1 (b:1 y:1)",
			"[5] FUNC 'f' linkage 1 -> 4",
		},
	},
	{
		name: "VAR and DATASEC are never merged",
		cus:  []cu{varCU, varCU},
		want: []string{
			"[1] " + intLine,
			"[2] VAR 'x' linkage 1 -> 1",
			"[3] DATASEC '.data' size 4 {2@0+4}",
			"[4] VAR 'x' linkage 1 -> 1",
			"[5] DATASEC '.data' size 4 {4@0+4}",
		},
	},
	{
		name: "DECL_TAG and TYPE_TAG",
		cus:  []cu{tagCU(-1), tagCU(-1), tagCU(0)},
		want: []string{
			"[1] " + intLine,
			"[2] TYPE_TAG 'user' -> 1",
			"[3] PTR '' -> 2",
			"[4] FUNC_PROTO '' ret 1 (p:3)",
			"[5] FUNC 'f' linkage 1 -> 4",
			"[6] DECL_TAG 'kfunc' -> 5 comp -1",
			"[7] DECL_TAG 'kfunc' -> 5 comp 0",
		},
	},
	{
		name: "FWD resolves to the unique struct; its users merge",
		cus: []cu{
			func(b *builder) { b.Fwd("f", "foo", false); b.Ptr("p", "f"); b.Struct("bar", "bar", 8, "f:p@0") },
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Struct("foo", "foo", 4, "x:i@0")
				b.Ptr("p", "foo")
				b.Struct("bar", "bar", 8, "f:p@0")
			},
		},
		want: []string{
			"[1] PTR '' -> 4",
			"[2] STRUCT 'bar' size 8 {f:1@0}",
			"[3] " + intLine,
			"[4] STRUCT 'foo' size 4 {x:3@0}",
		},
	},
	{
		name: "ambiguous FWD is left alone",
		cus: []cu{
			func(b *builder) { b.Int("i", "int", 4); b.Struct("foo", "foo", 4, "x:i@0") },
			func(b *builder) { b.Int("l", "long", 8); b.Struct("foo", "foo", 8, "x:l@0") },
			func(b *builder) { b.Fwd("f", "foo", false); b.Ptr("p", "f") },
		},
		want: []string{
			"[1] " + intLine,
			"[2] STRUCT 'foo' size 4 {x:1@0}",
			"[3] INT 'long' size 8 enc 0x1 off 0 bits 64",
			"[4] STRUCT 'foo' size 8 {x:3@0}",
			"[5] FWD 'foo' struct",
			"[6] PTR '' -> 5",
		},
	},
	{
		name: "FWD of a union does not resolve to a struct",
		cus: []cu{
			func(b *builder) { b.Fwd("f", "u", true); b.Struct("s", "u", 0) },
		},
		want: []string{"[1] FWD 'u' union", "[2] STRUCT 'u' size 0 {}"},
	},
	{
		name: "enum forward declaration resolves to ENUM64",
		cus: []cu{
			func(b *builder) { b.Enum("e", "e", 4); b.Ptr("p", "e") },
			func(b *builder) { b.Enum64("e", "e", 8, "A=1", "B=4294967296"); b.Ptr("p", "e") },
		},
		want: []string{"[1] PTR '' -> 2", "[2] ENUM64 'e' size 8 {A=1 B=4294967296}"},
	},
	{
		// libbpf: a declaration takes the newest complete enum of its
		// name before it, whatever its kind and size.
		name: "ambiguous enum forward declaration takes the newest enum before it; ENUM and ENUM64 stay apart",
		cus: []cu{
			func(b *builder) { b.Enum("e", "e", 4, "A=1") },
			func(b *builder) { b.Enum64("e", "e", 4, "A=1") },
			func(b *builder) { b.Enum("e", "e", 4); b.Ptr("p", "e") },
			func(b *builder) { b.Enum("e", "e", 4) },
		},
		want: []string{"[1] ENUM 'e' size 4 {A=1}", "[2] ENUM64 'e' size 4 {A=1}", "[3] PTR '' -> 2"},
	},
	{
		name: "enum forward declaration and the enum give one ENUM",
		cus: []cu{
			func(b *builder) { b.Enum("e", "e", 4) },
			func(b *builder) { b.Enum("e", "e", 4, "A=1") },
			func(b *builder) { b.Enum("e", "e", 4) },
		},
		want: []string{"[1] ENUM 'e' size 4 {A=1}"},
	},
	{
		// Two complete enums 'e': only the check of the struct that
		// holds the declaration can tell which one it stands for (the
		// shape of fwnode_operations and enum dev_dma_attr in Linux 6.1).
		name: "struct holding an enum forward declaration merges with the one holding the enum",
		cus: []cu{
			func(b *builder) { b.Enum("e", "e", 4, "A=1"); b.Struct("s", "s", 4, "x:e@0") },
			func(b *builder) { b.Enum("e", "e", 4, "B=2"); b.Struct("t", "t", 4, "y:e@0") },
			func(b *builder) { b.Enum("e", "e", 4); b.Struct("s", "s", 4, "x:e@0") },
		},
		want: []string{
			"[1] ENUM 'e' size 4 {A=1}",
			"[2] STRUCT 's' size 4 {x:1@0}",
			"[3] ENUM 'e' size 4 {B=2}",
			"[4] STRUCT 't' size 4 {y:3@0}",
		},
	},
	{
		name: "identical anonymous definitions in one parent",
		cus: []cu{func(b *builder) {
			b.Int("i", "int", 4)
			b.Struct("a1", "", 4, "x:i@0")
			b.Struct("a2", "", 4, "x:i@0")
			b.Struct("o", "outer", 8, "a:a1@0", "b:a2@32")
		}},
		want: []string{"[1] " + intLine, "[2] STRUCT '' size 4 {x:1@0}", "[3] STRUCT 'outer' size 8 {a:2@0 b:2@32}"},
	},
	{
		name: "identical anonymous definitions inside a cycle, two levels down",
		cus: []cu{func(b *builder) {
			b.Struct("n", "node", 16, "a:pa1@0", "b:pa2@64")
			b.Ptr("pa1", "a1")
			b.Ptr("pa2", "a2")
			b.Struct("a1", "", 8, "n:pn1@0")
			b.Struct("a2", "", 8, "n:pn2@0")
			b.Ptr("pn1", "n")
			b.Ptr("pn2", "n")
		}},
		want: []string{
			"[1] STRUCT 'node' size 16 {a:2@0 b:2@64}",
			"[2] PTR '' -> 3",
			"[3] STRUCT '' size 8 {n:4@0}",
			"[4] PTR '' -> 1",
		},
	},
	{
		// libbpf 1.1 keeps two struct s: its walk maps CU 1's pointer to
		// CU 2's first pointer and then meets CU 2's second, equivalent
		// but distinct, pointer (bench: dedup_libbpf on this input).
		name: "equivalent but distinct pointers in one CU",
		cus: []cu{
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Struct("t", "t", 4, "x:i@0")
				b.Ptr("p", "t")
				b.Struct("s", "s", 16, "a:p@0", "b:p@64")
			},
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Struct("t", "t", 4, "x:i@0")
				b.Ptr("p1", "t")
				b.Ptr("p2", "t")
				b.Struct("s", "s", 16, "a:p1@0", "b:p2@64")
			},
		},
		want: []string{
			"[1] " + intLine,
			"[2] STRUCT 't' size 4 {x:1@0}",
			"[3] PTR '' -> 2",
			"[4] STRUCT 's' size 16 {a:3@0 b:3@64}",
		},
	},
	{
		name: "a cycle unrolled once merges into the cycle",
		cus: []cu{func(b *builder) {
			b.Struct("s1", "s", 8, "next:p1@0")
			b.Ptr("p1", "s2")
			b.Struct("s2", "s", 8, "next:p2@0")
			b.Ptr("p2", "s2")
		}},
		want: []string{"[1] STRUCT 's' size 8 {next:2@0}", "[2] PTR '' -> 1"},
	},
	{
		name: "output follows first occurrence",
		cus: []cu{
			func(b *builder) { b.Ptr("p", "s"); b.Struct("s", "s", 8, "x:i@0"); b.Int("i", "int", 4) },
			func(b *builder) { b.Int("i", "int", 4); b.Struct("s", "s", 8, "x:i@0"); b.Ptr("p", "s") },
		},
		want: []string{"[1] PTR '' -> 2", "[2] STRUCT 's' size 8 {x:3@0}", "[3] " + intLine},
	},
	{
		name: "split: module types fold into the base, FWD resolves to a base struct",
		base: func(b *builder) {
			b.Int("int", "int", 4)
			b.Struct("foo", "foo", 4, "x:int@0")
			b.Ptr("pfoo", "foo")
		},
		cus: []cu{
			func(b *builder) {
				b.Int("i", "int", 4)
				b.Fwd("f", "foo", false)
				b.Ptr("p", "f")
				b.Struct("bar", "bar", 16, "f:p@0", "n:i@64")
			},
			func(b *builder) {
				b.Struct("bar", "bar", 16, "f:pfoo@0", "n:int@64")
				b.Struct("baz", "baz", 8, "b:pb@0")
				b.Ptr("pb", "bar")
			},
		},
		want: []string{
			"[4] STRUCT 'bar' size 16 {f:3@0 n:1@64}",
			"[5] STRUCT 'baz' size 8 {b:6@0}",
			"[6] PTR '' -> 4",
		},
	},
	{
		// Folding the module's s1 onto the base's would make its member
		// a pointer to FWD s2, where the module has struct s2: the
		// module keeps its s1 (libbpf: hypot_adjust_canon), the base FWD
		// stands for the module's s2, and a second unit's s1 merges with
		// the module's.
		name: "split: module s1 reaching a complete s2 stays apart from the base s1 reaching FWD s2",
		base: func(b *builder) {
			b.Int("int", "int", 4)
			b.Fwd("f2", "s2", false)
			b.Ptr("pf2", "f2")
			b.Struct("s1", "s1", 8, "p:pf2@0")
		},
		cus: []cu{s1ToS2, s1ToS2},
		want: []string{
			"[5] STRUCT 's2' size 4 {x:1@0}",
			"[6] PTR '' -> 5",
			"[7] STRUCT 's1' size 8 {p:6@0}",
		},
	},
}

// s1ToS2 is a unit with struct s1 { struct s2 *p; } and s2 complete.
func s1ToS2(b *builder) {
	b.Int("i", "int", 4)
	b.Struct("ms2", "s2", 4, "x:i@0")
	b.Ptr("mp", "ms2")
	b.Struct("ms1", "s1", 8, "p:mp@0")
}

func listHead(b *builder) {
	b.Struct("lh", "list_head", 16, "next:p@0", "prev:p@64")
	b.Ptr("p", "lh")
}

func chain(name string, size uint32) cu {
	return func(b *builder) {
		b.Int("i", name, size)
		b.Const("c", "i")
		b.Volatile("v", "c")
		b.Typedef("t", "u", "v")
		b.Restrict("r", "p")
		b.Ptr("p", "t")
	}
}

func funcCU(param string) cu {
	return func(b *builder) {
		b.Int("i", "int", 4)
		b.Proto("fp", "i", param+":i", "y:i")
		b.Func("f", "f", "fp")
	}
}

func varCU(b *builder) {
	b.Int("i", "int", 4)
	b.Var("v", "x", "i")
	b.Datasec("ds", ".data", 4, "v@0+4")
}

func tagCU(comp int32) cu {
	return func(b *builder) {
		b.Int("i", "int", 4)
		b.TypeTag("tt", "user", "i")
		b.Ptr("p", "tt")
		b.Proto("fp", "i", "p:p")
		b.Func("f", "f", "fp")
		b.DeclTag("dt", "kfunc", "f", comp)
	}
}

// buildCase returns the base (or nil) with its labels, and the CUs
// concatenated into one Spec.
func buildCase(c dedupCase) (*btf.Spec, map[string]btf.TypeID, *btf.Spec) {
	var base *btf.Spec
	var labels map[string]btf.TypeID
	var s *btf.Spec
	if c.base != nil {
		bb := newBuilder(btf.NewSpec(), nil)
		c.base(bb)
		base = bb.done()
		labels = bb.labels
		s = btf.NewSplitSpec(base)
	} else {
		s = btf.NewSpec()
	}
	for _, f := range c.cus {
		b := newBuilder(s, labels)
		f(b)
		b.done()
	}
	return base, labels, s
}

func TestDedupCases(t *testing.T) {
	for _, c := range dedupCases {
		t.Run(c.name, func(t *testing.T) {
			base, labels, in := buildCase(c)
			var baseRaw []byte
			if base != nil {
				baseRaw = base.Marshal()
			}
			out, remap, err := Dedup(in)
			if err != nil {
				t.Fatal(err)
			}
			checkLines(t, dump(out), c.want)
			for id := in.FirstID(); id < in.NextID(); id++ {
				if m := remap.Map(id); !out.Valid(m) {
					t.Errorf("remap[%d] = %d, out of range", id, m)
				}
			}
			raw := out.Marshal()

			// Incremental, one batch per CU, gives the same bytes.
			d, err := NewIncremental(base)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range c.cus {
				b := newBuilder(d.NewBatch(), labels)
				f(b)
				if _, err := d.AddBatch(b.done()); err != nil {
					t.Fatal(err)
				}
			}
			inc, _, err := d.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(inc.Marshal(), raw) {
				t.Errorf("incremental differs from batch:\n\t%v", dump(inc))
			}

			checkInvariants(t, in, out)
			if base != nil && !bytes.Equal(base.Marshal(), baseRaw) {
				t.Error("base changed")
			}
		})
	}
}

// checkInvariants checks what holds for every dedup output: idempotence
// byte for byte, and no two equivalent types (VAR, DATASEC aside).
func checkInvariants(t *testing.T, in, out *btf.Spec) {
	t.Helper()
	again, _, err := Dedup(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Marshal(), out.Marshal()) {
		t.Errorf("dedup(dedup(x)) != dedup(x):\n\t%v\nvs\n\t%v", dump(again), dump(out))
	}
	c, err := compare(out, out, false)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint32]btf.TypeID{}
	for i, cl := range c.classA {
		id := out.FirstID() + btf.TypeID(i)
		if k := out.Kind(id); k == btf.KindVar || k == btf.KindDatasec {
			continue
		}
		if o, dup := seen[cl]; dup {
			t.Errorf("output has equivalent types %s and %s", Short(out, o), Short(out, id))
		}
		seen[cl] = id
	}
	if t.Failed() {
		return
	}
	if cmp, err := Compare(in, in); err != nil || !cmp.Equal() {
		t.Errorf("input not equal to itself: %v", err)
	}
}

func TestStringsFollowFirstUse(t *testing.T) {
	s := btf.NewSpec()
	st := s.Strings()
	st.Add("unused")
	b := newBuilder(s, nil)
	b.Int("i", "int", 4)
	b.Struct("s", "s", 4, "x:i@0")
	b.Int("j", "int", 4)
	b.done()
	out, _, err := Dedup(s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out.Strings().Bytes()), "\x00int\x00s\x00x\x00"; got != want {
		t.Errorf("strings %q, want %q", got, want)
	}
}

func TestBadInput(t *testing.T) {
	s := btf.NewSpec()
	s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: 7})
	if _, _, err := Dedup(s); err == nil {
		t.Error("dangling reference accepted")
	}
	d, _ := NewIncremental(nil)
	if _, err := d.AddBatch(btf.NewSpec()); err != nil {
		t.Errorf("empty batch: %v", err)
	}
	wrong := btf.NewSpec()
	wrong.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false)})
	d.AddBatch(wrong)
	if _, err := d.AddBatch(wrong); err == nil {
		t.Error("batch at the wrong id accepted")
	}
}
