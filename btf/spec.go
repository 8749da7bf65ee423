package btf

import (
	"encoding/binary"
	"fmt"
)

// Spec is a set of BTF types stored compactly: one 12-byte Type record per
// type, the kind-specific trailing words of all types in one []uint32, and a
// []uint32 of offsets into it. There is no object per type, so the ~100k
// types of a vmlinux cost about 12+4 bytes each plus their payload.
//
// A sparse Spec (a base loaded for the process, LoadAtForProcess) keeps
// a 4-byte offset only every anchorEvery types (anchors) and, per type,
// one byte: how many words after its anchor its words start (deltas;
// deltaFar when 255 or more, rare, and then the words of the types
// before it in its group are added up, Type.WordCount). That is 1.25
// bytes a type instead of 4: 0.33 MB less on a 7.2 vmlinux base (118k
// types), which a module encode keeps until it exits.
//
// Ids: a base Spec holds ids 1..Len() (0 is void and not stored). A split
// Spec (NewSplitSpec) continues after its base: its first id is
// base.NextID(), and lookups of smaller ids go to the base.
type Spec struct {
	base    *Spec
	firstID TypeID
	types   []Type
	extraAt []uint32 // extraAt[i] is the index in extra of types[i]'s words; len(types)+1 entries (nil if sparse)
	// anchors and deltas, in a sparse Spec only: anchors[g] is the
	// index in extra of type g*anchorEvery's words, deltas[i] how far
	// after its anchor type i's words start (deltaFar: that far or more).
	anchors []uint32
	deltas  []uint8
	extra   []uint32
	strings *Strings

	// Layout of the source, kept so existing BTF round-trips byte for byte.
	// New BTF has ByteOrder little endian unless set, and HdrLen 24.
	ByteOrder binary.ByteOrder
	Header    Header
}

// NewSpec returns an empty base Spec with an empty string table.
func NewSpec() *Spec {
	return &Spec{firstID: 1, extraAt: []uint32{0}, strings: NewStrings(nil), ByteOrder: binary.LittleEndian}
}

// NewSplitSpec returns an empty Spec whose ids and strings continue after base.
func NewSplitSpec(base *Spec) *Spec {
	return &Spec{
		base:      base,
		firstID:   base.NextID(),
		extraAt:   []uint32{0},
		strings:   NewStrings(base.strings),
		ByteOrder: base.ByteOrder,
	}
}

// Base returns the base of a split Spec, or nil.
func (s *Spec) Base() *Spec { return s.base }

// Strings returns the string table (for split BTF, the split part, whose
// lookups fall through to the base).
func (s *Spec) Strings() *Strings { return s.strings }

// FirstID is the id of the first local type.
func (s *Spec) FirstID() TypeID { return s.firstID }

// Len returns the number of local types.
func (s *Spec) Len() int { return len(s.types) }

// NextID is the id the next added type gets; it is one past the last id.
func (s *Spec) NextID() TypeID { return s.firstID + TypeID(len(s.types)) }

// Local reports whether id is a type of this Spec (not void, not the base's).
func (s *Spec) Local(id TypeID) bool { return id >= s.firstID && id < s.NextID() }

// Valid reports whether id names void, a base type or a local type.
func (s *Spec) Valid(id TypeID) bool { return id < s.NextID() }

// anchorEvery is how many types a sparse Spec's offsets are apart. On
// the 7.2 vmlinux 767 of 118k types are deltaFar words or more past
// their anchor (192 at 8, 3,173 at 32).
const anchorEvery = 16

// deltaFar marks a type whose words start too far after its anchor for
// its delta byte.
const deltaFar = 255

// Sparse reports whether s keeps an offset only every few types (a base
// loaded for the process): Raw then returns no offsets.
func (s *Spec) Sparse() bool { return s.anchors != nil }

// span returns where local type i's words start and end in extra.
func (s *Spec) span(i int) (lo, hi uint32) {
	if s.anchors != nil {
		return s.sparseSpan(uint(i))
	}
	return s.extraAt[i], s.extraAt[i+1]
}

