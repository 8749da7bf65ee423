package dedup

import "github.com/btfstream/btfstream/btf"

// Indexing a base without deduplicating it.
//
// A base (vmlinux, for a module) is already deduplicated: in practice no
// two of its types are equivalent, and then the full batch run that
// indexBase used to do (components, hashes, and a resolution of every
// base type against the others, which finds nothing) only yields the
// hashes and the index. hashBase computes those directly: the label
// hashes in one pass, the tags by one depth-first search over the types
// that are not cut points (cutKey), the structural hashes in a last pass;
// the values are those of hashSingle and hashComponent, which depend on
// the graph only (a type's finiteness is whether its unfolding, cut at
// the cut points, reaches a cycle, whatever order the search takes). The
// index then shows which types share a hash; equivalent types do, so if
// no two types of one hash are bisimilar (baseBisimilar), the base has no
// duplicates, every type represents itself (canon stays nil), and the
// state is the full run's. Otherwise indexBase falls back to that run.
// Every edge is read once on the way, so hashBase also checks that each
// names a base type (checkRefs), which a batch run does first.

// Per-type states of hashBase's search.
const (
	hbNew  = 0 // not visited
	hbOpen = 1 // on the search's stack
	hbDone = 2 // tag and finiteness known
	hbCut  = 3 // a cut point: tag and label signature are its cutKey
)

// hashBase fills d.hash, d.tag, d.lh, d.fin (sized 1+n, void's entries
// set) and the index with its chain links for the base's n types. It
// reports false, with the index in an unspecified state, if two base types
// may be equivalent: indexBase then runs the full batch. An edge to no
// type is checkRefs' error.
func (d *Incremental) hashBase() (bool, error) {
	base := d.base
	n := base.Len()
	v := viewOf(base.Strings())
	// Base ids are 1 to n: type id is types[id-1], read in place.
	types, _, _ := base.Raw()
	typ := func(id uint32) (btf.Type, []uint32) {
		return types[id-1], base.LocalExtra(int(id - 1))
	}
	state := make([]uint8, 1+n)
	state[0] = hbDone
	// Label hashes; cut points get their key as tag (kept apart until the
	// hashes are done, which mix the label hash).
	for id := 1; id <= n; id++ {
		t, w := typ(uint32(id))
		nd := node{t, w, &v}
		d.lh[id] = labelHash(nd)
		if key, cut := cutKey(nd); cut {
			d.tag[id], d.fin[id] = key, true
			state[id] = hbCut
		}
	}
	sig := func(c uint32) uint64 { // the label signature a parent reads
		if state[c] == hbCut {
			return d.tag[c]
		}
		return d.lh[c]
	}
	// Tags and finiteness of the others, children first.
	var stack, pos []uint32
	for root := 1; root <= n; root++ {
		if state[root] != hbNew {
			continue
		}
		state[root], d.fin[root] = hbOpen, true
		stack, pos = append(stack[:0], uint32(root)), append(pos[:0], 0)
		for len(stack) > 0 {
			top := len(stack) - 1
			x := stack[top]
			t, w := typ(x)
			if j := int(pos[top]); j < numRefs(t, w) {
				pos[top]++
				c := refAt(t, w, j)
				if c > uint32(n) {
					return false, checkRefs(base)
				}
				switch state[c] {
				case hbNew:
					state[c], d.fin[c] = hbOpen, true
					stack, pos = append(stack, c), append(pos, 0)
				case hbOpen:
					d.fin[x] = false
				default:
					d.fin[x] = d.fin[x] && d.fin[c]
				}
				continue
			}
			stack, pos = stack[:top], pos[:top]
			state[x] = hbDone
			h := d.lh[x]
			if d.fin[x] {
				for j, k := 0, numRefs(t, w); j < k; j++ {
					h = mix(h, d.tag[refAt(t, w, j)])
				}
			} else {
				for j, k := 0, numRefs(t, w); j < k; j++ {
					h = mix(h, sig(refAt(t, w, j)))
				}
			}
			d.tag[x] = finalize(h)
			if top > 0 {
				p := stack[top-1]
				d.fin[p] = d.fin[p] && d.fin[x]
			}
		}
	}
	// Structural hashes, and the index in id order as commitBase links it
	// (a type whose hash an older one has may be its duplicate); then cut
	// points sign with their key.
	var shared []uint32
	for id := 1; id <= n; id++ {
		t, w := typ(uint32(id))
		var h uint64
		if state[id] != hbCut && d.fin[id] {
			h = d.tag[id] // the same sum (Merkle tag)
		} else {
			h = d.lh[id]
			for j, k := 0, numRefs(t, w); j < k; j++ {
				c := refAt(t, w, j)
				if c > uint32(n) { // a cut point's edges are read here only
					return false, checkRefs(base)
				}
				h = mix(h, d.tag[c])
			}
			h = finalize(h)
		}
		d.hash[id] = h
		if state[id] == hbCut {
			d.lh[id] = d.tag[id]
		}
		if d.neverMerged(t.Kind()) {
			d.next = append(d.next, 0)
			continue
		}
		p := d.index.put(h, uint32(id), d.hash, 0)
		d.next = append(d.next, p)
		if p != 0 {
			shared = append(shared, uint32(id))
		}
	}
	if len(shared) == 0 {
		return true, nil
	}
	seen := make(map[uint64]bool)
	for _, x := range shared {
		for c := d.next[x]; c != 0; c = d.next[c] {
			if d.baseBisimilar(x, c, &v, seen) {
				return false, nil
			}
		}
	}
	return true, nil
}

// baseBisimilar reports whether base types a and b are equivalent as the
// base's own batch run decides (no forward declaration stands for
// anything; VAR and DATASEC are never merged): equal labels, and edges,
// position by position, leading to equivalent types. It assumes the pairs
// it meets again hold (a greatest fixed point); seen is scratch. Hashes
// tell most pairs apart (made on demand for a base indexed so).
func (d *Incremental) baseBisimilar(a, b uint32, v *strView, seen map[uint64]bool) bool {
	clear(seen)
	stack := [][2]uint32{{a, b}}
	seen[uint64(a)<<32|uint64(b)] = true
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := p[0], p[1]
		tx, wx := d.base.Type(btf.TypeID(x)), d.base.Extra(btf.TypeID(x))
		ty, wy := d.base.Type(btf.TypeID(y)), d.base.Extra(btf.TypeID(y))
		k := tx.Kind()
		if x == 0 || y == 0 || k != ty.Kind() || d.neverMerged(k) || d.exHash(x) != d.exHash(y) ||
			!labelEq(node{tx, wx, v}, node{ty, wy, v}) {
			return false
		}
		for j, m := 0, numRefs(tx, wx); j < m; j++ {
			cx, cy := refAt(tx, wx, j), refAt(ty, wy, j)
			if cx == cy {
				continue
			}
			if key := uint64(cx)<<32 | uint64(cy); !seen[key] {
				seen[key] = true
				stack = append(stack, [2]uint32{cx, cy})
			}
		}
	}
	return true
}
