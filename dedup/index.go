package dedup

import "math/bits"

// hindex is an open-addressing hash index from a 64-bit hash to the head
// of a chain of small positive numbers (ids, or local index+1) that share
// the hash; the caller keeps the chain links and the hashes (keys[v-off]
// is the hash of v). It holds no pointers and costs 4 bytes per slot, at
// most half full. Only distinct hashes take slots: types that share a
// hash (cyclic types can, without being equivalent) share one chain
// instead of lengthening every probe run around them.
type hindex struct {
	slots []uint32 // 0 = empty
	used  int
}

// reset empties the index and sizes it for n hashes.
func (x *hindex) reset(n int) {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	if cap(x.slots) >= size && cap(x.slots) <= 4*size {
		x.slots = x.slots[:size]
		clear(x.slots)
	} else {
		x.slots = make([]uint32, size)
	}
	x.used = 0
}

// find returns the head stored under h, or 0.
func (x *hindex) find(h uint64, keys []uint64, off uint32) uint32 {
	m := uint64(len(x.slots) - 1)
	for i := h & m; ; i = (i + 1) & m {
		v := x.slots[i]
		if v == 0 || keys[v-off] == h {
			return v
		}
	}
}

// put makes v (nonzero, keys[v-off] == h) the head under h and returns the
// previous head, or 0.
func (x *hindex) put(h uint64, v uint32, keys []uint64, off uint32) uint32 {
	m := uint64(len(x.slots) - 1)
	i := h & m
	for ; x.slots[i] != 0; i = (i + 1) & m {
		if p := x.slots[i]; keys[p-off] == h {
			x.slots[i] = v
			return p
		}
	}
	x.slots[i] = v
	x.used++
	if 2*x.used > len(x.slots) {
		x.grow(keys, off)
	}
	return 0
}

func (x *hindex) grow(keys []uint64, off uint32) {
	old := x.slots
	x.slots = make([]uint32, 2*len(old))
	m := uint64(len(x.slots) - 1)
	for _, v := range old {
		if v == 0 {
			continue
		}
		i := keys[v-off] & m
		for x.slots[i] != 0 {
			i = (i + 1) & m
		}
		x.slots[i] = v
	}
}

// idIndex maps a few ids out of many to 1 + their index in the caller's
// list of them (ids[v-1] is the id of v), every entry of which it holds:
// open addressing, 4 bytes a slot, at most half full.
type idIndex struct {
	slots []uint32 // 0 = empty
	shift uint8    // 32 - log2(len(slots))
}

// find returns 1 + the index of id in ids, or 0.
func (x *idIndex) find(id uint32, ids []uint32) uint32 {
	if len(x.slots) == 0 {
		return 0
	}
	m := uint32(len(x.slots) - 1)
	for i := (id * 0x9e3779b1) >> x.shift; ; i = (i + 1) & m {
		if v := x.slots[i]; v == 0 || ids[v-1] == id {
			return v
		}
	}
}

// reserve sizes an empty index for n ids, so that adding them does not
// grow it step by step.
func (x *idIndex) reserve(n int) {
	if len(x.slots) == 0 && n > 0 {
		size := 64
		for size < 2*n {
			size *= 2
		}
		x.slots = make([]uint32, size)
		x.shift = uint8(32 - bits.Len(uint(size-1)))
	}
}

// add indexes the last of ids (not indexed yet).
func (x *idIndex) add(ids []uint32) {
	if 2*len(ids) > len(x.slots) {
		size := max(64, 2*len(x.slots))
		x.slots = make([]uint32, size)
		x.shift = uint8(32 - bits.Len(uint(size-1)))
		for i := range ids {
			x.put(ids[i], uint32(i+1))
		}
		return
	}
	x.put(ids[len(ids)-1], uint32(len(ids)))
}

func (x *idIndex) put(id, v uint32) {
	m := uint32(len(x.slots) - 1)
	i := (id * 0x9e3779b1) >> x.shift
	for x.slots[i] != 0 {
		i = (i + 1) & m
	}
	x.slots[i] = v
}
