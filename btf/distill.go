package btf

import (
	"errors"
	"fmt"
)

// Distilled base BTF (the .BTF.base section of an out-of-tree module).
//
// A module's split BTF refers to vmlinux's types by id, so it only fits
// the exact vmlinux it was built against. kbuild therefore asks the
// encoder (--btf_features=distilled_base, for every M= build) to ship a
// small "distilled" base with the module: just enough of the vmlinux
// types the module refers to that the kernel can find them again by name
// and size in whatever vmlinux the module is loaded into (kernel/bpf/
// btf_relocate.c), and rewrite the module's ids and string offsets.
//
// Distill follows libbpf 1.5's btf__distill_base, which pahole 1.31
// calls, so that the two sections come out as pahole writes them:
//
//  1. Mark every base type the split types reference, and, recursively,
//     what those reference, except through a named STRUCT or UNION (the
//     distilled base keeps those without members). A reference to a base
//     FUNC, VAR, DATASEC or DECL_TAG is an error: such a base cannot be
//     relocated.
//  2. The distilled base gets, in base id order, the marked types that
//     relocation matches by name: INT, FLOAT and FWD as they are; named
//     STRUCT and UNION as the same kind with no members and the same
//     size; named ENUM and ENUM64 as an ENUM with no values and the same
//     size.
//  3. The new split BTF is the old split types in their order, followed,
//     in base id order, by the other marked base types, copied whole:
//     anonymous STRUCT, UNION, ENUM and ENUM64, and ARRAY, TYPEDEF, PTR,
//     CONST, VOLATILE, RESTRICT, FUNC_PROTO and TYPE_TAG.
//  4. Ids are rewritten: a base type to its new id (in the distilled base
//     or the split), a split type shifted down by the difference in base
//     sizes.
//
// Strings are interned anew in the order the types are added: the
// distilled base's names first, then the split's (a split string that the
// distilled base holds points into it).
//
// Example (distill_test.go): over the base
//
//	[1] INT 'int'  [3] STRUCT 'list_head' {next, prev: [4]}  [4] PTR -> [3]
//	[5] STRUCT (anon) {counter: [1]}  [6] TYPEDEF 'atomic_t' -> [5]
//
// the split type [17] STRUCT 'm' {a: [4], b: [6]} marks [4], [3] (not its
// members), [6], [5] and [1]. The distilled base is [1] INT 'int', [2]
// STRUCT 'list_head' size 16 with no members; the new split is [3] STRUCT
// 'm' {a: [4], b: [6]}, then the copies [4] PTR -> [2], [5] STRUCT (anon)
// {counter: [1]}, [6] TYPEDEF 'atomic_t' -> [5].

// BaseSection is the ELF section in which an out-of-tree module carries
// its distilled base, beside its split BTF in .BTF.
const BaseSection = ".BTF.base"

// ErrNotSplit is returned by Distill for BTF that has no base.
var ErrNotSplit = errors.New("not split BTF")

// Distill returns a distilled base for split BTF s and a copy of s whose
// base is that distilled base (see the comment above). s is not changed.
// Both results have s's byte order and new 24-byte headers when marshaled.
func Distill(s *Spec) (base, split *Spec, err error) {
	old := s.Base()
	if old == nil {
		return nil, nil, ErrNotSplit
	}
	d := distiller{src: s, splitStart: s.FirstID(), newID: make([]TypeID, s.FirstID())}
	if err := d.mark(); err != nil {
		return nil, nil, err
	}

	base = NewSpec()
	base.ByteOrder = s.ByteOrder
	d.addBaseTypes(base)

	split = NewSplitSpec(base)
	for id := s.FirstID(); id < s.NextID(); id++ {
		d.copyType(split, id)
	}
	d.addSplitTypes(split)

	shift := d.splitStart - base.NextID()
	for id := split.FirstID(); id < split.NextID(); id++ {
		split.ForEachRef(id, func(ref *uint32) {
			switch r := TypeID(*ref); {
			case r == 0:
			case r < d.splitStart:
				*ref = uint32(d.newID[r])
			default:
				*ref = uint32(r - shift)
			}
		})
	}
	return base, split, nil
}

// distiller holds Distill's state. newID is indexed by old base id: 0 for
// a base type the split does not need, marked while marking, then the
// type's id in the distilled base or the new split.
type distiller struct {
	src        *Spec
	splitStart TypeID
	newID      []TypeID
}

// marked is newID's value for a type marked but not yet added.
const marked = ^TypeID(0)

