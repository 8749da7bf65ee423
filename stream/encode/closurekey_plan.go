package encode

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/arena"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// The labels of ClosureKeys read through a plan per abbreviation (as
// shape.go does for the encoder): which values the label hashes and how,
// found once per abbreviation and unit from its first DIE, so that most
// attributes are read straight from the unit's values without an
// abbreviation lookup each. The hash is label's, word for word; an
// attribute whose form the plan does not read directly goes through
// DIE.AttrAt as label does. Not for units with DW_FORM_indirect (the
// forms of one DIE are then not the abbreviation's).

// keyPlan is one abbreviation's plan: ops[first:end] in k.ops.
type keyPlan struct {
	first, end uint32
	tag        uint16
	state      uint8 // planUnknown, planReady
	isType     bool
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

// plan returns DIE i's plan.
func (k *ClosureKeys) plan(abbrev uint32, i int32) *keyPlan {
	if p := &k.plans[abbrev]; p.state != planUnknown {
		return p
	}
	return k.newPlan(abbrev, i)
}

// newPlan is plan's first look at an abbreviation (apart, so that plan
// is inlined).
func (k *ClosureKeys) newPlan(abbrev uint32, i int32) *keyPlan {
	p := &k.plans[abbrev]
	d := k.cu.DIE(dwarfread.TagID(i))
	p.tag = uint16(d.Tag())
	p.isType = isTypeTag(d.Tag())
	p.first = uint32(len(k.ops))
	for j := range d.NumAttrs() {
		a := d.AttrAt(j)
		switch a.At {
		case dwarf.AttrSibling, dwarf.AttrDeclFile, dwarf.AttrDeclLine, dwarf.AttrDeclColumn:
			continue
		}
		op := keyOp{j: uint16(j), at: uint16(a.At), kind: opSlow}
		switch {
		case a.Form == formRef1 || a.Form == formRef2 || a.Form == formRef4 || a.Form == formRef8 || a.Form == formRefUdata:
			op.kind = opRef
		case a.Form == keyFormStrp:
			op.kind = opStrp
		case a.Form == keyFormFlag || a.Form == keyFormFlagPresent:
			op.kind = opFlag
		case keyDataForm(a.Form):
			op.kind = opData
		}
		k.ops = append(k.ops, op)
	}
	p.end = uint32(len(k.ops))
	p.state = planReady
	return p
}

// labelPlan is label through plans.
func (k *ClosureKeys) labelPlan(tags []arena.Tag, vals []uint64, i int32, h uint64) uint64 {
	rec := &tags[i]
	p := k.plan(rec.Abbrev, i)
	h = acc(h, uint64(p.tag))
	v := vals[rec.Vals:]
	for _, op := range k.ops[p.first:p.end] {
		h = acc(h, uint64(op.at)<<8)
		switch op.kind {
		case opRef:
			t, ok := k.cu.Lookup(dwarfread.DIEOff(v[op.j]))
			if ok && k.node[t] {
				k.edges = append(k.edges, int32(t))
			} else {
				k.edges = append(k.edges, -1)
			}
		case opStrp:
			h = acc(acc(h, 1), v[op.j])
		case opFlag:
			h = acc(acc(h, 3), v[op.j])
		case opData:
			h = acc(acc(h, 4), v[op.j])
		default:
			h = k.attrSlow(k.cu.DIE(dwarfread.TagID(i)).AttrAt(int(op.j)), h)
		}
	}
	for c := rec.FirstChild; c != dwarfread.NoTag; c = tags[c].NextSibling {
		if k.node[c] {
			h = acc(h, 0xe)
			k.edges = append(k.edges, int32(c))
			continue
		}
		h = k.labelPlan(tags, vals, int32(c), acc(h, 0xc))
	}
	return mixKey(h, 0xd)
}
