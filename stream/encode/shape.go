package encode

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// Struct members are 40% of a vmlinux's DIEs, and every unit repeats the
// structs of the headers: emitStruct reads each member's name, type and
// location. Found through DIE.Attr, that is five lookups in the
// abbreviation table per member; memberShape finds the positions once per
// abbreviation and unit, and emitStruct reads the values directly.

// memberShape is where the DIEs of one abbreviation keep the attributes
// of a member: 4 bytes.
type memberShape struct {
	kind uint8 // shapeUnknown, ...
	name uint8 // position+1 of a DW_FORM_strp DW_AT_name; 0: absent
	typ  uint8 // position+1 of a unit-relative DW_AT_type; 0: absent
	loc  uint8 // position+1 of a constant DW_AT_data_member_location; 0: absent
}

const (
	shapeUnknown   = iota // not yet looked at
	shapeNotMember        // not a DW_TAG_member: emitStruct skips it
	shapeFast             // a member whose attributes name, typ and loc say all
	shapeSlow             // a member read attribute by attribute (bitfields, other forms)
)

// memberShape returns the shape of abbreviation abbrev, DIE m being one of
// its DIEs.
func (c *cuConv) memberShape(abbrev uint32, m int32) memberShape {
	sh := &c.shapes[abbrev]
	if sh.kind == shapeUnknown {
		*sh = shapeOf(c.t.die(m))
	}
	return *sh
}

// shapeOf finds the member shape of d's abbreviation. An attribute that
// occurs twice counts at its first position, as DIE.Attr finds it.
func shapeOf(d dwarfread.DIE) memberShape {
	if d.Tag() != dwarf.TagMember {
		return memberShape{kind: shapeNotMember}
	}
	sh := memberShape{kind: shapeFast}
	var seen [3]bool
	for k := range d.NumAttrs() {
		at := d.AttrAt(k)
		var fast bool
		var pos *uint8
		switch at.At {
		case dwarf.AttrName:
			pos, fast = &sh.name, at.Form == formStrp
			if seen[0] {
				continue
			}
			seen[0] = true
		case dwarf.AttrType:
			pos = &sh.typ
			switch at.Form {
			case formRef1, formRef2, formRef4, formRef8, formRefUdata:
				fast = true
			}
			if seen[1] {
				continue
			}
			seen[1] = true
		case dwarf.AttrDataMemberLoc:
			pos, fast = &sh.loc, at.Class() == dwarf.ClassConstant
			if seen[2] {
				continue
			}
			seen[2] = true
		case dwarf.AttrBitSize, dwarf.AttrDataBitOffset:
			return memberShape{kind: shapeSlow}
		default:
			continue
		}
		if !fast || k+1 > 0xff {
			return memberShape{kind: shapeSlow}
		}
		*pos = uint8(k + 1)
	}
	return sh
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
		sh := c.memberShape(rec.Abbrev, m)
		switch sh.kind {
		case shapeNotMember:
			continue
		case shapeFast:
			v := vals[rec.Vals:]
			var name btf.StrOff
			if sh.name != 0 {
				if off := v[sh.name-1]; c.names != nil && off < 1<<32-1 {
					name = c.cachedName(m, uint32(off)+1)
				} else {
					name = c.name(m)
				}
			}
			var typ btf.TypeID
			if sh.typ != 0 {
				if j, ok := t.cu.Lookup(dwarfread.DIEOff(v[sh.typ-1])); ok {
					typ = c.idOf[j]
				}
			}
			var bitOff uint32
			if sh.loc != 0 {
				bitOff = uint32(v[sh.loc-1] * 8)
			}
			words = append(words, uint32(name), uint32(typ), bitOff)
		default:
			bitOff, bitfield := c.memberOffset(m)
			if bitfield != 0 {
				kflag = true
			}
			words = append(words, uint32(c.name(m)), uint32(c.typeOf(m)), bitfield<<24|bitOff)
		}
		vlen++
	}
	return words, vlen, kflag
}
