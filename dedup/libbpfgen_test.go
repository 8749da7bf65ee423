package dedup

import (
	"fmt"
	"math/rand"

	"github.com/btfstream/btfstream/btf"
)

// A generator of small random BTF inputs shaped like a compiler's output,
// for the differential test against libbpf (libbpf_test.go).
//
// A "program" is a universe of abstract types; a compilation unit (CU)
// emits the closure of a few of them, each universe type once, in a
// random order, where some structs and unions reached only through
// pointers are just declared (FWD) and some enums are declared without
// values (a forward declaration, of a random size). The input is a
// sequence of CUs, as pahole hands them to libbpf. Names come from small
// pools, so different universe types may share a name, as the same name
// does in different parts of a kernel.
//
// Within a CU each universe type is one type: a compiler never emits two
// identical pointer types in one unit, and that is the one input on which
// btfstream is knowingly finer than libbpf (see the package documentation).

type gKind uint8

const (
	gInt gKind = iota
	gStruct
	gUnion
	gEnum
	gEnum64
	gPtr
	gConst
	gTypedef
	gProto
	gArray
)

type gType struct {
	kind  gKind
	name  string
	size  uint32
	vals  []uint64 // enum values (names derived)
	edges []int    // members / pointee / params (ret first for protos)
	// embedded: some struct holds this struct or union by value, so no CU
	// may only declare it.
	embedded bool
}

type program struct{ types []gType }

var (
	gAggNames  = []string{"a", "b", "c", "d", "list", "node"}
	gEnumNames = []string{"e", "f", "g"}
	gTypeNames = []string{"T", "U", "cb"}
	gMemNames  = []string{"x", "y", "z", "next"}
)

// genProgram makes a universe of n types. Edges of value kinds (struct
// members by value, arrays, typedefs, consts) point only to lower
// indices, so sizes are finite; pointers point anywhere, so cycles go
// through pointers (and through a typedef of a pointer to a prototype
// returning the typedef, as in callbacks).
func genProgram(rng *rand.Rand, n int) *program {
	p := &program{}
	p.types = append(p.types, gType{kind: gInt, name: "int", size: 4}, gType{kind: gInt, name: "long", size: 8})
	for len(p.types) < n {
		i := len(p.types)
		any := func() int { return rng.Intn(n) }
		lower := func() int { return rng.Intn(i) }
		// a lower type that a value may hold (not a prototype)
		value := func() int {
			for {
				if e := lower(); p.types[e].kind != gProto {
					return e
				}
			}
		}
		var t gType
		switch r := rng.Intn(20); {
		case r < 5:
			t = gType{kind: gStruct, name: pick(rng, gAggNames)}
			if rng.Intn(3) == 0 {
				t.kind = gUnion
			}
			if rng.Intn(6) == 0 {
				t.name = ""
			}
			for m := rng.Intn(3); m >= 0; m-- {
				t.edges = append(t.edges, value())
			}
			t.size = 8 * uint32(len(t.edges))
		case r < 8:
			t = gType{kind: gEnum, name: pick(rng, gEnumNames), size: 4}
			if rng.Intn(4) == 0 {
				t.kind, t.size = gEnum64, 8
			}
			for v := rng.Intn(2); v >= 0; v-- {
				t.vals = append(t.vals, uint64(rng.Intn(3)))
			}
		case r < 12:
			t = gType{kind: gPtr, edges: []int{any()}}
		case r < 13:
			t = gType{kind: gConst, edges: []int{value()}}
		case r < 15:
			t = gType{kind: gTypedef, name: pick(rng, gTypeNames), edges: []int{lower()}}
		case r < 17:
			t = gType{kind: gProto, edges: []int{lower()}}
			for a := rng.Intn(3); a > 0; a-- {
				t.edges = append(t.edges, any())
			}
		case r < 18:
			t = gType{kind: gArray, edges: []int{value(), 0}, size: uint32(1 + rng.Intn(3))}
		default:
			// typedef T -> PTR -> FUNC_PROTO returning T (or taking it),
			// or typedef T -> FUNC_PROTO returning T.
			td := gType{kind: gTypedef, name: pick(rng, gTypeNames)}
			proto := gType{kind: gProto, edges: []int{i, 0}}
			if rng.Intn(2) == 0 {
				proto.edges = []int{0, i}
			}
			if rng.Intn(3) == 0 {
				td.edges = []int{i + 1}
				p.types = append(p.types, td, proto)
			} else {
				td.edges = []int{i + 1}
				p.types = append(p.types, td, gType{kind: gPtr, edges: []int{i + 2}}, proto)
			}
			continue
		}
		p.types = append(p.types, t)
	}
	// An edge to a later type closes a cycle: only through a struct, a
	// union or a typedef (as in C; libbpf refuses cycles of pointers and
	// prototypes alone).
	for i := range p.types {
		for k, e := range p.types[i].edges {
			if to := p.types[e].kind; e >= i && to != gStruct && to != gUnion && to != gTypedef {
				p.types[i].edges[k] = rng.Intn(i)
			}
		}
	}
	for i, t := range p.types {
		if t.kind == gStruct || t.kind == gUnion || t.kind == gArray || t.kind == gConst || t.kind == gTypedef {
			for _, e := range t.edges {
				if e < i && (p.types[e].kind == gStruct || p.types[e].kind == gUnion) {
					p.types[e].embedded = true
				}
			}
		}
	}
	return p
}

