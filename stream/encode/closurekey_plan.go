package encode

import (
	"debug/dwarf"
	"math/bits"

	"github.com/btfstream/btfstream/arena"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// The labels of ClosureKeys read through a plan per abbreviation (as
// shape.go does for the encoder): which values the label hashes and how,
// found once per abbreviation and unit from its first DIE, so that most
// attributes are read straight from the unit's values without an
// abbreviation lookup each. A label hashes the shape first (tag,
// attributes and how each is read: planHash, once per plan), then the
// values: for a plan whose values are all read directly (fast), one
// multiply per value, its references resolved in a second loop. The hash
// is label's, word for word; an attribute whose form the plan does not
// read directly goes through DIE.AttrAt as label does. Not for units with
// DW_FORM_indirect (the forms of one DIE are then not the abbreviation's).

// keyPlan is one abbreviation's plan: ops[first:end] in k.ops.
type keyPlan struct {
	state      uint8 // planUnknown, planReady
	isType     bool
	fast       bool // every op is opRef, opStrp, opFlag or opData, at value indices < 64
	tag        uint16
	declFlag   uint16 // 1 + the value index of DW_AT_declaration (structs, unions, enums); 0: none
	first, end uint32
	hash       uint64 // the shape's hash (planStart, planAdd, planEnd)
	vals, refs uint64 // fast: bit j, value j is hashed, or an edge
}

const (
	planUnknown = iota
	planReady
)

// keyOp is one attribute of a plan: its value's index, the attribute,
// and how the label reads it.
type keyOp struct {
	j    uint16
	at   uint16
	kind uint8
}

const (
	opRef  = iota // a unit-relative reference: an edge
	opStrp        // .debug_str offset
	opFlag
	opData
	opSlow // through DIE.AttrAt (label's general case)
)

// opKind is how a label reads a value of form f.
func opKind(f uint16) uint8 {
	switch {
	case f == formRef1 || f == formRef2 || f == formRef4 || f == formRef8 || f == formRefUdata:
		return opRef
	case f == keyFormStrp:
		return opStrp
	case f == keyFormFlag || f == keyFormFlagPresent:
		return opFlag
	case keyDataForm(f):
		return opData
	}
	return opSlow
}

// planStart, planAdd and planEnd hash a DIE's shape: its tag, then each
// attribute the label reads, with how it reads it.
func planStart(tag uint16) uint64 { return acc(0x5a, uint64(tag)) }

func planAdd(h uint64, at uint16, kind uint8) uint64 {
	return acc(h, uint64(at)<<8|uint64(kind)+1)
}

func planEnd(h uint64) uint64 { return mixKey(h, 0x5b) }

// newPlan makes the plan of an abbreviation from its first DIE, i.
func (k *ClosureKeys) newPlan(abbrev uint32, i int32) *keyPlan {
	p := &k.plans[abbrev]
	d := k.cu.DIE(dwarfread.TagID(i))
	tag := d.Tag()
	p.tag = uint16(tag)
	p.isType = isTypeTag(tag)
	p.first = uint32(len(k.ops))
	p.fast = true
	h := planStart(p.tag)
	for j := range d.NumAttrs() {
		a := d.AttrAt(j)
		if a.At == dwarf.AttrDeclaration && p.declFlag == 0 {
			switch tag {
			case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType, dwarf.TagEnumerationType:
				p.declFlag = uint16(j + 1)
			}
		}
		if keyIgnored(a.At) {
			continue
		}
		op := keyOp{j: uint16(j), at: uint16(a.At), kind: opKind(a.Form)}
		h = planAdd(h, op.at, op.kind)
		switch {
		case op.kind == opSlow || j >= 64:
			p.fast = false
		case op.kind == opRef:
			p.refs |= 1 << j
		default:
			p.vals |= 1 << j
		}
		k.ops = append(k.ops, op)
	}
	p.hash = planEnd(h)
	p.end = uint32(len(k.ops))
	p.state = planReady
	return p
}

// labelPlan is label through plans (all ready: Unit made them).
func (k *ClosureKeys) labelPlan(tags []arena.Tag, vals []uint64, i int32, h uint64) uint64 {
	plans := k.plans
	rec := &tags[i]
	p := &plans[rec.Abbrev]
	h = acc(h, p.hash)
	v := vals[rec.Vals:]
	if p.fast {
		for m := p.vals; m != 0; m &= m - 1 {
			h = acc(h, v[bits.TrailingZeros64(m)])
		}
		for m := p.refs; m != 0; m &= m - 1 {
			k.ref(dwarfread.DIEOff(v[bits.TrailingZeros64(m)]))
		}
	} else {
		for _, op := range k.ops[p.first:p.end] {
			switch op.kind {
			case opRef:
				k.ref(dwarfread.DIEOff(v[op.j]))
			case opStrp, opFlag, opData:
				h = acc(h, v[op.j])
			default:
				h = k.attrSlow(k.cu.DIE(dwarfread.TagID(i)).AttrAt(int(op.j)), acc(h, uint64(op.at)<<8))
			}
		}
	}
	for c := rec.FirstChild; c != dwarfread.NoTag; c = tags[c].NextSibling {
		cr := &tags[c]
		cp := &plans[cr.Abbrev]
		switch {
		case cp.isType:
			h = acc(h, 0xe)
			k.edges = append(k.edges, k.nodes.find(cr.Off))
		case cp.fast && cr.FirstChild == dwarfread.NoTag:
			// labelPlan of a plain child (a member, an enumerator, a
			// parameter), without the call.
			hc := acc(acc(h, 0xc), cp.hash)
			cv := vals[cr.Vals:]
			for m := cp.vals; m != 0; m &= m - 1 {
				hc = acc(hc, cv[bits.TrailingZeros64(m)])
			}
			for m := cp.refs; m != 0; m &= m - 1 {
				k.ref(dwarfread.DIEOff(cv[bits.TrailingZeros64(m)]))
			}
			h = acc(hc, 0xd)
		default:
			h = k.labelPlan(tags, vals, int32(c), acc(h, 0xc))
		}
	}
	return acc(h, 0xd)
}
