package e2e

import (
	"fmt"
	"testing"

	"encoding/binary"
	"hash/fnv"

	"github.com/btfstream/btfstream/btf"
)

// baseCopies returns the local types of split, a module's BTF over its
// vmlinux's, that are copies of a base type: a type whose label (kind,
// kind_flag, vlen, size, its name and its members', values', parameters'
// names and numbers) equals a base type's and whose edges lead, position
// by position, to that base type's targets, or to local types that are
// themselves copies of them. Strict: a FWD is not its STRUCT, and two
// distinct base ids are two types (pahole's base BTF is deduplicated).
// VARs and DATASECs are never copies: dedup keeps each one, as libbpf does.
//
// Such a type is one that deduplicating the module against its base
// should have folded into the base: pahole 1.31 and btfstream leave none,
// Debian's pahole 1.32 (libbpf 1.7) leaves hundreds in some modules.
func baseCopies(split *btf.Spec) []btf.TypeID {
	f := &copyFinder{
		s:      split,
		first:  split.FirstID(),
		hashes: make([]uint64, split.NextID()),
		byHash: map[uint64][]btf.TypeID{},
		ok:     map[btf.TypeID]btf.TypeID{},
		fail:   map[[2]btf.TypeID]bool{},
	}
	if split.Base() == nil {
		return nil
	}
	for id := btf.TypeID(1); id < f.first; id++ {
		if k := split.Kind(id); k != btf.KindVar && k != btf.KindDatasec {
			h := f.hash(id)
			f.byHash[h] = append(f.byHash[h], id)
		}
	}
	var copies []btf.TypeID
	for id := f.first; id < split.NextID(); id++ {
		if f.copyOf(id) != 0 {
			copies = append(copies, id)
		}
	}
	return copies
}

// copyFinder holds baseCopies' memos. Ids below first are base ids.
type copyFinder struct {
	s      *btf.Spec
	first  btf.TypeID
	hashes []uint64 // by id; 0 = not yet computed
	byHash map[uint64][]btf.TypeID
	ok     map[btf.TypeID]btf.TypeID // local type -> the base type it copies
	fail   map[[2]btf.TypeID]bool    // (local, base) pairs that differ
	active map[btf.TypeID]bool       // hash: ids being hashed (cycle guard)
}

// copyOf returns the base type local id copies, or 0.
func (f *copyFinder) copyOf(id btf.TypeID) btf.TypeID {
	if b, ok := f.ok[id]; ok {
		return b
	}
	if k := f.s.Kind(id); k == btf.KindVar || k == btf.KindDatasec {
		return 0
	}
	for _, b := range f.byHash[f.hash(id)] {
		assumed := map[[2]btf.TypeID]bool{}
		if f.same(id, b, assumed) {
			for p := range assumed {
				f.ok[p[0]] = p[1]
			}
			return b
		}
	}
	return 0
}

// same reports whether local (or base) id a is the base type b: the
// greatest fixed point, assuming pairs under comparison equal (cycles).
// A pair found different stays different; pairs assumed equal are kept
// by the caller only if the whole comparison succeeds.
func (f *copyFinder) same(a, b btf.TypeID, assumed map[[2]btf.TypeID]bool) bool {
	if a < f.first || b >= f.first {
		return a == b
	}
	p := [2]btf.TypeID{a, b}
	if c, ok := f.ok[a]; ok && c == b {
		return true
	}
	if f.fail[p] || f.s.Kind(a) == btf.KindVar || f.s.Kind(a) == btf.KindDatasec {
		return false
	}
	if assumed[p] {
		return true
	}
	la, ea := f.label(a)
	lb, eb := f.label(b)
	if la != lb || len(ea) != len(eb) {
		f.fail[p] = true
		return false
	}
	assumed[p] = true
	for j := range ea {
		if !f.same(ea[j], eb[j], assumed) {
			f.fail[p] = true
			return false
		}
	}
	return true
}

// Word roles of a type's extra words, by kind (include/uapi/linux/btf.h).
const (
	roleNum = iota
	roleRef
	roleStr
)

func wordRole(k btf.Kind, j int) int {
	switch k {
	case btf.KindStruct, btf.KindUnion: // name, type, offset
		return [3]int{roleStr, roleRef, roleNum}[j%3]
	case btf.KindEnum: // name, value
		return [2]int{roleStr, roleNum}[j%2]
	case btf.KindEnum64: // name, lo32, hi32
		return [3]int{roleStr, roleNum, roleNum}[j%3]
	case btf.KindFuncProto: // name, type
		return [2]int{roleStr, roleRef}[j%2]
	case btf.KindArray: // type, index type, nelems
		if j < 2 {
			return roleRef
		}
	case btf.KindDatasec: // type, offset, size
		return [3]int{roleRef, roleNum, roleNum}[j%3]
	}
	return roleNum
}

