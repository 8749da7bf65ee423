package encode

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// Struct members are 40% of a vmlinux's DIEs, enumerators, pointers and
// parameters most of the rest, and every unit repeats the types of the
// headers. Found through DIE.Attr, each attribute read is a lookup in the
// abbreviation table; a dieShape finds the positions of the attributes
// the converter reads of every such DIE (name, type, a member's location,
// an enumerator's value) once per abbreviation and unit, and the values
// are read directly.

// dieShape is where the DIEs of one abbreviation keep their name, type
// and value: 4 bytes. Each position is the value's index plus one, 0 if
// the attribute is absent, or shapeAttr if its form is one only DIE.Attr
// reads (name, typeOf and udata then do).
type dieShape struct {
	kind uint8 // shapeUnknown, ...
	name uint8 // DW_AT_name as DW_FORM_strp
	typ  uint8 // DW_AT_type as a unit-relative reference
	val  uint8 // constant DW_AT_data_member_location (members), DW_AT_const_value (enumerators)
}

const (
	shapeUnknown    = iota // not yet looked at
	shapeOther             // another tag
	shapeMember            // DW_TAG_member, not a bitfield
	shapeBitfield          // DW_TAG_member with DW_AT_bit_size or DW_AT_data_bit_offset: memberOffset
	shapeEnumerator        // DW_TAG_enumerator
	shapeParam             // DW_TAG_formal_parameter

	shapeAttr = 0xff // the attribute's form is read through DIE.Attr
)

// shape returns the shape of DIE m, whose abbreviation is abbrev.
func (c *cuConv) shape(abbrev uint32, m int32) dieShape {
	if sh := c.shapes[abbrev]; sh.kind != shapeUnknown {
		return sh
	}
	return c.newShape(abbrev, m)
}

// newShape is shape's first look at abbreviation abbrev (apart, so that
// shape is inlined).
func (c *cuConv) newShape(abbrev uint32, m int32) dieShape {
	sh := shapeOf(c.t.die(m))
	c.shapes[abbrev] = sh
	return sh
}

// shapeOf finds the shape of d's abbreviation. An attribute that occurs
// twice counts at its first position, as DIE.Attr finds it.
func shapeOf(d dwarfread.DIE) dieShape {
	sh := dieShape{kind: shapeOther}
	valAt := dwarf.Attr(0)
	switch d.Tag() {
	case dwarf.TagMember:
		sh.kind, valAt = shapeMember, dwarf.AttrDataMemberLoc
	case dwarf.TagEnumerator:
		sh.kind, valAt = shapeEnumerator, dwarf.AttrConstValue
	case dwarf.TagFormalParameter:
		sh.kind = shapeParam
	}
	set := func(pos *uint8, k int, fast bool) {
		switch {
		case *pos != 0: // a second copy: DIE.Attr finds the first
		case fast && k+1 < shapeAttr:
			*pos = uint8(k + 1)
		default:
			*pos = shapeAttr
		}
	}
	for k := range d.NumAttrs() {
		at := d.AttrAt(k)
		switch at.At {
		case dwarf.AttrName:
			set(&sh.name, k, at.Form == formStrp)
		case dwarf.AttrType:
			switch at.Form {
			case formRef1, formRef2, formRef4, formRef8, formRefUdata:
				set(&sh.typ, k, true)
			default:
				set(&sh.typ, k, false)
			}
		case dwarf.AttrBitSize, dwarf.AttrDataBitOffset:
			if sh.kind == shapeMember {
				sh.kind = shapeBitfield
			}
		default:
			if at.At == valAt && valAt != 0 {
				c := at.Class()
				set(&sh.val, k, c == dwarf.ClassConstant || c == dwarf.ClassFlag && sh.kind == shapeEnumerator)
			}
		}
	}
	return sh
}

// shapeName is name(m) for a DIE of shape sh, v its values.
func (c *cuConv) shapeName(m int32, sh dieShape, v []uint64) btf.StrOff {
	switch sh.name {
	case 0:
		return 0
	case shapeAttr:
		return c.nameAttr(m)
	}
	if off := v[sh.name-1]; c.names != nil && off < 1<<32-1 {
		return c.cachedName(m, uint32(off)+1)
	}
	return c.nameAttr(m)
}

// shapeType is typeOf(m) for a DIE of shape sh, v its values.
func (c *cuConv) shapeType(m int32, sh dieShape, v []uint64) btf.TypeID {
	switch sh.typ {
	case 0:
		return 0
	case shapeAttr:
		return c.typeOfAttr(m)
	}
	off := dwarfread.DIEOff(v[sh.typ-1])
	if c.keyed != nil {
		if j := c.keyed.typeDIE(off); j >= 0 {
			return c.idOf[j]
		}
	}
	if j, ok := c.t.cu.Lookup(off); ok {
		return c.idOf[j]
	}
	return 0
}

// formStrp is DW_FORM_strp: the value is the .debug_str offset.
const formStrp = 0x0e

// emitMembers appends the member words of struct or union node i to
// words: name, type, bitfield<<24 | bit offset, as memberOffset, name and
// typeOf give them. kflag is set if a member is a bitfield.
func (c *cuConv) emitMembers(i int32, words []uint32) (_ []uint32, vlen uint32, kflag bool) {
	t := c.t
	tags, vals := t.cu.Tags(), t.cu.Vals()
	for id := tags[i].FirstChild; id != dwarfread.NoTag; id = tags[id].NextSibling {
		m := int32(id)
		rec := &tags[id]
		sh := c.shape(rec.Abbrev, m)
		var bitOff, bitfield uint32
		switch sh.kind {
		case shapeMember:
			switch sh.val {
			case 0:
			case shapeAttr:
				bitOff, _ = c.memberOffset(m)
			default:
				bitOff = uint32(vals[rec.Vals+uint32(sh.val)-1] * 8)
			}
		case shapeBitfield:
			bitOff, bitfield = c.memberOffset(m)
			if bitfield != 0 {
				kflag = true
			}
		default:
			continue
		}
		v := vals[rec.Vals:]
		words = append(words, uint32(c.shapeName(m, sh, v)), uint32(c.shapeType(m, sh, v)), bitfield<<24|bitOff)
		vlen++
	}
	return words, vlen, kflag
}
