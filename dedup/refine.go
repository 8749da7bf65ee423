package dedup

// refine splits r (members of one component that match no existing class,
// ascending) into classes of equivalent types by partition refinement
// (Moore's algorithm): start from blocks of equal label, hash and resolved
// edges; split a block whenever two of its types have an edge at the same
// position into different blocks; stop when a round splits nothing. The
// result is the coarsest partition stable under the edges, i.e. the
// bisimulation classes. Each block becomes a new class created by its first
// (lowest id) member.
func (st *batchState) refine(r []uint32) {
	for k, v := range r {
		st.aux[v] = uint32(k)
	}
	inR := func(c uint32) bool { return c >= st.t0 && st.res[c-st.t0] == none }

	blk := make([]uint32, len(r))
	nxt := make([]uint32, len(r))
	heads := make(map[uint64]uint32, len(r))

	// Initial blocks: equal structural hash, label and resolved edges;
	// edges into r are compared in the rounds.
	nblk := uint32(0)
	for k, v := range r {
		vn := st.nodeOf(st.t0 + v)
		h := st.bhash[v]
		found := false
		for e := heads[h]; e != 0; e = nxt[e-1] {
			un := st.nodeOf(st.t0 + r[e-1])
			if !labelEq(vn, un) {
				continue
			}
			eq := true
			for j, n := 0, numRefs(vn.t, vn.w); j < n && eq; j++ {
				a, b := refAt(vn.t, vn.w, j), refAt(un.t, un.w, j)
				ia, ib := inR(a), inR(b)
				eq = ia == ib && (ia || st.resolve(a) == st.resolve(b))
			}
			if eq {
				blk[k] = blk[e-1]
				found = true
				break
			}
		}
		if !found {
			blk[k] = nblk
			nblk++
			nxt[k] = heads[h]
			heads[h] = uint32(k) + 1
		}
	}

	// Rounds: the signature of a type is its block and the blocks of its
	// edges into r.
	next := make([]uint32, len(r))
	for {
		clear(heads)
		count := uint32(0)
		for k, v := range r {
			vn := st.nodeOf(st.t0 + v)
			nr := numRefs(vn.t, vn.w)
			h := uint64(blk[k])
			for j := 0; j < nr; j++ {
				if c := refAt(vn.t, vn.w, j); inR(c) {
					h = mix(h, uint64(blk[st.aux[c-st.t0]]))
				}
			}
			h = finalize(h)
			found := false
			for e := heads[h]; e != 0; e = nxt[e-1] {
				u := e - 1
				if blk[u] != blk[k] {
					continue
				}
				un := st.nodeOf(st.t0 + r[u])
				eq := true
				for j := 0; j < nr && eq; j++ {
					a := refAt(vn.t, vn.w, j)
					if inR(a) {
						eq = blk[st.aux[a-st.t0]] == blk[st.aux[refAt(un.t, un.w, j)-st.t0]]
					}
				}
				if eq {
					next[k] = next[u]
					found = true
					break
				}
			}
			if !found {
				next[k] = count
				count++
				nxt[k] = heads[h]
				heads[h] = uint32(k) + 1
			}
		}
		blk, next = next, blk
		if count == nblk {
			break
		}
		nblk = count
	}

	// Blocks become classes, created by their first member.
	if cap(st.creator) < int(nblk) {
		st.creator = make([]uint32, nblk)
	}
	creator := st.creator[:nblk]
	for i := range creator {
		creator[i] = none
	}
	for k, v := range r {
		if c := creator[blk[k]]; c != none {
			st.res[v] = st.t0 + c
		} else {
			creator[blk[k]] = v
		}
	}
	// Mark creators only now: inR must stay true for all of r above.
	for _, c := range creator {
		st.newClass(c, true)
	}
	for _, v := range r {
		st.aux[v] = none
	}
}
