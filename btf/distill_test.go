package btf

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// distillBase is the vmlinux stand-in of the distillation table: one type
// of each kind a split may reference, and some it must not.
//
//	[1] INT 'int'              [2] PTR -> 1
//	[3] STRUCT 'list_head' {next: PTR->3, prev: PTR->3} (the PTR is [4])
//	[5] STRUCT (anon) {counter: 1}   [6] TYPEDEF 'atomic_t' -> 5
//	[7] ENUM64 'big' {B=1<<40}       [8] ENUM (anon) {A=1}
//	[9] FWD union 'u'                [10] FUNC_PROTO int(int x)
//	[11] FUNC 'f' -> 10              [12] FLOAT 'double'
//	[13] ARRAY int[4] (index int)    [14] UNION 'w' {i: int}
//	[15] CONST -> 3                  [16] VAR 'v' -> 1
func distillBase() *tb {
	b := newTB()
	i := b.int32()
	b.add("", KindPtr, 0, false, uint32(i))
	lh := b.s.NextID()
	b.add("list_head", KindStruct, 2, false, 16,
		b.str("next"), uint32(lh+1), 0, b.str("prev"), uint32(lh+1), 64)
	b.add("", KindPtr, 0, false, uint32(lh))
	anon := b.add("", KindStruct, 1, false, 4, b.str("counter"), uint32(i), 0)
	b.add("atomic_t", KindTypedef, 0, false, uint32(anon))
	b.add("big", KindEnum64, 1, false, 8, b.str("B"), 0, 1<<8)
	b.add("", KindEnum, 1, false, 4, b.str("A"), 1)
	b.add("u", KindFwd, 0, true, 0)
	proto := b.add("", KindFuncProto, 1, false, uint32(i), b.str("x"), uint32(i))
	b.add("f", KindFunc, 0, false, uint32(proto))
	b.add("double", KindFloat, 0, false, 8)
	b.add("", KindArray, 0, false, 0, uint32(i), uint32(i), 4)
	b.add("w", KindUnion, 1, true, 4, b.str("i"), uint32(i), 0)
	b.add("", KindConst, 0, false, uint32(lh))
	b.add("v", KindVar, 0, false, uint32(i), 1)
	return b
}

// splitOf returns a builder for split types over base.
func splitOf(base *Spec) *tb { return &tb{NewSplitSpec(base)} }

var distillCases = []struct {
	name string
	// build adds split types; the base is distillBase's (first split id 17).
	build     func(s *tb)
	wantBase  string // Dump of the distilled base
	wantSplit string // Dump of the new split
}{
	{"worked example: named struct through a pointer, typedef of an anonymous struct", func(s *tb) {
		s.add("m", KindStruct, 2, false, 16, s.str("a"), 4, 0, s.str("b"), 6, 64)
	}, `[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
[2] STRUCT 'list_head' size=16 vlen=0
`, `[3] STRUCT 'm' size=16 vlen=2
	'a' type_id=4 bits_offset=0
	'b' type_id=6 bits_offset=64
[4] PTR '(anon)' type_id=2
[5] STRUCT '(anon)' size=4 vlen=1
	'counter' type_id=1 bits_offset=0
[6] TYPEDEF 'atomic_t' type_id=5
`},
	{"named enum64 becomes a sized enum, anonymous enum is copied, fwd and float kept", func(s *tb) {
		s.add("e", KindStruct, 3, false, 24, s.str("x"), 7, 0, s.str("y"), 8, 64, s.str("z"), 12, 128)
		s.add("", KindPtr, 0, false, 9)
	}, `[1] ENUM 'big' encoding=UNSIGNED size=8 vlen=0
[2] FWD 'u' fwd_kind=union
[3] FLOAT 'double' size=8
`, `[4] STRUCT 'e' size=24 vlen=3
	'x' type_id=1 bits_offset=0
	'y' type_id=6 bits_offset=64
	'z' type_id=3 bits_offset=128
[5] PTR '(anon)' type_id=2
[6] ENUM '(anon)' encoding=UNSIGNED size=4 vlen=1
	'A' val=1
`},
	{"function prototype, array and const: copied with what they reference", func(s *tb) {
		s.add("", KindPtr, 0, false, 10)
		s.add("", KindPtr, 0, false, 13)
		s.add("", KindPtr, 0, false, 15)
	}, `[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
[2] STRUCT 'list_head' size=16 vlen=0
`, `[3] PTR '(anon)' type_id=6
[4] PTR '(anon)' type_id=7
[5] PTR '(anon)' type_id=8
[6] FUNC_PROTO '(anon)' ret_type_id=1 vlen=1
	'x' type_id=1
[7] ARRAY '(anon)' type_id=1 index_type_id=1 nr_elems=4
[8] CONST '(anon)' type_id=2
`},
	{"named union keeps its size, loses members and kind_flag; split ids shift", func(s *tb) {
		p := s.add("", KindPtr, 0, false, 0) // [17] -> [19]
		self := s.s.NextID()
		s.add("n", KindStruct, 2, false, 12, s.str("w"), 14, 0, s.str("self"), uint32(p), 32)
		s.s.SetType(p, Type{Info: MakeInfo(KindPtr, 0, false), SizeOrType: uint32(self)})
	}, `[1] UNION 'w' size=4 vlen=0
`, `[2] PTR '(anon)' type_id=3
[3] STRUCT 'n' size=12 vlen=2
	'w' type_id=1 bits_offset=0
	'self' type_id=2 bits_offset=32
`},
	{"split strings equal to a distilled name point into the base", func(s *tb) {
		s.add("int", KindTypedef, 0, false, 1)
		s.add("fresh", KindTypedef, 0, false, 1)
	}, `[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
`, `[2] TYPEDEF 'int' type_id=1
[3] TYPEDEF 'fresh' type_id=1
`},
	{"a split that references nothing in the base", func(s *tb) {
		s.add("own", KindStruct, 0, false, 0)
	}, ``, `[1] STRUCT 'own' size=0 vlen=0
`},
}