// sparseSpan is span in a sparse Spec: the anchor of i's group plus i's
// delta, or the words of the types before i in its group.
func (s *Spec) sparseSpan(i uint) (lo, hi uint32) {
	if d := s.deltas[i]; d != deltaFar {
		lo = s.anchors[i/anchorEvery] + uint32(d)
	} else {
		lo = s.farSpan(i)
	}
	return lo, lo + s.types[i].WordCount()
}

// sparseExtra is LocalExtra(i) in a sparse Spec (kept out of Extra,
// which inlines).
//
//go:noinline
func (s *Spec) sparseExtra(i uint) []uint32 {
	var lo uint32
	if d := s.deltas[i]; d != deltaFar {
		lo = s.anchors[i/anchorEvery] + uint32(d)
	} else {
		lo = s.farSpan(i)
	}
	hi := lo + s.types[i].WordCount()
	return s.extra[lo:hi:hi]
}

// farSpan is where the words of type i, deltaFar or more past its
// anchor, start: counted from the anchor.
func (s *Spec) farSpan(i uint) uint32 {
	g := i / anchorEvery
	lo := s.anchors[g]
	for _, t := range s.types[g*anchorEvery : i] {
		lo += t.WordCount()
	}
	return lo
}

// indexSparse sets the anchors and deltas of a sparse Spec whose types
// and words are all there and whose anchors and deltas are empty, with
// room for all.
func (s *Spec) indexSparse() {
	types := s.types
	anchors, deltas := s.anchors[:(len(types)+anchorEvery-1)/anchorEvery], s.deltas[:len(types)]
	lo := uint32(0)
	for g := range anchors {
		anchors[g] = lo
		if len(types) < anchorEvery { // the last group, not full
			lo += sparseGroup(types, deltas)
			break
		}
		lo += sparseGroup((*[anchorEvery]Type)(types)[:], (*[anchorEvery]uint8)(deltas)[:])
		types, deltas = types[anchorEvery:], deltas[anchorEvery:]
	}
	s.anchors, s.deltas = anchors, s.deltas[:len(s.types)]
}

// sparseGroup sets the deltas of a group's types (deltas as long as
// types) and returns their words.
func sparseGroup(types []Type, deltas []uint8) uint32 {
	d := uint32(0)
	deltas = deltas[:len(types)]
	for j, t := range types {
		deltas[j] = uint8(min(d, deltaFar))
		d += t.WordCount()
	}
	return d
}

// sparseNext records, in a sparse Spec, where the words of the type
// about to be appended start.
func (s *Spec) sparseNext() {
	n := len(s.types)
	if n%anchorEvery == 0 {
		s.anchors = append(s.anchors, uint32(len(s.extra)))
	}
	s.deltas = append(s.deltas, uint8(min(uint32(len(s.extra))-s.anchors[n/anchorEvery], deltaFar)))
}

// LocalExtra returns the words of local type i (id FirstID()+i, i below
// Len()), as Extra(FirstID()+i) does.
func (s *Spec) LocalExtra(i int) []uint32 {
	if s.anchors != nil {
		return s.sparseExtra(uint(i))
	}
	return s.extra[s.extraAt[i]:s.extraAt[i+1]:s.extraAt[i+1]]
}

func (s *Spec) owner(id TypeID) (*Spec, int) {
	for sp := s; sp != nil; sp = sp.base {
		if id >= sp.firstID {
			i := int(id - sp.firstID)
			if i < len(sp.types) {
				return sp, i
			}
			return nil, -1
		}
	}
	return nil, -1
}

