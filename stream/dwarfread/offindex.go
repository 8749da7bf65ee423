package dwarfread

import "math/bits"

// byOffShift sizes Lookup's buckets: 64 bytes of the unit, a handful of
// DIEs (a vmlinux averages 10 bytes a DIE), one bit per byte.
const byOffShift = 6

// offBucket is one bucket of Lookup's index (arena.Arena.Index, so that
// the index is pooled with its arena): [0] is the first tag at or after
// the bucket's first byte, [1] and [2] a bit per byte of the bucket
// (bytes 0-31, 32-63), set where a DIE starts. A DIE's id is the first
// plus the number of bits below its own: one cache line answers a
// Lookup, where scanning the bucket's 24-byte tags touched two or three
// (6.12 vmlinux: Lookup 1.37G of 31.8G instructions at -j1, about 45 a
// call).
//
// Size: 12 bytes (3 × uint32), checked by TestSizes: 3/16 of the unit's
// size.
type offBucket = [3]uint32

// markOff sets, in b, the bit of unit-relative offset rel, which lies in
// the bucket.
func markOff(b *offBucket, rel uint32) { b[1+rel>>5&1] |= 1 << (rel & 31) }

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
	w := uint64(b[2])<<32 | uint64(b[1])
	bit := rel & 63
	if w>>bit&1 == 0 {
		return NoTag, false
	}
	return TagID(b[0] + uint32(bits.OnesCount64(w&(1<<bit-1)))), true
}

// offIndex returns room for Lookup's index of the unit, in its arena;
// the caller sets every bucket.
func (cu *CU) offIndex() []offBucket {
	n := int(cu.hdr.total>>byOffShift) + 1
	a := cu.arena
	if cap(a.Index) < n {
		a.Index = make([]offBucket, n)
	}
	a.Index = a.Index[:n]
	return a.Index
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
			idx[b] = offBucket{uint32(i)}
		}
		if j := rel >> byOffShift; j < uint64(n) {
			markOff(&idx[j], uint32(rel))
		}
	}
	for ; b < n; b++ {
		idx[b] = offBucket{uint32(len(tags))}
	}
	cu.byOff, cu.byOffTags = idx, len(tags)
}
