package dwarfread

import (
	"encoding/binary"
	"slices"

	"github.com/btfstream/btfstream/arena"
)

// decodeDIEs decodes the DIEs of a unit from a.Bytes[start:] into a.Tags
// and a.Vals. It performs no allocation besides growing the arena's slices,
// and stops after the first DIE when one is true (the language peek).
//
// The loop keeps its position in a local and leaves everything but the
// common DIE (a one-byte code, a dense table, fixed-size values in a
// little-endian unit) to functions it calls: with a buf and the rare paths
// inline, it kept too few registers and spent about half of its 240
// instructions a DIE on the 6.12 vmlinux reloading its own variables.
func (cu *CU) decodeDIEs(start uint32, one bool) error {
	a := cu.arena
	t := cu.table
	base := uint32(cu.hdr.off)
	data := a.Bytes
	pos := start
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
	end := uint32(len(data))
	// Zero-size forms (flag_present, implicit_const) let a 1-byte DIE
	// carry many values; bound them by the unit size so corrupt input
	// cannot make the arena explode.
	valLimit := 32*len(data) + 1<<16
	le := cu.order == binary.LittleEndian
	decls := t.decls
	if !t.dense {
		decls = nil // every code goes through t.lookup
	}
	// Lookup's index is filled as the tags are made (offBucket), not in a
	// pass over them afterwards.
	var byOff []offBucket
	bk := 0
	if !one {
		byOff = cu.offIndex()
		for i := range tags {
			rel := uint32(uint64(tags[i].Off) - cu.hdr.off)
			for ; bk < len(byOff) && uint32(bk)<<byOffShift <= rel; bk++ {
				byOff[bk] = offBucket{uint32(i)}
			}
			if j := rel >> byOffShift; int(j) < len(byOff) {
				markOff(&byOff[j], rel)
			}
		}
	}
	var err error
	for pos < end {
		off := pos
		code := uint64(data[pos])
		pos++
		if code >= 0x80 {
			if code, pos, err = cu.ulebAt(data, off); err != nil {
				break
			}
		}
		if code == 0 {
			if parent != arena.NoTag {
				last = parent
				parent = tags[parent].Parent
			}
			continue
		}
		var d *abbrevDecl
		var idx uint32
		if code-1 < uint64(len(decls)) {
			idx = uint32(code - 1)
			d = &decls[idx]
		} else {
			var ok bool
			if d, idx, ok = t.lookup(code); !ok {
				err = formatErr(cu.secName, uint64(base+off), "unknown abbreviation code %d", code)
				break
			}
		}
		id := arena.TagID(len(tags))
		if byOff != nil {
			for ; bk < len(byOff) && uint32(bk)<<byOffShift <= off; bk++ {
				byOff[bk] = offBucket{uint32(id)}
			}
			if j := off >> byOffShift; int(j) < len(byOff) {
				markOff(&byOff[j], off)
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
			err = formatErr(cu.secName, uint64(base+off), "too many attribute values for a unit of %d bytes", len(data))
			break
		}
		if cap(vals)-len(vals) < n {
			vals = slices.Grow(vals, n)
		}
		vi := len(vals)
		vals = vals[:vi+n]
		specs := t.specs[d.first : d.first+d.n]
		if le && d.loads != 0 && d.fixed != ^uint32(0) && end-pos >= 8 && d.fixed <= end-pos-8 {
			pos = decodeFixedLE(data, pos, specs, vals, vi, uint64(base))
		} else if pos, err = cu.decodeVals(data, pos, specs, vals[vi:], d.fixed, uint32(vi)); err != nil {
			break
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
	if err != nil {
		return err
	}
	if one {
		cu.next = pos
		return nil
	}
	for ; bk < len(byOff); bk++ {
		byOff[bk] = offBucket{uint32(len(tags))}
	}
	cu.byOff, cu.byOffTags = byOff, len(tags)
	return nil
}

// ulebAt reads the ULEB128 abbreviation code at data[pos:] (decodeDIEs
// reads one-byte codes itself).
func (cu *CU) ulebAt(data []byte, pos uint32) (uint64, uint32, error) {
	b := makeBuf(cu.secName, cu.hdr.off, cu.order, data)
	b.pos = pos
	code := b.uleb()
	return code, b.pos, b.err
}

// decodeVals decodes the values of a DIE at data[pos:] that decodeFixedLE
// does not take (a big-endian unit, variable-size forms, the unit's last 8
// bytes) into v, the values from index vi of the arena on, and returns the
// position after them. fixed is the abbreviation's fixed size (^0: not
// all fixed-size).
func (cu *CU) decodeVals(data []byte, pos uint32, specs []attrSpec, v []uint64, fixed, vi uint32) (uint32, error) {
	b := makeBuf(cu.secName, cu.hdr.off, cu.order, data)
	b.pos = pos
	base := uint32(cu.hdr.off)
	if fixed != ^uint32(0) && b.remaining() >= fixed {
		decodeFixed(&b, specs, v, base)
	} else {
		for i := range specs {
			v[i] = cu.decodeAttr(&b, &specs[i], specs[i].op, vi+uint32(i), base)
		}
	}
	return b.pos, b.err
}

// sizeMask keeps the low size bytes of a little-endian 8-byte load.
var sizeMask = [16]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xff_ffffffff, 0xffff_ffffffff, 0xffffff_ffffffff, ^uint64(0)}

// decodeFixedLE is decodeFixed for a little-endian unit, a DIE whose
// abbreviation has loads set and 8 bytes of the unit to spare after it:
// each value is one 8-byte load masked to its size, plus the unit's base
// for a reference, plus the abbreviation's constant (implicit_const,
// flag_present). No switch per attribute: about a third of
// decodeFixed's instructions. The DIE's values start at data[pos] and go
// to vals[vi:]; it returns the position after them.
//
// It is kept out of decodeDIEs: inlined there, the loop had no registers
// left and reloaded six of decodeDIEs' values from the stack at every
// value (38 instructions a value on the 6.12 vmlinux, against 13 here).
//
//go:noinline
func decodeFixedLE(data []byte, pos uint32, specs []attrSpec, vals []uint64, vi int, base uint64) uint32 {
	v := vals[vi : vi+len(specs)]
	q := int(pos)
	for i := range specs {
		sp := &specs[i]
		size := int(sp.size) & 15 // read once: the store to v could alias
		// An array view of the 8 bytes: one bounds check, one load.
		x := binary.LittleEndian.Uint64((*[8]byte)(data[q : q+8])[:])
		v[i] = x&sizeMask[size] + base*uint64(sp.ref) + uint64(sp.implicit)
		q += size
	}
	return uint32(q)
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
