package encode

import (
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// nodeIndex finds a unit's type DIEs (ClosureKeys' nodes) by section
// offset, as CU.Lookup finds any DIE but over the nodes alone: buckets of
// 1<<nodeShift bytes of the unit, each the range of nodes that start in
// it, and the nodes' offsets side by side (about one node a bucket on a
// vmlinux, against CU.Lookup's handful of DIEs 24 bytes apart). A
// reference to anything but a node's first byte finds nothing, as a
// reference to a DIE that is not a type does.
type nodeIndex struct {
	base   uint64   // the unit DIE's offset
	off    []uint32 // per node: offset from base, ascending
	bucket []uint32 // bucket b's nodes: off[bucket[b]:bucket[b+1]]
}

// nodeShift sizes the buckets: 64 bytes (a vmlinux averages 10 bytes a
// DIE, a quarter of them types); the index costs 4 bytes a bucket.
const nodeShift = 6

// start empties the index for cu's nodes, which add gives in section order.
func (x *nodeIndex) start(cu *dwarfread.CU) {
	x.base = uint64(cu.Tags()[0].Off)
	x.off = x.off[:0]
}

func (x *nodeIndex) add(off dwarfread.DIEOff) {
	x.off = append(x.off, uint32(uint64(off)-x.base))
}

// index builds the buckets once every node is added.
func (x *nodeIndex) index() {
	n := 2
	if len(x.off) > 0 {
		n += int(x.off[len(x.off)-1] >> nodeShift)
	}
	if cap(x.bucket) < n {
		x.bucket = make([]uint32, n)
	}
	x.bucket = x.bucket[:n]
	b := 0
	for i, o := range x.off {
		for ; b <= int(o>>nodeShift); b++ {
			x.bucket[b] = uint32(i)
		}
	}
	for ; b < n; b++ {
		x.bucket[b] = uint32(len(x.off))
	}
}

// find returns the node at off, -1 if none starts there.
func (x *nodeIndex) find(off dwarfread.DIEOff) int32 {
	rel := uint64(off) - x.base
	b := rel >> nodeShift
	if b >= uint64(len(x.bucket)-1) { // also off below base
		return -1
	}
	for i, end := x.bucket[b], x.bucket[b+1]; i < end; i++ {
		if o := uint64(x.off[i]); o >= rel {
			if o == rel {
				return int32(i)
			}
			break
		}
	}
	return -1
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
