package btf

// TypeID identifies a type: 0 is void, base BTF starts at 1, split BTF
// continues after its base's last id.
type TypeID uint32

// StrOff is a byte offset into the string section (split BTF: into the
// concatenation of base and split string sections).
type StrOff uint32

// Info bit layout of btf_type.info in today's uapi: vlen bits 0-23, kind
// bits 24-30, kind_flag bit 31. Older kernels used 16 bits of vlen and 5 of
// kind; the wider fields are a compatible extension.
const (
	vlenMask  = 0x00ffffff
	kindShift = 24
	kindMask  = 0x7f
	flagBit   = 1 << 31

	// MaxVlen is the largest vlen the info word can carry.
	MaxVlen = vlenMask
)

// Type is the fixed 12-byte header of every BTF type (struct btf_type), in
// host order. Its kind-specific trailing words live in the Spec's extra
// array. Size: 12 bytes, no pointers.
type Type struct {
	NameOff StrOff
	Info    uint32
	// SizeOrType is a byte size or a TypeID depending on Kind().
	SizeOrType uint32
}

// MakeInfo builds a btf_type.info word.
func MakeInfo(k Kind, vlen uint32, kindFlag bool) uint32 {
	info := uint32(k&kindMask)<<kindShift | vlen&vlenMask
	if kindFlag {
		info |= flagBit
	}
	return info
}

// Kind returns the type's kind.
func (t Type) Kind() Kind { return Kind(t.Info >> kindShift & kindMask) }

// Vlen returns the number of members, values, parameters or entries.
func (t Type) Vlen() uint32 { return t.Info & vlenMask }

// KindFlag returns bit 31 of info: bitfield offsets in STRUCT/UNION, union in
// FWD, signedness in ENUM/ENUM64, the attribute flag of DECL_TAG/TYPE_TAG.
func (t Type) KindFlag() bool { return t.Info&flagBit != 0 }

// Size returns SizeOrType as a byte size.
func (t Type) Size() uint32 { return t.SizeOrType }

// Ref returns SizeOrType as a type id.
func (t Type) Ref() TypeID { return TypeID(t.SizeOrType) }

// Member is one STRUCT/UNION member (struct btf_member).
type Member struct {
	NameOff StrOff
	Type    TypeID
	// Offset is the raw word: a bit offset, or with the parent's kind_flag
	// bitfield size<<24 | bit offset.
	Offset uint32
}

// BitOffset returns the member's bit offset given the parent's kind_flag.
func (m Member) BitOffset(kindFlag bool) uint32 {
	if kindFlag {
		return m.Offset & 0xffffff
	}
	return m.Offset
}

// BitfieldSize returns the bitfield size (0 if not a bitfield) given the
// parent's kind_flag.
func (m Member) BitfieldSize(kindFlag bool) uint32 {
	if kindFlag {
		return m.Offset >> 24
	}
	return 0
}

// EnumValue is one ENUM or ENUM64 value; Value holds the 32 bits of an ENUM
// value sign- or zero-extended by the caller as the kind_flag says.
type EnumValue struct {
	NameOff StrOff
	Value   uint64
}

// Param is one FUNC_PROTO parameter (struct btf_param); a final parameter
// with NameOff 0 and Type 0 marks varargs.
type Param struct {
	NameOff StrOff
	Type    TypeID
}

// VarSecinfo is one DATASEC entry (struct btf_var_secinfo).
type VarSecinfo struct {
	Type   TypeID
	Offset uint32
	Size   uint32
}

// Array is the payload of an ARRAY (struct btf_array).
type Array struct {
	Type      TypeID
	IndexType TypeID
	Nelems    uint32
}

// IntInfo decodes the INT payload word: encoding (bits 24-27), bit offset
// (bits 16-23) and bit size (bits 0-7).
func IntInfo(word uint32) (encoding, offset, bits uint32) {
	return word >> 24 & 0x0f, word >> 16 & 0xff, word & 0xff
}

// MakeIntInfo encodes an INT payload word.
func MakeIntInfo(encoding, offset, bits uint32) uint32 {
	return (encoding&0x0f)<<24 | (offset&0xff)<<16 | bits&0xff
}