// TypeOffset returns the byte offset of local type id's record in the raw
// BTF the Spec was read from, or would marshal to (a 24-byte header for new
// Specs, type section first); -1 if id is not local. Errors use it to point
// at a type; it walks the types before id.
func (s *Spec) TypeOffset(id TypeID) int64 {
	if !s.Local(id) {
		return -1
	}
	hdr, typeOff := int64(s.Header.HdrLen), int64(s.Header.TypeOff)
	if hdr == 0 {
		hdr = HeaderLen
	}
	if s.Header.HdrLen == 0 || !s.fitsHeader(uint32(12*len(s.types)+4*len(s.extra)), uint32(len(s.strings.Bytes()))) {
		typeOff = 0 // Marshal lays the sections out afresh
	}
	i := int(id - s.firstID)
	lo, _ := s.span(i)
	return hdr + typeOff + 12*int64(i) + 4*int64(lo)
}

// Type returns the header record of id. Void and unknown ids give a zero Type.
func (s *Spec) Type(id TypeID) Type {
	if sp, i := s.owner(id); sp != nil {
		return sp.types[i]
	}
	return Type{}
}

// Kind returns id's kind (KindUnknown for void).
func (s *Spec) Kind(id TypeID) Kind { return s.Type(id).Kind() }

// Extra returns id's kind-specific words (members, values, params, ...).
// The slice aliases the Spec: writes through it change the type.
func (s *Spec) Extra(id TypeID) []uint32 {
	if sp, i := s.owner(id); sp != nil {
		if sp.anchors != nil {
			return sp.sparseExtra(uint(i))
		}
		return sp.extra[sp.extraAt[i]:sp.extraAt[i+1]:sp.extraAt[i+1]]
	}
	return nil
}

// Raw returns the local types' records and extra words as stored: type
// i (id FirstID()+i) is types[i], its words are words[at[i]:at[i+1]]. The
// slices alias the Spec: writes through them change its types (callers
// that rewrite edges in place, such as dedup's Prepare, say so). A sparse
// Spec has no at (nil): its words are in type order, Kind.ExtraWords of
// each type's kind and vlen, or LocalExtra(i).
func (s *Spec) Raw() (types []Type, at, words []uint32) { return s.types, s.extraAt, s.extra }

// Offsets returns Raw's at: the index in words of each local type's words,
// Len()+1 entries. A sparse Spec has none stored: they are counted into
// a new slice (4 bytes a type, on the heap), for a reader that needs them
// all.
func (s *Spec) Offsets() []uint32 {
	if s.anchors == nil {
		return s.extraAt
	}
	at := make([]uint32, len(s.types)+1)
	for i, t := range s.types {
		at[i+1] = at[i] + t.WordCount()
	}
	return at
}

// SetType replaces id's header record (same kind and vlen expected by callers
// that keep the extra words).
func (s *Spec) SetType(id TypeID, t Type) {
	if sp, i := s.owner(id); sp != nil {
		sp.types[i] = t
	}
}

// Name returns id's name.
func (s *Spec) Name(id TypeID) string { return s.strings.Name(s.Type(id).NameOff) }

// Add appends a type with its kind-specific words and returns its id. The
// number of words must match t's kind and vlen (Kind.ExtraWords).
func (s *Spec) Add(t Type, extra ...uint32) TypeID {
	if n := t.Kind().ExtraWords(t.Vlen()); n != len(extra) {
		panic(fmt.Sprintf("btf: Add %s with vlen %d: %d extra words, want %d", t.Kind(), t.Vlen(), len(extra), n))
	}
	id := s.NextID()
	if s.anchors != nil {
		s.sparseNext()
	}
	s.types = append(s.types, t)
	s.extra = append(s.extra, extra...)
	if s.anchors == nil {
		s.extraAt = append(s.extraAt, uint32(len(s.extra)))
	}
	return id
}

// Truncate drops every local type with id >= next (used to undo a tentative
// batch of types).
func (s *Spec) Truncate(next TypeID) {
	if next < s.firstID || next >= s.NextID() {
		return
	}
	n := int(next - s.firstID)
	lo, _ := s.span(n)
	s.types = s.types[:n]
	s.extra = s.extra[:lo]
	if s.anchors != nil {
		s.anchors = s.anchors[:(n+anchorEvery-1)/anchorEvery]
		s.deltas = s.deltas[:n]
		return
	}
	s.extraAt = s.extraAt[:n+1]
}

