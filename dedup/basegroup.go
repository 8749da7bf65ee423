package dedup

import (
	"bytes"
	"slices"
)

// Finding a base type's group (baselazy.go): by its key in lazyBase.groups,
// and a batch name's key when names are keyed by offset.

// group returns the members of the group of key (entries of groups, in
// id order: lz.idOf gives their ids).
func (lz *lazyBase) group(key uint32) []uint32 {
	b := key >> lz.gshift
	g := lz.groups[lz.gstart[b]:lz.gstart[b+1]]
	// Entries sort by key bits, then id: the group's are from its key
	// bits with id 0 (first) to its key bits with every id bit set (last).
	first := lz.entry(key, 0)
	last := first | (1<<(lz.idBits&31) - 1)
	if len(g) > 16 { // a large group's bucket: binary search
		i, _ := slices.BinarySearch(g, first)
		j, found := slices.BinarySearch(g[i:], last)
		if found {
			j++
		}
		return g[i : i+j]
	}
	i := 0
	for i < len(g) && g[i] < first {
		i++
	}
	j := i
	for j < len(g) && g[j] <= last {
		j++
	}
	return g[i:j]
}

// entry is the groups entry of base type id with group key.
func (lz *lazyBase) entry(key, id uint32) uint32 {
	ib := lz.idBits & 31
	return (key&(1<<(32-ib)-1))<<ib | id
}

// idOf is the base id of a groups entry.
func (lz *lazyBase) idOf(e uint32) uint32 { return e & (1<<(lz.idBits&31) - 1) }

// offHash stands for a name's hash in a group key when names are keyed
// by offset.
func offHash(off uint32) uint64 { return mix(0x6f66667365740000, uint64(off)) }

// nameHash returns what stands for the name at off (b: its bytes and
// what follows, not empty) in a group key: its hash, or, keyed by
// offset, that of the offset of the base's string equal to it; false if
// the base has no such string (no base type has that name).
func (lz *lazyBase) nameHash(off uint32, b []byte) (uint64, bool) {
	if !lz.byOff {
		return cstrHash(b), true
	}
	// b is the base's string at off if it is where the base keeps it (a
	// prepared batch's strings are its own, offsets from 0).
	data := lz.view.local
	if off > 0 && off < uint32(len(data)) && &b[0] == &data[off] && data[off-1] == 0 {
		return offHash(off), true
	}
	// Names looked up before, by content hash and checked by content (a
	// batch names what the units before it named).
	h := cstrHash(b)
	if v := lz.names.find(h, lz.nameH, 1); v != 0 {
		o := lz.nameOff[v-1]
		if o&notBase == 0 && cstrEq(data[o:], b) {
			return offHash(o), true
		}
		if o&notBase != 0 && cstrEq(lz.notIn[o&^notBase:], b) {
			return 0, false
		}
	}
	s := b
	if e := bytes.IndexByte(b, 0); e >= 0 {
		s = b[:e]
	}
	o, ok := lz.strs.Find(s)
	v := uint32(o)
	if !ok {
		if uint64(len(lz.notIn)) >= notBase {
			return 0, false // not kept
		}
		v = notBase | uint32(len(lz.notIn))
		lz.notIn = append(append(lz.notIn, s...), 0)
	}
	lz.nameH, lz.nameOff = append(lz.nameH, h), append(lz.nameOff, v)
	lz.names.put(h, uint32(len(lz.nameH)), lz.nameH, 1)
	return offHash(uint32(o)), ok
}

// notBase marks a name in lazyBase.nameOff that the base does not have:
// the rest is its offset in notIn.
const notBase = 1 << 31
