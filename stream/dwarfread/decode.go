package dwarfread

import (
	"encoding/binary"
	"slices"

	"github.com/btfstream/btfstream/arena"
)

// decodeDIEs decodes the DIEs of a unit from a.Bytes[start:] into a.Tags
// and a.Vals. It performs no allocation besides growing the arena's slices,
// and stops after the first DIE when one is true (the language peek).
func (cu *CU) decodeDIEs(start uint32, one bool) error {
	a := cu.arena
	t := cu.table
	base := uint32(cu.hdr.off)
	b := makeBuf(cu.secName, cu.hdr.off, cu.order, a.Bytes)
	b.pos = start
	tags := a.Tags
	vals := a.Vals
	parent, last := arena.NoTag, arena.NoTag
	if n := len(tags); n > 0 {
		// Resume after the peeked unit DIE.
		last = 0
		if t.decls[tags[0].Abbrev].children != 0 {
			parent, last = 0, arena.NoTag
		}
	}
	end := uint32(len(b.data))
	// Zero-size forms (flag_present, implicit_const) let a 1-byte DIE
	// carry many values; bound them by the unit size so corrupt input
	// cannot make the arena explode.
	valLimit := 32*len(b.data) + 1<<16
	le := cu.order == binary.LittleEndian
	// Lookup's index is filled as the tags are made (offBucket), not in a
	// pass over them afterwards.
	var byOff []offBucket
	bk := 0
	if !one {
		byOff = cu.offIndex()
		for i := range tags {
			rel := uint32(uint64(tags[i].Off) - cu.hdr.off)
			for ; bk < len(byOff) && uint32(bk)<<byOffShift <= rel; bk++ {
				byOff[bk] = offBucket{first: uint32(i)}
			}
			if j := rel >> byOffShift; int(j) < len(byOff) {
				byOff[j].mark(rel)
			}
		}
	}
	for b.pos < end {
		off := b.pos
		code := uint64(b.data[b.pos])
		if code < 0x80 {
			b.pos++
		} else {
			code = b.uleb()
		}
		if code == 0 {
			if parent != arena.NoTag {
				last = parent
				parent = tags[parent].Parent
			}
			continue
		}
		d, idx, ok := t.lookup(code)
		if !ok {
			if b.err != nil {
				break
			}
			a.Tags, a.Vals = tags, vals
			return formatErr(cu.secName, uint64(base+off), "unknown abbreviation code %d", code)
		}
		id := arena.TagID(len(tags))
		if byOff != nil {
			for ; bk < len(byOff) && uint32(bk)<<byOffShift <= off; bk++ {
				byOff[bk] = offBucket{first: uint32(id)}
			}
			if j := off >> byOffShift; int(j) < len(byOff) {
				byOff[j].mark(off)
			}
		}
		tags = append(tags, arena.Tag{
			Off:         arena.DIEOff(base + off),
			Parent:      parent,
			FirstChild:  arena.NoTag,
			NextSibling: arena.NoTag,
			Vals:        uint32(len(vals)),
			Abbrev:      idx,
		})
		if last != arena.NoTag {
			tags[last].NextSibling = id
		} else if parent != arena.NoTag {
			tags[parent].FirstChild = id
		}
		n := int(d.n)
		if len(vals)+n > valLimit {
			a.Tags, a.Vals = tags, vals
			return formatErr(cu.secName, uint64(base+off), "too many attribute values for a unit of %d bytes", len(b.data))
		}
		vals = slices.Grow(vals, n)
		v := vals[len(vals) : len(vals)+n]
		vals = vals[:len(vals)+n]
		specs := t.specs[d.first : d.first+d.n]
		if d.fixed != ^uint32(0) && b.remaining() >= d.fixed {
			if le && d.loads != 0 && b.remaining() >= d.fixed+8 {
				decodeFixedLE(&b, specs, v, uint64(base))
			} else {
				decodeFixed(&b, specs, v, base)
			}
		} else {
			for i := range specs {
				v[i] = cu.decodeAttr(&b, &specs[i], specs[i].op, uint32(len(vals)-n+i), base)
			}
		}
		if d.children != 0 {
			parent, last = id, arena.NoTag
		} else {
			last = id
		}
		if one {
			break
		}
	}
	a.Tags, a.Vals = tags, vals
	if b.err != nil {
		return b.err
	}
	if one {
		cu.next = b.pos
		return nil
	}
	for ; bk < len(byOff); bk++ {
		byOff[bk] = offBucket{first: uint32(len(tags))}
	}
	cu.byOff, cu.byOffTags = byOff, len(tags)
	return nil
}

// sizeMask keeps the low size bytes of a little-endian 8-byte load.
var sizeMask = [16]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xff_ffffffff, 0xffff_ffffffff, 0xffffff_ffffffff, ^uint64(0)}

