package encode

import "debug/dwarf"

// uncertainParamLoc is pahole's ftype__has_uncertain_arg_loc: a function
// with at least as many parameters as registers, one of whose stack-passed
// parameters (index >= nRegs) is a named struct, by value, that looks
// packed; where such a struct lands on the stack is not certain.
// typeNodes are the parameters' type DIEs (-1: none). On a machine pahole
// knows no parameter registers for (nRegs 0: i386 among others) every
// parameter counts as stack-passed.
func uncertainParamLoc(c *cuConv, typeNodes []int32, nRegs int) bool {
	if len(typeNodes) < nRegs {
		return false
	}
	t := c.t
	for _, j := range typeNodes[nRegs:] {
		if j < 0 {
			continue
		}
		switch t.tag(j) {
		case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagInterfaceType:
		default:
			continue
		}
		if t.str(j, dwarf.AttrName) == "" {
			continue
		}
		if c.inferPacked(j) {
			return true
		}
	}
	return false
}

// inferPacked approximates pahole's class__infer_packed_attributes: a
// struct without holes or tail padding is packed if a member sits at an
// offset its natural alignment does not allow, if it has alignment 1 with
// wider members, or if its size is not a multiple of its natural
// alignment. (pahole also marks structs embedded at unnatural offsets of
// other structs as it goes; that order-dependent side effect is not
// reproduced.)
func (c *cuConv) inferPacked(s int32) bool {
	t := c.t
	size := t.num(s, dwarf.AttrByteSize)
	var lastEnd uint64 // bits
	holes := false
	type mem struct {
		byteOff uint64
		typ     int32
	}
	var mems []mem
	t.children(s, func(m int32) {
		if tg := t.tag(m); tg != dwarf.TagMember && tg != dwarf.TagInheritance {
			return
		}
		bitOff, bitfield := c.memberOffset(m)
		start := uint64(bitOff)
		var end uint64
		if bitfield != 0 {
			end = start + uint64(bitfield)
		} else {
			end = start + 8*c.size(t.ref(m, dwarf.AttrType), 0)
			if start/8 > lastEnd/8 {
				holes = true
			}
		}
		if end > lastEnd {
			lastEnd = end
		}
		mems = append(mems, mem{start / 8, t.ref(m, dwarf.AttrType)})
	})
	if holes || (lastEnd+7)/8 < size {
		return false
	}
	maxAlign := uint64(1)
	for _, m := range mems {
		a := c.naturalAlign(c.stripTypedefs(m.typ), 0)
		if a == 1 {
			continue
		}
		maxAlign = max(maxAlign, a)
		if m.byteOff%a != 0 {
			return true
		}
	}
	align, _ := t.udata(s, dwarf.AttrAlignment)
	return (maxAlign != 1 && align == 1) || size%maxAlign != 0
}

func (c *cuConv) stripTypedefs(j int32) int32 {
	t := c.t
	for n := 0; j >= 0 && n < 64; n++ {
		switch t.tag(j) {
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, tagAtomicType:
			j = t.ref(j, dwarf.AttrType)
		default:
			return j
		}
	}
	return j
}

// naturalAlign is pahole's tag__natural_alignment.
func (c *cuConv) naturalAlign(j int32, depth int) uint64 {
	t := c.t
	a := uint64(1)
	if j < 0 || depth > 32 {
		return 1
	}
	switch t.tag(j) {
	case dwarf.TagPointerType, dwarf.TagReferenceType, dwarf.TagRvalueReferenceType:
		a = uint64(c.addr)
	case dwarf.TagBaseType:
		a = t.num(j, dwarf.AttrByteSize)
	case dwarf.TagEnumerationType:
		a = t.num(j, dwarf.AttrByteSize)
		if a == 0 {
			a = 4
		}
	case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType:
		a = 0
		t.children(j, func(m int32) {
			if tg := t.tag(m); tg != dwarf.TagMember && tg != dwarf.TagInheritance {
				return
			}
			a = max(a, c.naturalAlign(c.stripTypedefs(t.ref(m, dwarf.AttrType)), depth+1))
		})
	case dwarf.TagArrayType:
		a = c.naturalAlign(c.stripTypedefs(t.ref(j, dwarf.AttrType)), depth+1)
	}
	if a == 0 {
		return 1
	}
	return a
}