// label returns id's label as bytes (everything but its edges, strings by
// content) and its edges in wire order.
func (f *copyFinder) label(id btf.TypeID) (string, []btf.TypeID) {
	t, w := f.s.Type(id), f.s.Extra(id)
	k := t.Kind()
	var b []byte
	str := func(off uint32) {
		name := f.s.Strings().Name(btf.StrOff(off))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(name)))
		b = append(b, name...)
	}
	var edges []btf.TypeID
	b = binary.LittleEndian.AppendUint32(b, t.Info)
	str(uint32(t.NameOff))
	if k.HasType() {
		edges = append(edges, t.Ref())
	} else {
		b = binary.LittleEndian.AppendUint32(b, t.SizeOrType)
	}
	for j, v := range w {
		switch wordRole(k, j) {
		case roleRef:
			edges = append(edges, btf.TypeID(v))
		case roleStr:
			str(v)
		default:
			b = binary.LittleEndian.AppendUint32(b, v)
		}
	}
	return string(b), edges
}

// hash is a structural hash that a copy shares with its base type: the
// label and the hashes of the edges' targets, cut at named structs,
// unions, enums and FWDs (their kind and name stand for them), so that
// it terminates on the cycles C allows.
func (f *copyFinder) hash(id btf.TypeID) uint64 {
	if id == 0 {
		return 1
	}
	if h := f.hashes[id]; h != 0 {
		return h
	}
	if f.active[id] {
		return 2 // a cycle without a named aggregate
	}
	h := fnv.New64a()
	t := f.s.Type(id)
	switch t.Kind() {
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindFwd:
		if t.NameOff != 0 {
			var kb [4]byte
			binary.LittleEndian.PutUint32(kb[:], uint32(t.Kind()))
			h.Write(kb[:])
			h.Write([]byte(f.s.Name(id)))
			v := h.Sum64() | 1
			f.hashes[id] = v
			return v
		}
	}
	if f.active == nil {
		f.active = map[btf.TypeID]bool{}
	}
	f.active[id] = true
	lab, edges := f.label(id)
	h.Write([]byte(lab))
	var eb [8]byte
	for _, e := range edges {
		binary.LittleEndian.PutUint64(eb[:], f.hash(e))
		h.Write(eb[:])
	}
	delete(f.active, id)
	v := h.Sum64() | 1
	f.hashes[id] = v
	return v
}

func TestBaseCopies(t *testing.T) {
	base := btf.NewSpec()
	str := func(s *btf.Spec, name string) btf.StrOff { return s.Strings().Add(name) }
	typ := func(s *btf.Spec, k btf.Kind, name string, vlen uint32, sizeOrType uint32, extra ...uint32) btf.TypeID {
		return s.Add(btf.Type{NameOff: str(s, name), Info: btf.MakeInfo(k, vlen, false), SizeOrType: sizeOrType}, extra...)
	}
	member := func(s *btf.Spec, name string, to btf.TypeID, off uint32) []uint32 {
		return []uint32{uint32(str(s, name)), uint32(to), off}
	}
	// base: [1] int, [2] int *, [3] struct s { int x; struct s *next; }, [4] struct s *, [5] FWD t
	bInt := typ(base, btf.KindInt, "int", 0, 4, 32)
	typ(base, btf.KindPtr, "", 0, uint32(bInt))
	bS := btf.TypeID(3)
	typ(base, btf.KindStruct, "s", 2, 16, append(member(base, "x", bInt, 0), member(base, "next", bS+1, 64)...)...)
	typ(base, btf.KindPtr, "", 0, uint32(bS))
	typ(base, btf.KindFwd, "t", 0, 0)

	m := btf.NewSplitSpec(base)
	mInt := typ(m, btf.KindInt, "int", 0, 4, 32)        // copy of [1]
	mPtrInt := typ(m, btf.KindPtr, "", 0, uint32(mInt)) // copy of [2], through a copy
	mS := m.NextID()                                    // copy of [3], through a cycle
	typ(m, btf.KindStruct, "s", 2, 16, append(member(m, "x", mInt, 0), member(m, "next", mS+1, 64)...)...)
	typ(m, btf.KindPtr, "", 0, uint32(mS))                                                                    // copy of [4]
	mFwd := typ(m, btf.KindFwd, "t", 0, 0)                                                                    // copy of [5]
	mT := typ(m, btf.KindStruct, "t", 1, 4, member(m, "x", bInt, 0)...)                                       // the base has only FWD t
	typ(m, btf.KindPtr, "", 0, uint32(mT))                                                                    // no base PTR to a struct t
	typ(m, btf.KindStruct, "s", 2, 16, append(member(m, "x", mInt, 0), member(m, "nxt", mS+1, 64)...)...)     // a member's name differs
	typ(m, btf.KindStruct, "s", 2, 16, append(member(m, "x", mPtrInt, 0), member(m, "next", mS+1, 64)...)...) // a member's type differs
	typ(m, btf.KindVar, "int", 0, uint32(bInt), 0)                                                            // VARs are never copies
	typ(m, btf.KindTypedef, "u32", 0, uint32(bInt))                                                           // the base has no typedef

	got := baseCopies(m)
	want := []btf.TypeID{mInt, mPtrInt, mS, mS + 1, mFwd}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("base copies %v, want %v", got, want)
	}
	if c := baseCopies(base); c != nil {
		t.Errorf("a base BTF has base copies: %v", c)
	}
}
