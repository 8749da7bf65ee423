package main

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// key is a DIE-level key: a hash of a type DIE's attributes and children
// with references replaced by the keys of what they name, memoised per
// unit. A reference that closes a cycle gives the target's shallow key
// (tag, name, declaration), so the key does not cover the whole closure
// where a cycle is cut: the measurement says how often that misleads.
type key uint64

type keyer struct {
	cu    *dwarfread.CU
	memo  []key
	state []uint8 // 0 not visited, 1 on the path, 2 done
}

func newKeyer() *keyer { return &keyer{} }

// unit returns the keys of the unit's DIEs that became types (0 for the
// others).
func (k *keyer) unit(cu *dwarfread.CU, dieType []btf.TypeID) []key {
	n := int(cu.Len())
	k.cu = cu
	k.memo = make([]key, n)
	k.state = make([]uint8, n)
	for i := range n {
		if i < len(dieType) && dieType[i] != 0 {
			k.key(int32(i))
		}
	}
	out := make([]key, n)
	for i := range n {
		if i < len(dieType) && dieType[i] != 0 {
			out[i] = k.memo[i]
		}
	}
	return out
}

func mix(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	h *= 0xff51afd7ed558ccd
	return h ^ h>>32
}

func (k *keyer) key(i int32) key {
	switch k.state[i] {
	case 2:
		return k.memo[i]
	case 1:
		return k.shallow(i)
	}
	k.state[i] = 1
	h := k.hashDIE(i, 1)
	k.memo[i] = key(h)
	k.state[i] = 2
	return key(h)
}

func (k *keyer) shallow(i int32) key {
	d := k.cu.DIE(dwarfread.TagID(i))
	h := mix(0x5a5a, uint64(d.Tag()))
	if a, ok := d.Attr(dwarf.AttrName); ok {
		h = mix(h, k.str(a))
	}
	if a, ok := d.Attr(dwarf.AttrDeclaration); ok && a.Flag() {
		h = mix(h, 1)
	}
	return key(h)
}

func (k *keyer) str(a dwarfread.Attr) uint64 {
	if off, ok := a.DebugStrOffset(); ok {
		return mix(1, off)
	}
	s, _ := a.String()
	h := uint64(2)
	for j := 0; j < len(s); j++ {
		h = mix(h, uint64(s[j]))
	}
	return h
}

func (k *keyer) hashDIE(i int32, h uint64) uint64 {
	d := k.cu.DIE(dwarfread.TagID(i))
	h = mix(h, uint64(d.Tag()))
	for a := range d.Attrs() {
		switch a.At {
		case dwarf.AttrSibling, dwarf.AttrDeclFile:
			continue
		}
		h = mix(h, uint64(a.At))
		switch a.Class() {
		case dwarf.ClassReference:
			if j, ok := k.cu.Lookup(a.Ref()); ok {
				h = mix(h, uint64(k.key(int32(j))))
			} else {
				h = mix(h, 0xbad)
			}
		case dwarf.ClassString:
			h = mix(h, k.str(a))
		case dwarf.ClassExprLoc, dwarf.ClassBlock:
			for _, c := range a.Block() {
				h = mix(h, uint64(c))
			}
		default:
			h = mix(h, a.Val)
		}
	}
	for c := d.FirstChild(); c.ID() != dwarfread.NoTag; c = c.NextSibling() {
		h = k.hashDIE(int32(c.ID()), mix(h, 0xc))
	}
	return h
}
