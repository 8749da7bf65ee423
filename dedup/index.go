package dedup

// hindex is an open-addressing hash index of small positive numbers (ids,
// or local index+1) keyed by a 64-bit hash that the caller keeps beside
// it (key(v) below). It holds no pointers and costs 4 bytes per slot, at
// most half full; a lookup walks the probe run from the hash's home slot
// and the caller checks every value whose key equals the hash. Several
// values may share a hash; they are returned in insertion order.
type hindex struct {
	slots []uint32 // 0 = empty
	used  int
}

// reset empties the index and sizes it for n values.
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

// mask returns the probe mask; the home slot of h is h&mask.
func (x *hindex) mask() uint64 { return uint64(len(x.slots) - 1) }

// insert adds v (nonzero) under h. Every value's key is keys[v-off]
// (used when growing), h for v.
func (x *hindex) insert(h uint64, v uint32, keys []uint64, off uint32) {
	if 2*(x.used+1) > len(x.slots) {
		x.grow(keys, off)
	}
	m := x.mask()
	i := h & m
	for x.slots[i] != 0 {
		i = (i + 1) & m
	}
	x.slots[i] = v
	x.used++
}

func (x *hindex) grow(keys []uint64, off uint32) {
	old := x.slots
	n := 2 * len(old)
	if n < 16 {
		n = 16
	}
	x.slots = make([]uint32, n)
	m := x.mask()
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
