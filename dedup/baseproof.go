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
// splitTableStart is the room the per-type arrays of a split table's own
// types start with.
const splitTableStart = 256

func (d *Incremental) lazyIndexBase() bool {
	base := d.base
	n := uint32(base.Len())
	lz := &lazyBase{n: n, state: make([]uint8, 1+n), strs: base.Strings()}
	lz.view = viewOf(lz.strs)
	// Names are keyed by offset when no two offsets hold one string (a
	// base written by libbpf or by us), and every name is at a string's
	// start; else by content.
	lz.byOff = !lazyByContent && lz.strs.Base() == nil && lz.strs.Unique()
	types, _, words := base.Raw() // a sparse base has no at: keys counts
	gbits := max(4, bits.Len32(n)-3)
	lz.gshift = uint8(32 - gbits)
	lz.idBits = uint8(bits.Len32(n))
	lz.gstart = make([]uint32, 1<<gbits+1)
	packed := make([]uint64, 0, n)
	roots, res := lz.keys(d, &packed, types, words)
	if res == keysNotStart {
		lz.byOff = false
		clear(lz.gstart)
		roots, res = lz.keys(d, &packed, types, words)
	}
	if res != keysOK {
		return false
	}
	lz.sortGroups(packed)
	packed = nil
	if lz.anonCycle(roots, base) {
		return d.lazyFails()
	}
	lz.state[0] = lzReady | lzHash | lzLinked
	d.lz = lz
	d.hoff = 1 + n
	// The table's own types (a module's, from d.hoff) are far fewer than
	// the base types it reaches (7.2's median module: 50-200 against
	// 6-11k): their arrays start small and grow (grow, Reserve).
	d.hash = make([]uint64, 0, splitTableStart)
	d.tag = make([]uint64, 0, splitTableStart)
	d.lh = make([]uint64, 0, splitTableStart)
	d.fin = make([]bool, 0, splitTableStart)
	d.next = make([]uint32, 0, splitTableStart)
	// Room for the base types a module reaches (on 7.2, 6-11k of 118k
	// for small and mid-sized modules): grown from nothing by appending,
	// the values and their id index left as much garbage as they keep.
	reach := int(n/16) + 1
	lz.ids = append(make([]uint32, 0, reach), 0)
	lz.hash, lz.tag, lz.lh = append(make([]uint64, 0, reach), voidTag), append(make([]uint64, 0, reach), voidTag), append(make([]uint64, 0, reach), voidTag)
	lz.fin = append(make([]bool, 0, reach), true)
	lz.next = append(make([]uint32, 0, reach), 0)
	lz.slot.reserve(reach)
	lz.slot.add(lz.ids)
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
	ib := lz.idBits & 31
	for b := 0; b+1 < len(lz.gstart); b++ {
		g := lz.groups[lz.gstart[b]:lz.gstart[b+1]]
		for i := 0; i < len(g); {
			e := i + 1
			for e < len(g) && g[e]>>ib == g[i]>>ib {
				e++
			}
			if e-i == 1 {
				i = e
				continue
			}
			keyed = keyed[:0]
			for ; i < e; i++ {
				keyed = append(keyed, hashedID{0, lz.idOf(g[i])})
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
	}
	d.baseIndex.reset(0)
	d.index.reset(0)
	lz.names.reset(0)
	return true
}

// lazyByContent makes lazyIndexBase key names by content (tests compare).
var lazyByContent = false

// keys results.
const (
	keysOK       = iota
	keysBadEdge  // an edge names no type
	keysNotStart // by offset, and a name is not at a string's start
)

// keys sets *keyed to key<<32 | id of every grouped base type, in id
// order, counts them by the keys' top bits in lz.gstart[1:], marks the unnamed non-aggregates and tags (lzAnon) and
// returns those of them with an edge to a type not older (anonCycle's
// roots).
func (lz *lazyBase) keys(d *Incremental, keyed *[]uint64, types []btf.Type, words []uint32) ([]uint32, int) {
	n := lz.n
	data := lz.view.local
	var roots []uint32
	out, count, shift := (*keyed)[:0], lz.gstart, lz.gshift
	defer func() { *keyed = out }()
	lo := uint32(0) // type i's words, in type order (a sparse base keeps no offsets)
	for i, t := range types {
		id := uint32(i + 1)
		hi := lo + t.WordCount()
		w := words[lo:hi:hi]
		lo = hi
		k := t.Kind()
		// The edges, as numRefs and refAt read them.
		top := uint32(0) // the largest edge
		sh := &refShapes[k&0x7f]
		if sh.hasType {
			top = t.SizeOrType
		}
		if sh.stride != 0 {
			m := int(sh.fixed)
			if m == 0 {
				m = int(t.Vlen())
			}
			for j := int(sh.first); m > 0; j, m = j+int(sh.stride), m-1 {
				top = max(top, w[j])
			}
		}
		if top > n {
			return nil, keysBadEdge
		}
		up := top >= id
		lz.state[id] = 0
		if d.neverMerged(k) {
			continue
		}
		var nh uint64
		isNamed := false
		if off := uint32(t.NameOff); !lz.byOff {
			var b []byte
			if b, isNamed = named(&lz.view, off); isNamed {
				nh = cstrHash(b)
			}
		} else if off != 0 {
			// A start (after a NUL) of unique strings is not empty.
			if off >= uint32(len(data)) || data[off-1] != 0 {
				return nil, keysNotStart
			}
			nh, isNamed = offHash(off), true
		}
		var key uint32
		switch {
		case isNamed && !isTagKind(k):
			key = namedKey(nh)
		case !isNamed && isAggKind(k):
			key = aggKeyOf(labelHash(node{t, w, &lz.view}))
		default:
			if isNamed {
				key = tagKey(nh, t, w, nil)
			} else {
				key = anonKey(t, w, nil)
			}
			lz.state[id] |= lzAnon
			if up {
				roots = append(roots, id)
			}
		}
		out = append(out, uint64(key)<<32|uint64(id))
		count[key>>shift+1]++
	}
	return roots, keysOK
}

// sortGroups makes lz.groups of keyed (key<<32 | id, in id order) and
// lz.gstart the start of each bucket (counted by keys): a counting sort
// by the keys' top bits, then an insertion sort of each bucket (a few
// entries).
func (lz *lazyBase) sortGroups(keyed []uint64) {
	for i := 1; i < len(lz.gstart); i++ {
		lz.gstart[i] += lz.gstart[i-1]
	}
	cur := slices.Clone(lz.gstart[:len(lz.gstart)-1])
	g := make([]uint32, len(keyed))
	shift, ib := 32+lz.gshift&31, lz.idBits&31
	low := uint32(1)<<(32-ib) - 1
	for _, x := range keyed {
		b := x >> shift
		g[cur[b]] = (uint32(x>>32)&low)<<ib | uint32(x)
		cur[b]++
	}
	for b := 0; b+1 < len(lz.gstart); b++ {
		run := g[lz.gstart[b]:lz.gstart[b+1]]
		for i := 1; i < len(run); i++ {
			x, j := run[i], i
			for ; j > 0 && run[j-1] > x; j-- {
				run[j] = run[j-1]
			}
			run[j] = x
		}
	}
	lz.groups = g
}

// lazyFails undoes what lazyIndexBase set up, for indexBase to hash the
// whole base instead.
func (d *Incremental) lazyFails() bool {
	d.lz = nil
	d.hoff = 0
	d.hash, d.tag, d.lh, d.fin, d.next = []uint64{voidTag}, []uint64{voidTag}, []uint64{voidTag}, []bool{true}, []uint32{0}
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
func (lz *lazyBase) anonCycle(roots []uint32, base *btf.Spec) bool {
	types, _, _ := base.Raw()
	const open, done = lzOpen, lzReady // borrowed, cleared below
	var seen []uint32
	defer func() {
		for _, x := range seen {
			lz.state[x] &^= open | done
		}
	}()
	var stack, pos []uint32
	var ws [][]uint32 // the words of each type on the stack (a sparse base counts them)
	for _, root := range roots {
		if lz.state[root]&done != 0 {
			continue
		}
		lz.state[root] |= open
		seen = append(seen, root)
		stack, pos, ws = append(stack[:0], root), append(pos[:0], 0), append(ws[:0], base.LocalExtra(int(root-1)))
		for len(stack) > 0 {
			top := len(stack) - 1
			x := stack[top]
			t, w := types[x-1], ws[top]
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
				stack, pos, ws = append(stack, c), append(pos, 0), append(ws, base.LocalExtra(int(c-1)))
				continue
			}
			lz.state[x] = lz.state[x]&^open | done
			stack, pos, ws = stack[:top], pos[:top], ws[:top]
		}
	}
	return false
}