// Reset empties a Spec's local types, keeping their memory for reuse
// (the strings are the caller's to reset).
func (s *Spec) Reset() {
	s.types = s.types[:0]
	s.extra = s.extra[:0]
	if s.anchors != nil {
		s.anchors, s.deltas = s.anchors[:0], s.deltas[:0]
		return
	}
	s.extraAt = s.extraAt[:1]
}

// ResetSplit empties a split Spec and makes its ids continue after base
// (which may have grown since), keeping its memory for reuse. Its strings
// are the caller's to set or reset.
func (s *Spec) ResetSplit(base *Spec) {
	s.Reset()
	s.base, s.firstID = base, base.NextID()
}

// View returns a read-only view of s as it is now: its types and strings
// so far, sharing their memory. Types added to s later are not in the
// view, and the view may be read on another goroutine while s grows,
// provided s's existing types and strings are never changed in place
// (SetType, Truncate, Reset, SetStrings): appending writes only past the
// view's ends. The view must not be modified.
func (s *Spec) View() *Spec {
	v := *s
	n := len(s.types)
	v.types = s.types[:n:n]
	if s.anchors != nil {
		g := (n + anchorEvery - 1) / anchorEvery
		v.anchors, v.deltas = s.anchors[:g:g], s.deltas[:n:n]
	} else {
		v.extraAt = s.extraAt[: n+1 : n+1]
	}
	v.extra = s.extra[:len(s.extra):len(s.extra)]
	v.strings = s.strings.View()
	return &v
}

// Grow reserves room for n more types with words extra words in all.
func (s *Spec) Grow(n, words int) {
	if cap(s.types)-len(s.types) < n {
		s.types = append(make([]Type, 0, len(s.types)+n), s.types...)
		if s.anchors == nil {
			s.extraAt = append(make([]uint32, 0, len(s.extraAt)+n), s.extraAt...)
		}
	}
	if cap(s.extra)-len(s.extra) < words {
		s.extra = append(make([]uint32, 0, len(s.extra)+words), s.extra...)
	}
}

// Member returns member i of a STRUCT/UNION.
func (s *Spec) Member(id TypeID, i int) Member {
	w := s.Extra(id)[3*i:]
	return Member{NameOff: StrOff(w[0]), Type: TypeID(w[1]), Offset: w[2]}
}

// EnumValue returns value i of an ENUM (sign-extended when kind_flag is set)
// or ENUM64.
func (s *Spec) EnumValue(id TypeID, i int) EnumValue {
	t := s.Type(id)
	if t.Kind() == KindEnum64 {
		w := s.Extra(id)[3*i:]
		return EnumValue{NameOff: StrOff(w[0]), Value: uint64(w[2])<<32 | uint64(w[1])}
	}
	w := s.Extra(id)[2*i:]
	v := uint64(w[1])
	if t.KindFlag() {
		v = uint64(int64(int32(w[1])))
	}
	return EnumValue{NameOff: StrOff(w[0]), Value: v}
}

// Param returns parameter i of a FUNC_PROTO.
func (s *Spec) Param(id TypeID, i int) Param {
	w := s.Extra(id)[2*i:]
	return Param{NameOff: StrOff(w[0]), Type: TypeID(w[1])}
}

// Secinfo returns entry i of a DATASEC.
func (s *Spec) Secinfo(id TypeID, i int) VarSecinfo {
	w := s.Extra(id)[3*i:]
	return VarSecinfo{Type: TypeID(w[0]), Offset: w[1], Size: w[2]}
}

// Array returns an ARRAY's payload.
func (s *Spec) Array(id TypeID) Array {
	w := s.Extra(id)
	return Array{Type: TypeID(w[0]), IndexType: TypeID(w[1]), Nelems: w[2]}
}

