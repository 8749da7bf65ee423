package dedup

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/btfstream/btfstream/btf"
)

// The pass that groups a base's types and proves it has no duplicates,
// for the index on demand (baselazy.go).

// lazyIndexBase groups the base's types and proves it has no duplicates.
// It reports false (the caller hashes the whole base) if it cannot, or if
// an edge names no type.
func (d *Incremental) lazyIndexBase() bool {
	base := d.base
	n := uint32(base.Len())
	lz := &lazyBase{n: n, state: make([]uint8, 1+n), gkey: make([]uint32, 1+n), gnext: make([]uint32, 1+n)}
	lz.view = viewOf(base.Strings())
	size := 16
	for size < 2*int(n) {
		size <<= 1
	}
	lz.gslot = make([]uint32, size)
	types, at, words := base.Raw()
	// Keys first, then the slots, filled in the order of the slots the
	// keys start at (a stable counting sort by their top bits, so a
	// group's members still come in id order): they are then written
	// nearly in sequence instead of at random.
	mask := uint32(size - 1)
	shift := max(bits.Len32(mask), 10) - 10
	var count [1<<10 + 1]uint32
	var roots []uint32 // unnamed non-aggregates with an edge to a type not older
	for id := uint32(1); id <= n; id++ {
		t, w := types[id-1], words[at[id-1]:at[id]:at[id]]
		k := t.Kind()
		up := false
		for j, m := 0, numRefs(t, w); j < m; j++ {
			c := refAt(t, w, j)
			if c > n {
				return false
			}
			up = up || c >= id
		}
		if d.neverMerged(k) {
			continue
		}
		var key uint32
		if b, ok := named(&lz.view, uint32(t.NameOff)); ok {
			nh := cstrHash(b)
			if isTagKind(k) {
				key = tagKey(nh, t, w, nil)
				lz.state[id] |= lzAnon
				if up {
					roots = append(roots, id)
				}
			} else {
				key = namedKey(nh)
			}
		} else if isAggKind(k) {
			key = aggKeyOf(labelHash(node{t, w, &lz.view}))
		} else {
			key = anonKey(t, w, nil)
			lz.state[id] |= lzAnon
			if up {
				roots = append(roots, id)
			}
		}
		lz.gkey[id] = key
		lz.state[id] |= lzKeyed
		count[(key&mask)>>shift+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	order := make([]uint32, count[len(count)-1])
	for id := uint32(1); id <= n; id++ {
		if lz.state[id]&lzKeyed != 0 {
			b := (lz.gkey[id] & mask) >> shift
			order[count[b]] = id
			count[b]++
		}
	}
	var shared []uint32
	for _, id := range order {
		key := lz.gkey[id]
		i := key & mask
		for ; lz.gslot[i] != 0; i = (i + 1) & mask {
			if c := lz.gslot[i]; lz.gkey[c] == key {
				lz.gnext[id] = c
				for _, x := range [2]uint32{c, id} {
					if lz.state[x]&lzShared == 0 {
						lz.state[x] |= lzShared
						shared = append(shared, x)
					}
				}
				break
			}
		}
		lz.gslot[i] = id
	}
	order = nil
	if lz.anonCycle(roots, types, at, words) {
		return d.lazyFails()
	}
	lz.state[0] = lzReady | lzHash | lzLinked
	lz.slot = make([]uint32, 1+n)
	d.lz = lz
	d.hoff = 1 + n
	d.hash = make([]uint64, 0, n/16)
	d.tag = make([]uint64, 0, n/16)
	d.lh = make([]uint64, 0, n/16)
	d.fin = make([]bool, 0, n/16)
	d.next = make([]uint32, 1+n, 1+n+n/16)
	lz.ids = append(lz.ids, 0)
	lz.hash, lz.tag, lz.lh, lz.fin = append(lz.hash, voidTag), append(lz.tag, voidTag), append(lz.lh, voidTag), append(lz.fin, true)
	lz.slot[0] = 1
	// Equivalent types have one group, one label and one structural
	// hash. A small group's members are compared pair by pair (labels
	// first); a large group's are bucketed by label hash, and the members
	// of a bucket by structural hash, before they are compared.
	seen := make(map[uint64]bool)
	same := func(x, c uint32) bool {
		return labelEq(d.baseNode(x), d.baseNode(c)) && d.exHash(x) == d.exHash(c) &&
			d.baseBisimilar(x, c, &lz.view, seen)
	}
	var keyed []hashedID
	for _, x := range shared {
		if lz.gnext[x] == 0 || lz.groupHead(lz.gkey[x]) != x {
			continue // not a group's newest member
		}
		keyed = keyed[:0]
		for c := x; c != 0; c = lz.gnext[c] {
			keyed = append(keyed, hashedID{0, c})
		}
		if len(keyed) > 8 {
			if lz.bucketed(d, keyed, same) {
				return d.lazyFails()
			}
			continue
		}
		for i, a := range keyed {
			for _, b := range keyed[i+1:] {
				if same(a.id, b.id) {
					return d.lazyFails()
				}
			}
		}
	}
	d.baseIndex.reset(0)
	d.index.reset(0)
	return true
}

// lazyFails undoes what lazyIndexBase set up, for indexBase to hash the
// whole base instead.
func (d *Incremental) lazyFails() bool {
	d.lz = nil
	d.hoff = 0
	d.hash, d.tag, d.lh, d.fin, d.next = []uint64{voidTag}, []uint64{voidTag}, []uint64{voidTag}, []bool{true}, d.next[:1]
	return false
}

// bucketed reports whether two members of a large group (ids in keyed)
// are the same: members are compared only within runs of one label hash
// and then of one structural hash.
func (lz *lazyBase) bucketed(d *Incremental, keyed []hashedID, same func(x, c uint32) bool) bool {
	for i := range keyed {
		keyed[i].h = labelHash(d.baseNode(keyed[i].id))
	}
	byHash := func(a, b hashedID) int { return cmp.Compare(a.h, b.h) }
	slices.SortFunc(keyed, byHash)
	j := 0
	for i := 0; i < len(keyed); {
		e := i + 1
		for e < len(keyed) && keyed[e].h == keyed[i].h {
			e++
		}
		if e-i > 1 {
			for ; i < e; i++ {
				keyed[j] = hashedID{d.exHash(keyed[i].id), keyed[i].id}
				j++
			}
		}
		i = e
	}
	keyed = keyed[:j]
	slices.SortFunc(keyed, byHash)
	for i := range keyed {
		for j := i + 1; j < len(keyed) && keyed[j].h == keyed[i].h; j++ {
			if same(keyed[i].id, keyed[j].id) {
				return true
			}
		}
	}
	return false
}

// anonCycle reports whether the base has a cycle through unnamed
// non-aggregates only (lzAnon types). roots lists those that have an edge
// to a type not older (every cycle has one, so the search starts only
// there; roots may list others).
func (lz *lazyBase) anonCycle(roots []uint32, types []btf.Type, at, words []uint32) bool {
	const open, done = lzOpen, lzReady // borrowed, cleared below
	var seen []uint32
	defer func() {
		for _, x := range seen {
			lz.state[x] &^= open | done
		}
	}()
	var stack, pos []uint32
	for _, root := range roots {
		if lz.state[root]&done != 0 {
			continue
		}
		lz.state[root] |= open
		seen = append(seen, root)
		stack, pos = append(stack[:0], root), append(pos[:0], 0)
		for len(stack) > 0 {
			top := len(stack) - 1
			x := stack[top]
			t, w := types[x-1], words[at[x-1]:at[x]:at[x]]
			if j := int(pos[top]); j < numRefs(t, w) {
				pos[top]++
				c := refAt(t, w, j)
				if c == 0 || lz.state[c]&lzAnon == 0 || lz.state[c]&done != 0 {
					continue
				}
				if lz.state[c]&open != 0 {
					return true
				}
				lz.state[c] |= open
				seen = append(seen, c)
				stack, pos = append(stack, c), append(pos, 0)
				continue
			}
			lz.state[x] = lz.state[x]&^open | done
			stack, pos = stack[:top], pos[:top]
		}
	}
	return false
}
