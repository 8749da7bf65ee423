package encode

import "debug/dwarf"

// Sizes and bit offsets as pahole computes them: a member's offset and
// bitfield size (memberOffset), DW_AT_data_member_location's forms, a
// bitfield's underlying size and a type's size (tag__size).

// memberOffset computes a member's BTF bit offset and bitfield size as
// pahole's class_member__new + class_member__cache_byte_size do.
func (c *cuConv) memberOffset(m int32) (bitOff, bitfield uint32) {
	t := c.t
	bitfield = uint32(t.num(m, dwarf.AttrBitSize))
	if at, ok := t.attr(m, dwarf.AttrDataBitOffset); ok {
		v, _ := udataOf(at)
		return uint32(v), bitfield
	}
	byteOff := int64(t.memberLocation(m))
	bitOffset := byteOff * 8
	if bitfield == 0 {
		return uint32(bitOffset), 0
	}
	byteSize := int64(t.num(m, dwarf.AttrByteSize))
	if byteSize == 0 {
		byteSize = c.bitfieldBaseSize(m)
	}
	if byteSize == 0 {
		return uint32(bitOffset), bitfield
	}
	bfOff := int64(t.num(m, dwarf.AttrBitOffset))
	if c.le {
		bfOff = byteSize*8 - bfOff - int64(bitfield)
	}
	return uint32(byteOff*8 + bfOff), bitfield
}

// memberLocation decodes DW_AT_data_member_location: a constant, or a
// DW_OP_plus_uconst / DW_OP_constu expression.
func (t *encTree) memberLocation(m int32) uint64 {
	a, ok := t.attr(m, dwarf.AttrDataMemberLoc)
	if !ok {
		return 0
	}
	switch a.Class() {
	case dwarf.ClassConstant:
		return a.Val
	case dwarf.ClassExprLoc, dwarf.ClassBlock:
		if v := a.Block(); len(v) > 0 && (v[0] == 0x23 || v[0] == 0x10) {
			x, _ := uleb(v[1:])
			return x
		}
	}
	return 0
}

func uleb(b []byte) (uint64, int) {
	var v uint64
	var s uint
	for i, c := range b {
		v |= uint64(c&0x7f) << s
		s += 7
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return v, len(b)
}

// bitfieldBaseSize is the byte size of a bitfield's underlying type with
// typedefs and qualifiers stripped.
func (c *cuConv) bitfieldBaseSize(m int32) int64 {
	t := c.t
	j := t.ref(m, dwarf.AttrType)
	for n := 0; j >= 0 && n < 64; n++ {
		switch t.tag(j) {
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, tagAtomicType:
			j = t.ref(j, dwarf.AttrType)
			continue
		}
		break
	}
	if j < 0 {
		return 0
	}
	if sz := c.size(j, 0); sz > 0 {
		return int64(sz)
	}
	if t.tag(j) == dwarf.TagEnumerationType {
		return 4
	}
	return 0
}

// size is pahole's tag__size for a type node (0 when unknown).
func (c *cuConv) size(j int32, depth int) uint64 {
	t := c.t
	if j < 0 || depth > 64 {
		return 0
	}
	switch t.tag(j) {
	case dwarf.TagStringType:
		n := t.num(j, dwarf.AttrByteSize)
		if n == 0 {
			n = 1
		}
		return n
	case dwarf.TagPointerType, dwarf.TagReferenceType:
		return uint64(c.addr)
	case dwarf.TagBaseType:
		return t.num(j, dwarf.AttrByteSize)
	case dwarf.TagEnumerationType:
		n := t.num(j, dwarf.AttrByteSize)
		if n == 0 {
			n = 4
		}
		return n
	case dwarf.TagSubroutineType:
		if n := t.num(j, dwarf.AttrByteSize); n != 0 {
			return n
		}
		return uint64(c.addr)
	}
	var sz uint64
	if next := t.ref(j, dwarf.AttrType); !t.has(j, dwarf.AttrType) {
		sz = t.num(j, dwarf.AttrByteSize)
		if sz == 1 && !t.hasChildren(j) {
			sz = 0
		}
	} else {
		if next < 0 {
			return 0
		}
		sz = c.size(next, depth+1)
	}
	if t.tag(j) == dwarf.TagArrayType {
		return sz * uint64(c.arrayElems(j))
	}
	return sz
}