func pick(rng *rand.Rand, names []string) string { return names[rng.Intn(len(names))] }

// emitCU appends to s one CU holding the closure of roots, in a random
// order: each universe type once; a struct or union not embedded is only
// declared with probability 1/3, an enum declared without values with
// probability 1/4 (size 4, or 1 or 8 now and then, kind kept or not).
func (p *program) emitCU(rng *rand.Rand, s *btf.Spec, roots []int) {
	declared := map[int]bool{}
	var order []int
	seen := map[int]bool{}
	var visit func(i int)
	visit = func(i int) {
		if seen[i] {
			return
		}
		seen[i] = true
		order = append(order, i)
		t := p.types[i]
		switch t.kind {
		case gStruct, gUnion:
			if !t.embedded && t.name != "" && rng.Intn(3) == 0 {
				declared[i] = true
				return
			}
		case gEnum, gEnum64:
			if rng.Intn(4) == 0 {
				declared[i] = true
			}
		}
		for _, e := range t.edges {
			visit(e)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
	id := map[int]btf.TypeID{}
	next := s.NextID()
	for k, i := range order {
		id[i] = next + btf.TypeID(k)
	}
	str := func(x string) btf.StrOff {
		if x == "" {
			return 0
		}
		return s.Strings().Add(x)
	}
	for _, i := range order {
		t := p.types[i]
		ref := func(k int) uint32 { return uint32(id[t.edges[k]]) }
		switch {
		case t.kind == gInt:
			s.Add(btf.Type{NameOff: str(t.name), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: t.size}, btf.MakeIntInfo(btf.IntSigned, 0, 8*t.size))
		case (t.kind == gStruct || t.kind == gUnion) && declared[i]:
			s.Add(btf.Type{NameOff: str(t.name), Info: btf.MakeInfo(btf.KindFwd, 0, t.kind == gUnion)})
		case t.kind == gStruct || t.kind == gUnion:
			k := btf.KindStruct
			if t.kind == gUnion {
				k = btf.KindUnion
			}
			var w []uint32
			for m := range t.edges {
				off := uint32(64 * m)
				if k == btf.KindUnion {
					off = 0
				}
				w = append(w, uint32(str(gMemNames[m%len(gMemNames)])), ref(m), off)
			}
			s.Add(btf.Type{NameOff: str(t.name), Info: btf.MakeInfo(k, uint32(len(t.edges)), false), SizeOrType: t.size}, w...)
		case t.kind == gEnum || t.kind == gEnum64:
			k, size := btf.KindEnum, t.size
			if t.kind == gEnum64 {
				k = btf.KindEnum64
			}
			if declared[i] {
				switch rng.Intn(4) {
				case 0:
					size = 1
				case 1:
					k, size = btf.KindEnum, 4
				}
				s.Add(btf.Type{NameOff: str(t.name), Info: btf.MakeInfo(k, 0, false), SizeOrType: size})
				continue
			}
			var w []uint32
			for v, x := range t.vals {
				w = append(w, uint32(str(fmt.Sprintf("%s_%d", t.name, v))), uint32(x))
				if k == btf.KindEnum64 {
					w = append(w, uint32(x>>32))
				}
			}
			s.Add(btf.Type{NameOff: str(t.name), Info: btf.MakeInfo(k, uint32(len(t.vals)), false), SizeOrType: size}, w...)
		case t.kind == gPtr:
			s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: ref(0)})
		case t.kind == gConst:
			s.Add(btf.Type{Info: btf.MakeInfo(btf.KindConst, 0, false), SizeOrType: ref(0)})
		case t.kind == gTypedef:
			s.Add(btf.Type{NameOff: str(t.name), Info: btf.MakeInfo(btf.KindTypedef, 0, false), SizeOrType: ref(0)})
		case t.kind == gProto:
			var w []uint32
			for a := 1; a < len(t.edges); a++ {
				w = append(w, uint32(str(gMemNames[a%len(gMemNames)])), ref(a))
			}
			s.Add(btf.Type{Info: btf.MakeInfo(btf.KindFuncProto, uint32(len(t.edges)-1), false), SizeOrType: ref(0)}, w...)
		case t.kind == gArray:
			s.Add(btf.Type{Info: btf.MakeInfo(btf.KindArray, 0, false)}, ref(0), ref(1), t.size)
		}
	}
}

// genGraph makes one input: CUs of one program, as base BTF or, with a
// base, split BTF over it.
func genGraph(rng *rand.Rand, p *program, base *btf.Spec) *btf.Spec {
	s := btf.NewSpec()
	if base != nil {
		s = btf.NewSplitSpec(base)
	}
	for cu := 1 + rng.Intn(4); cu > 0; cu-- {
		var roots []int
		for r := 1 + rng.Intn(3); r > 0; r-- {
			roots = append(roots, rng.Intn(len(p.types)))
		}
		p.emitCU(rng, s, roots)
	}
	return s
}