// mark marks the base types the split types need (step 1).
func (d *distiller) mark() error {
	var stack []TypeID
	var err error
	visit := func(from TypeID) func(ref *uint32) {
		return func(ref *uint32) {
			r := TypeID(*ref)
			if err != nil || r == 0 || r >= d.splitStart || d.newID[r] != 0 {
				return
			}
			switch k := d.src.Kind(r); k {
			case KindInt, KindFloat, KindFwd, KindArray, KindStruct, KindUnion,
				KindTypedef, KindEnum, KindEnum64, KindPtr, KindConst, KindRestrict,
				KindVolatile, KindFuncProto, KindTypeTag:
			default:
				err = fmt.Errorf("type [%d] %s references base type [%d] %s '%s', which a distilled base cannot hold",
					from, d.src.Kind(from), r, k, d.src.Name(r))
				return
			}
			d.newID[r] = marked
			// A named struct or union is kept without members, so
			// what its members reference is not needed.
			if k := d.src.Kind(r); (k == KindStruct || k == KindUnion) && d.src.Type(r).NameOff != 0 {
				return
			}
			stack = append(stack, r)
		}
	}
	for id := d.splitStart; id < d.src.NextID() && err == nil; id++ {
		d.src.ForEachRef(id, visit(id))
		for len(stack) > 0 && err == nil {
			r := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			d.src.ForEachRef(r, visit(r))
		}
	}
	return err
}

// addBaseTypes fills the distilled base (step 2).
func (d *distiller) addBaseTypes(base *Spec) {
	for id := TypeID(1); id < d.splitStart; id++ {
		if d.newID[id] == 0 {
			continue
		}
		t := d.src.Type(id)
		named := t.NameOff != 0
		switch k := t.Kind(); {
		case k == KindInt || k == KindFloat || k == KindFwd:
			d.newID[id] = d.copyType(base, id)
		case (k == KindStruct || k == KindUnion) && named:
			d.newID[id] = base.Add(Type{NameOff: d.str(base, t.NameOff), Info: MakeInfo(k, 0, false), SizeOrType: t.Size()})
		case (k == KindEnum || k == KindEnum64) && named:
			d.newID[id] = base.Add(Type{NameOff: d.str(base, t.NameOff), Info: MakeInfo(KindEnum, 0, false), SizeOrType: t.Size()})
		}
	}
}

// addSplitTypes appends the marked base types the distilled base does not
// hold to the new split (step 3).
func (d *distiller) addSplitTypes(split *Spec) {
	for id := TypeID(1); id < d.splitStart; id++ {
		if d.newID[id] != marked {
			continue
		}
		d.newID[id] = d.copyType(split, id)
	}
}

// copyType appends source type id to dst with its strings interned in
// dst; its type ids are still the source's.
func (d *distiller) copyType(dst *Spec, id TypeID) TypeID {
	nid := dst.Add(d.src.Type(id), d.src.Extra(id)...)
	dst.ForEachStr(nid, func(off *uint32) { *off = uint32(d.str(dst, StrOff(*off))) })
	return nid
}

// str interns the source string at off in dst.
func (d *distiller) str(dst *Spec, off StrOff) StrOff { return copyString(dst, d.src, off) }

// copyString interns src's string at off in dst (0 stays 0).
func copyString(dst, src *Spec, off StrOff) StrOff {
	if off == 0 {
		return 0
	}
	b, _ := src.Strings().LookupBytes(off)
	return dst.Strings().AddBytes(b)
}

// Flatten returns split BTF s and its base as one base Spec: the base's
// types followed by s's, with the same ids and string offsets (the string
// sections are concatenated). It is what BPF_BTF_LOAD takes where the
// kernel cannot load split BTF on its own, and how two splits over
// different bases are compared. A base Spec is returned as it is.
func Flatten(s *Spec) *Spec {
	if s.Base() == nil {
		return s
	}
	var chain []*Spec
	for sp := s; sp != nil; sp = sp.Base() {
		chain = append(chain, sp)
	}
	var strs []byte
	types, words := 0, 0
	for i := len(chain) - 1; i >= 0; i-- {
		strs = append(strs, chain[i].Strings().Bytes()...)
		types += len(chain[i].types)
		words += len(chain[i].extra)
	}
	out := NewSpec()
	out.ByteOrder = s.ByteOrder
	out.strings = StringsFromBytes(strs, nil)
	out.Grow(types, words)
	for id := TypeID(1); id < s.NextID(); id++ {
		out.Add(s.Type(id), s.Extra(id)...)
	}
	return out
}