// decodeFixedLE is decodeFixed for a little-endian unit, a DIE whose
// abbreviation has loads set and 8 bytes of the unit to spare after it:
// each value is one 8-byte load masked to its size, plus the unit's base
// for a reference, plus the abbreviation's constant (implicit_const,
// flag_present). No switch per attribute: about a third of
// decodeFixed's instructions.
func decodeFixedLE(b *buf, specs []attrSpec, v []uint64, base uint64) {
	d := b.data[b.pos:]
	v = v[:len(specs)]
	p := uint32(0)
	for i := range specs {
		sp := &specs[i]
		x := binary.LittleEndian.Uint64(d[p:]) & sizeMask[sp.size&15]
		v[i] = x + base*uint64(sp.ref) + uint64(sp.implicit)
		p += uint32(sp.size)
	}
	b.pos += p
}

// decodeFixed decodes a run of fixed-size attributes whose total size was
// checked against the buffer once.
func decodeFixed(b *buf, specs []attrSpec, v []uint64, base uint32) {
	d := b.data[b.pos:]
	o := b.order
	p := uint32(0)
	le := o == binary.LittleEndian
	for i := range specs {
		sp := &specs[i]
		var x uint64
		switch sp.op {
		case opU1:
			x = uint64(d[p])
			p++
		case opU2:
			if le {
				x = uint64(binary.LittleEndian.Uint16(d[p:]))
			} else {
				x = uint64(binary.BigEndian.Uint16(d[p:]))
			}
			p += 2
		case opU4:
			if le {
				x = uint64(binary.LittleEndian.Uint32(d[p:]))
			} else {
				x = uint64(binary.BigEndian.Uint32(d[p:]))
			}
			p += 4
		case opU8:
			if le {
				x = binary.LittleEndian.Uint64(d[p:])
			} else {
				x = binary.BigEndian.Uint64(d[p:])
			}
			p += 8
		case opRef1:
			x = uint64(d[p]) + uint64(base)
			p++
		case opRef2:
			x = uint64(o.Uint16(d[p:])) + uint64(base)
			p += 2
		case opRef4:
			if le {
				x = uint64(binary.LittleEndian.Uint32(d[p:])) + uint64(base)
			} else {
				x = uint64(binary.BigEndian.Uint32(d[p:])) + uint64(base)
			}
			p += 4
		case opRef8:
			x = o.Uint64(d[p:]) + uint64(base)
			p += 8
		case opU3:
			if le {
				x = uint64(d[p]) | uint64(d[p+1])<<8 | uint64(d[p+2])<<16
			} else {
				x = uint64(d[p+2]) | uint64(d[p+1])<<8 | uint64(d[p])<<16
			}
			p += 3
		case opData16:
			x = uint64(b.pos + p)
			p += 16
		case opPresent:
			x = 1
		case opImplicit:
			x = uint64(sp.implicit)
		}
		v[i] = x
	}
	b.pos += p
}

// decodeAttr decodes one attribute value of any form.
func (cu *CU) decodeAttr(b *buf, sp *attrSpec, op uint8, vi uint32, base uint32) uint64 {
	switch op {
	case opU1:
		return uint64(b.u8())
	case opU2:
		return uint64(b.u16())
	case opU3:
		return uint64(b.u24())
	case opU4:
		return uint64(b.u32())
	case opU8:
		return b.u64()
	case opUleb:
		return b.uleb()
	case opSleb:
		return uint64(b.sleb())
	case opRef1:
		return uint64(b.u8()) + uint64(base)
	case opRef2:
		return uint64(b.u16()) + uint64(base)
	case opRef4:
		return uint64(b.u32()) + uint64(base)
	case opRef8:
		return b.u64() + uint64(base)
	case opRefUleb:
		return b.uleb() + uint64(base)
	case opString:
		p := b.pos
		b.cstring()
		return uint64(p)
	case opBlock1:
		return blockVal(b, uint64(b.u8()))
	case opBlock2:
		return blockVal(b, uint64(b.u16()))
	case opBlock4:
		return blockVal(b, uint64(b.u32()))
	case opBlockUleb:
		return blockVal(b, b.uleb())
	case opData16:
		p := b.pos
		b.skip(16)
		return uint64(p)
	case opPresent:
		return 1
	case opImplicit:
		return uint64(sp.implicit)
	case opIndirect:
		at := b.off()
		form := b.uleb()
		if b.err != nil {
			return 0
		}
		iop, _ := formOp(uint16(form), cu.key())
		if form > 0xffff || iop == opInvalid || iop == opIndirect || iop == opImplicit {
			b.failErr(unsupportedErr(cu.secName, at, "unknown form %#x", form))
			return 0
		}
		a := cu.arena
		if a.Extra == nil {
			a.Extra = make(map[uint32]uint32)
		}
		a.Extra[vi] = uint32(form)
		return cu.decodeAttr(b, sp, iop, vi, base)
	}
	b.failErr(unsupportedErr(cu.secName, b.off(), "unknown form %#x", sp.form))
	return 0
}

func blockVal(b *buf, n uint64) uint64 {
	p := b.pos
	b.skip(n)
	return uint64(p)<<32 | n
}
