package encode

import (
	"math/bits"

	"github.com/btfstream/btfstream/stream/dwarfread"
)

// nodeIndex finds a unit's type DIEs (ClosureKeys' nodes) by section
// offset, as CU.Lookup finds any DIE but over the nodes alone: an
// open-addressing table of the nodes' offsets (from the unit's), at most
// half full, one probe for most. A reference to anything but a node's
// first byte finds nothing, as a reference to a DIE that is not a type
// does.
type nodeIndex struct {
	base  uint64   // the unit DIE's offset
	off   []uint32 // per node: offset from base
	slots []uint64 // (offset+1)<<32 | node; 0: empty
	shift uint8
}

// start empties the index for cu's nodes, which add gives.
func (x *nodeIndex) start(cu *dwarfread.CU) {
	x.base = uint64(cu.Tags()[0].Off)
	x.off = x.off[:0]
}

func (x *nodeIndex) add(off dwarfread.DIEOff) {
	x.off = append(x.off, uint32(uint64(off)-x.base))
}

// index builds the table once every node is added.
func (x *nodeIndex) index() {
	n := 16
	for n < 2*len(x.off) {
		n *= 2
	}
	x.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	if cap(x.slots) < n {
		x.slots = make([]uint64, n)
	}
	x.slots = x.slots[:n]
	clear(x.slots)
	mask := uint64(n - 1)
	for i, o := range x.off {
		s := x.slot(uint64(o))
		for x.slots[s] != 0 {
			s = (s + 1) & mask
		}
		x.slots[s] = (uint64(o)+1)<<32 | uint64(i)
	}
}

func (x *nodeIndex) slot(rel uint64) uint64 {
	return (rel * 0x9e3779b97f4a7c15) >> x.shift
}

// find returns the node at off, -1 if none starts there.
func (x *nodeIndex) find(off dwarfread.DIEOff) int32 {
	rel := uint64(off) - x.base
	if rel >= 1<<32-1 { // also off below base
		return -1
	}
	want := (rel + 1) << 32
	mask := uint64(len(x.slots) - 1)
	for s := x.slot(rel); ; s = (s + 1) & mask {
		e := x.slots[s]
		if e&^(1<<32-1) == want {
			return int32(uint32(e))
		}
		if e == 0 {
			return -1
		}
	}
}

// typeDIE returns the type DIE at off, as CU.Lookup would, or -1 if no
// type DIE (node) starts there: the encoder's shortcut to the types the
// keys of its unit have indexed (the unit's last Unit).
func (k *ClosureKeys) typeDIE(off dwarfread.DIEOff) int32 {
	if x := k.nodes.find(off); x >= 0 {
		return k.die[x]
	}
	return -1
}
