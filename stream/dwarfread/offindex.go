package dwarfread

import (
	"math/bits"
	"sync"
	"unsafe"
)

// byOffShift sizes Lookup's buckets: 64 bytes of the unit, a handful of
// DIEs (a vmlinux averages 10 bytes a DIE), one bit per byte.
const byOffShift = 6

// offBucket is one bucket of Lookup's index: the first tag at or after the
// bucket's first byte, and a bit per byte of the bucket, set where a DIE
// starts (bits[0]: bytes 0-31, bits[1]: 32-63). A DIE's id is first plus
// the number of bits below its own: one cache line answers a Lookup, where
// scanning the bucket's 24-byte tags touched two or three (6.12 vmlinux:
// Lookup 1.37G of 31.8G instructions at -j1, about 45 a call).
//
// Size: 12 bytes (3 × uint32), checked by TestSizes: 3/16 of the unit's
// size.
type offBucket struct {
	first uint32
	bits  [2]uint32
}

// mark sets the bit of unit-relative offset rel, which lies in the bucket.
func (b *offBucket) mark(rel uint32) { b.bits[rel>>5&1] |= 1 << (rel & 31) }

// Lookup returns the id of the DIE at section offset off, if it is in
// this unit, from the offBucket of off's 64 bytes (a binary search over
// the whole unit missed the cache at most of its probes: this is the
// encoder's hottest lookup, every DW_AT_type).
func (cu *CU) Lookup(off DIEOff) (TagID, bool) {
	if cu.byOffTags != len(cu.arena.Tags) {
		cu.indexOffsets()
	}
	rel := uint64(off) - cu.hdr.off
	if uint64(off) < cu.hdr.off || rel>>byOffShift >= uint64(len(cu.byOff)) {
		return NoTag, false
	}
	b := &cu.byOff[rel>>byOffShift]
	w := uint64(b.bits[1])<<32 | uint64(b.bits[0])
	bit := rel & 63
	if w>>bit&1 == 0 {
		return NoTag, false
	}
	return TagID(b.first + uint32(bits.OnesCount64(w&(1<<bit-1)))), true
}

// offIndex returns room for Lookup's index of the unit; the caller sets
// every bucket.
func (cu *CU) offIndex() []offBucket {
	n := int(cu.hdr.total>>byOffShift) + 1
	if cap(cu.byOff) < n {
		cu.byOff = cu.f.offIndexes.get(n)
	}
	return cu.byOff[:n]
}

// indexOffsets builds Lookup's index of the tags decoded so far (decodeDIEs
// builds it for a whole unit as it goes).
func (cu *CU) indexOffsets() {
	tags := cu.arena.Tags
	idx := cu.offIndex()
	n := len(idx)
	b := 0
	for i := range tags {
		rel := uint64(tags[i].Off) - cu.hdr.off
		for ; b < n && uint64(b)<<byOffShift <= rel; b++ {
			idx[b] = offBucket{first: uint32(i)}
		}
		if j := rel >> byOffShift; j < uint64(n) {
			idx[j].mark(uint32(rel))
		}
	}
	for ; b < n; b++ {
		idx[b] = offBucket{first: uint32(len(tags))}
	}
	cu.byOff, cu.byOffTags = idx, len(tags)
}

// offPool keeps the Lookup indexes of released units for the next units
// (a vmlinux decodes thousands; each would otherwise allocate 3/16 of its
// size). Like the arena pool it keeps at most max, and none larger than
// maxKeep bytes if that is set.
type offPool struct {
	mu      sync.Mutex
	max     int
	maxKeep uint64
	free    [][]offBucket
}

// get returns an index of n buckets, their contents undefined.
func (p *offPool) get(n int) []offBucket {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, s := range p.free {
		if cap(s) >= n {
			last := len(p.free) - 1
			p.free[i] = p.free[last]
			p.free[last] = nil
			p.free = p.free[:last]
			return s[:n]
		}
	}
	return make([]offBucket, n)
}

// put keeps s for reuse if there is room, replacing a smaller one if not.
func (p *offPool) put(s []offBucket) {
	if s == nil || p.maxKeep != 0 && uint64(cap(s))*uint64(unsafe.Sizeof(offBucket{})) > p.maxKeep {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < max(p.max, 1) {
		p.free = append(p.free, s)
		return
	}
	for i := range p.free {
		if cap(p.free[i]) < cap(s) {
			p.free[i] = s
			return
		}
	}
}

// drain drops the idle indexes.
func (p *offPool) drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.free)
	p.free = nil
}
