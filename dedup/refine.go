package dedup

// refineScratch holds refine's buffers between calls.
type refineScratch struct {
	r       []uint32 // the members to refine
	blk     []uint32
	next    []uint32
	nxt     []uint32 // next older representative + 1 with the same hash
	rh      []uint64 // signature hash of a block representative
	heads   hindex   // newest block representative (position in r + 1) by signature hash
	creator []uint32
}

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

	rf := &st.rf
	rf.blk = resize(rf.blk, len(r))
	rf.next = resize(rf.next, len(r))
	rf.rh = resize(rf.rh, len(r))
	rf.nxt = resize(rf.nxt, len(r))
	blk, rh, nxt, heads := rf.blk, rf.rh, rf.nxt, &rf.heads
	heads.reset(len(r))

	// Initial blocks: equal structural hash, label and resolved edges;
	// edges into r are compared in the rounds.
	nblk := uint32(0)
	for k, v := range r {
		vn := st.bnode(v)
		h := st.bhash[v]
		found := false
		for e := heads.find(h, rh, 1); e != 0; e = nxt[e-1] {
			un := st.bnode(r[e-1])
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
			rh[k] = h
			nxt[k] = heads.put(h, uint32(k)+1, rh, 1)
		}
	}

	// Rounds: the signature of a type is its block and the blocks of its
	// edges into r.
	next := rf.next
	for {
		heads.reset(len(r))
		count := uint32(0)
		for k, v := range r {
			vn := st.bnode(v)
			nr := numRefs(vn.t, vn.w)
			h := uint64(blk[k])
			for j := 0; j < nr; j++ {
				if c := refAt(vn.t, vn.w, j); inR(c) {
					h = mix(h, uint64(blk[st.aux[c-st.t0]]))
				}
			}
			h = finalize(h)
			found := false
			for e := heads.find(h, rh, 1); e != 0; e = nxt[e-1] {
				u := e - 1
				if blk[u] != blk[k] {
					continue
				}
				un := st.bnode(r[u])
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
				rh[k] = h
				nxt[k] = heads.put(h, uint32(k)+1, rh, 1)
			}
		}
		blk, next = next, blk
		if count == nblk {
			break
		}
		nblk = count
	}

	// Blocks become classes, created by their first member.
	rf.blk, rf.next = blk, next
	rf.creator = fill(rf.creator, int(nblk), none)
	creator := rf.creator
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