func TestDistill(t *testing.T) {
	for _, tc := range distillCases {
		t.Run(tc.name, func(t *testing.T) {
			base := distillBase().s
			sb := splitOf(base)
			tc.build(sb)
			src := sb.s
			before := src.Marshal()

			nb, ns, err := Distill(src)
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpString(t, nb); got != tc.wantBase {
				t.Errorf("distilled base:\n%s\nwant:\n%s", got, tc.wantBase)
			}
			if got := dumpString(t, ns); got != tc.wantSplit {
				t.Errorf("split:\n%s\nwant:\n%s", got, tc.wantSplit)
			}
			if ns.Base() != nb || ns.FirstID() != nb.NextID() {
				t.Errorf("split starts at %d over a base of %d types", ns.FirstID(), nb.Len())
			}
			if !bytes.Equal(src.Marshal(), before) {
				t.Error("Distill changed its input")
			}
			// What the kernel checks before relocating (btf_relocate.c):
			// only named INT, FLOAT, ENUM, STRUCT, UNION and FWD.
			for id := TypeID(1); id < nb.NextID(); id++ {
				switch k := nb.Kind(id); {
				case nb.Type(id).NameOff == 0:
					t.Errorf("distilled base type [%d] %s is anonymous", id, k)
				case k != KindInt && k != KindFloat && k != KindEnum && k != KindStruct && k != KindUnion && k != KindFwd:
					t.Errorf("distilled base type [%d] has kind %s", id, k)
				}
			}
			// The verifier wants at least one type in base BTF (the
			// kernel runs only its shallow checks on .BTF.base).
			if err := nb.Validate(); err != nil && nb.Len() > 0 {
				t.Errorf("distilled base invalid: %v", err)
			}
			if err := ns.Validate(); err != nil && nb.Len() > 0 {
				t.Errorf("split over the distilled base invalid: %v", err)
			}
			// Both round-trip through the wire format.
			rb, err := Parse(nb.Marshal(), nil)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := Parse(ns.Marshal(), rb)
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpString(t, rs); got != tc.wantSplit {
				t.Errorf("split after a round trip:\n%s", got)
			}
		})
	}
}

func TestDistillStringOrder(t *testing.T) {
	// Names are interned in the order types are added: the distilled base
	// holds exactly its types' names; the split its own, then those of the
	// base types it copied, each once.
	base := distillBase().s
	s := splitOf(base)
	s.add("m", KindStruct, 3, false, 24, s.str("a"), 4, 0, s.str("b"), 6, 64, s.str("c"), 12, 128)
	nb, ns, err := Distill(s.s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(nb.Strings().Bytes()), "\x00int\x00list_head\x00double\x00"; got != want {
		t.Errorf("distilled base strings %q, want %q", got, want)
	}
	if got, want := string(ns.Strings().Bytes()), "m\x00a\x00b\x00c\x00counter\x00atomic_t\x00"; got != want {
		t.Errorf("split strings %q, want %q", got, want)
	}
}

func TestDistillErrors(t *testing.T) {
	if _, _, err := Distill(distillBase().s); !errors.Is(err, ErrNotSplit) {
		t.Errorf("base BTF: err %v, want ErrNotSplit", err)
	}
	for _, tc := range []struct {
		name  string
		build func(s *tb)
		want  string
	}{
		{"decl tag on a base function", func(s *tb) {
			s.add("tag", KindDeclTag, 0, false, 11, ^uint32(0))
		}, "type [17] DECL_TAG references base type [11] FUNC 'f'"},
		{"base variable reached through a datasec", func(s *tb) {
			s.add(".data", KindDatasec, 1, false, 4, 16, 0, 4)
		}, "type [17] DATASEC references base type [16] VAR 'v'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := splitOf(distillBase().s)
			tc.build(s)
			_, _, err := Distill(s.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestFlatten(t *testing.T) {
	base := distillBase().s
	s := splitOf(base)
	m := s.add("m", KindStruct, 1, false, 8, s.str("next"), 4, 0)
	flat := Flatten(s.s)
	if flat.Base() != nil || flat.Len() != base.Len()+1 {
		t.Fatalf("flat: base %v, %d types", flat.Base(), flat.Len())
	}
	for id := TypeID(1); id <= m; id++ {
		if got, want := flat.DumpType(id), s.s.DumpType(id); got != want {
			t.Errorf("[%d] flat %q, split %q", id, got, want)
		}
	}
	// The wire form is the base's types then the split's, and the two
	// string sections end to end.
	rt, err := Parse(flat.Marshal(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Name(m) != "m" || rt.Strings().Name(StrOff(base.Strings().Len())) != "m" {
		t.Errorf("split strings not after the base's: %q", rt.Name(m))
	}
	if Flatten(base) != base {
		t.Error("Flatten of a base Spec is not the Spec itself")
	}
}
