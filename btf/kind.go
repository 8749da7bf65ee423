package btf

import "fmt"

// Kind is a BTF type kind (BTF_KIND_*), bits 24-30 of btf_type.info.
type Kind uint8

// The kinds of today's kernel uapi (include/uapi/linux/btf.h).
const (
	KindUnknown   Kind = 0
	KindInt       Kind = 1
	KindPtr       Kind = 2
	KindArray     Kind = 3
	KindStruct    Kind = 4
	KindUnion     Kind = 5
	KindEnum      Kind = 6
	KindFwd       Kind = 7
	KindTypedef   Kind = 8
	KindVolatile  Kind = 9
	KindConst     Kind = 10
	KindRestrict  Kind = 11
	KindFunc      Kind = 12
	KindFuncProto Kind = 13
	KindVar       Kind = 14
	KindDatasec   Kind = 15
	KindFloat     Kind = 16
	KindDeclTag   Kind = 17
	KindTypeTag   Kind = 18
	KindEnum64    Kind = 19

	// MaxKind is the highest kind this package understands.
	MaxKind = KindEnum64
)

var kindNames = [...]string{
	KindUnknown:   "UNKN",
	KindInt:       "INT",
	KindPtr:       "PTR",
	KindArray:     "ARRAY",
	KindStruct:    "STRUCT",
	KindUnion:     "UNION",
	KindEnum:      "ENUM",
	KindFwd:       "FWD",
	KindTypedef:   "TYPEDEF",
	KindVolatile:  "VOLATILE",
	KindConst:     "CONST",
	KindRestrict:  "RESTRICT",
	KindFunc:      "FUNC",
	KindFuncProto: "FUNC_PROTO",
	KindVar:       "VAR",
	KindDatasec:   "DATASEC",
	KindFloat:     "FLOAT",
	KindDeclTag:   "DECL_TAG",
	KindTypeTag:   "TYPE_TAG",
	KindEnum64:    "ENUM64",
}

// String returns the name bpftool prints for the kind ("STRUCT", "FUNC_PROTO").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("KIND(%d)", uint8(k))
}

// Valid reports whether k is a kind of today's uapi (1..19).
func (k Kind) Valid() bool { return k >= KindInt && k <= MaxKind }

// HasSize reports whether btf_type.size_or_type is a byte size for this kind.
func (k Kind) HasSize() bool {
	switch k {
	case KindInt, KindEnum, KindStruct, KindUnion, KindDatasec, KindFloat, KindEnum64:
		return true
	}
	return false
}

// HasType reports whether btf_type.size_or_type is a type id for this kind.
func (k Kind) HasType() bool {
	switch k {
	case KindPtr, KindTypedef, KindVolatile, KindConst, KindRestrict,
		KindFunc, KindFuncProto, KindVar, KindDeclTag, KindTypeTag:
		return true
	}
	return false
}

// IsModifier reports whether the kind is a reference that adds no layout of
// its own: the chain PTR-free loop rule of the kernel verifier walks these.
func (k Kind) IsModifier() bool {
	switch k {
	case KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag:
		return true
	}
	return false
}

// ExtraWords is how many 32-bit words of kind-specific data follow the
// 12-byte btf_type header of a type of this kind with the given vlen.
// It returns -1 for an unknown kind.
func (k Kind) ExtraWords(vlen uint32) int {
	n := int(vlen)
	switch k {
	case KindInt, KindVar, KindDeclTag:
		return 1
	case KindPtr, KindFwd, KindTypedef, KindVolatile, KindConst, KindRestrict,
		KindFunc, KindFloat, KindTypeTag:
		return 0
	case KindArray:
		return 3
	case KindStruct, KindUnion, KindDatasec, KindEnum64:
		return 3 * n
	case KindEnum, KindFuncProto:
		return 2 * n
	}
	return -1
}

// wordShapes[k] is ExtraWords for kind k as fixed | perVlen<<4: a
// table, where ExtraWords is a switch, for a sparse Spec's walks from an
// anchor (Type.words). Unknown kinds give 0 (no Spec holds one).
var wordShapes = func() (w [kindMask + 1]uint8) {
	for k := range w {
		switch n0, n1 := Kind(k).ExtraWords(0), Kind(k).ExtraWords(1); {
		case n0 < 0:
		case n0 > 0:
			w[k] = uint8(n0)
		default:
			w[k] = uint8(n1) << 4
		}
	}
	return w
}()

// WordCount is t.Kind().ExtraWords(t.Vlen()) for a type whose kind is
// known (0 for an unknown kind), without a switch: the words of a
// Spec's types are in type order, and a pass over them can find each
// type's by counting.
func (t Type) WordCount() uint32 {
	sh := uint32(wordShapes[t.Info>>kindShift&kindMask])
	return sh&15 + sh>>4*(t.Info&vlenMask)
}

// Func linkage (btf_type.info vlen of a FUNC) and VAR linkage values.
const (
	LinkageStatic = 0
	LinkageGlobal = 1
	LinkageExtern = 2
)

// INT encoding bits (BTF_INT_ENCODING).
const (
	IntSigned = 1 << 0
	IntChar   = 1 << 1
	IntBool   = 1 << 2
)