// ForEachRef calls fn with a pointer to every type-id field of local type id
// (size_or_type where it is a type, array element and index types, member,
// parameter and secinfo types), in wire order. fn may rewrite the id.
func (s *Spec) ForEachRef(id TypeID, fn func(ref *uint32)) {
	sp, i := s.owner(id)
	if sp == nil {
		return
	}
	t := &sp.types[i]
	k := t.Kind()
	if k.HasType() {
		fn(&t.SizeOrType)
	}
	var w []uint32 // LocalExtra, inline where the Spec is dense
	if sp.anchors == nil {
		w = sp.extra[sp.extraAt[i]:sp.extraAt[i+1]]
	} else {
		w = sp.sparseExtra(uint(i))
	}
	switch k {
	case KindArray:
		fn(&w[0])
		fn(&w[1])
	case KindStruct, KindUnion:
		for j := 1; j < len(w); j += 3 {
			fn(&w[j])
		}
	case KindFuncProto:
		for j := 1; j < len(w); j += 2 {
			fn(&w[j])
		}
	case KindDatasec:
		for j := 0; j < len(w); j += 3 {
			fn(&w[j])
		}
	}
}

// ForEachStr calls fn with a pointer to every string-offset field of local
// type id (its name, member, enum value and parameter names). fn may rewrite
// the offset.
func (s *Spec) ForEachStr(id TypeID, fn func(off *uint32)) {
	sp, i := s.owner(id)
	if sp == nil {
		return
	}
	t := &sp.types[i]
	fn((*uint32)(&t.NameOff))
	var w []uint32 // LocalExtra, inline where the Spec is dense
	if sp.anchors == nil {
		w = sp.extra[sp.extraAt[i]:sp.extraAt[i+1]]
	} else {
		w = sp.sparseExtra(uint(i))
	}
	switch t.Kind() {
	case KindStruct, KindUnion, KindEnum64:
		for j := 0; j < len(w); j += 3 {
			fn(&w[j])
		}
	case KindEnum, KindFuncProto:
		for j := 0; j < len(w); j += 2 {
			fn(&w[j])
		}
	}
}

// TypeBytes returns the size of local type id in wire form (12 + 4*words).
func (s *Spec) TypeBytes(id TypeID) int { return 12 + 4*len(s.Extra(id)) }

// SetStrings replaces the string table (used by string deduplication after
// it has rewritten every offset).
func (s *Spec) SetStrings(st *Strings) { s.strings = st }

// IntEncoding decodes an INT's payload word: encoding (IntSigned, IntChar,
// IntBool), bit offset and bit size.
func (s *Spec) IntEncoding(id TypeID) (encoding, offset, bits uint32) {
	return IntInfo(s.Extra(id)[0])
}

// VarLinkage returns a VAR's linkage (LinkageStatic, LinkageGlobal,
// LinkageExtern).
func (s *Spec) VarLinkage(id TypeID) uint32 { return s.Extra(id)[0] }

// FuncLinkage returns a FUNC's linkage, which the wire format keeps in vlen.
func (s *Spec) FuncLinkage(id TypeID) uint32 { return s.Type(id).Vlen() }

// DeclTagComponent returns a DECL_TAG's component_idx: -1 when it tags the
// type itself, else the index of the member (STRUCT/UNION) or parameter
// (FUNC) it tags.
func (s *Spec) DeclTagComponent(id TypeID) int32 { return int32(s.Extra(id)[0]) }

// IsAttribute reports the kind_flag of a DECL_TAG or TYPE_TAG: the tag is
// an attribute (__attribute__((...)) text) rather than a btf_decl_tag /
// btf_type_tag string.
func (s *Spec) IsAttribute(id TypeID) bool {
	t := s.Type(id)
	return (t.Kind() == KindDeclTag || t.Kind() == KindTypeTag) && t.KindFlag()
}
