package dedup

// The hashes of a batch's types: a type outside any cycle is hashed from
// its label and its children's tags (hashSingle); the members of a
// strongly connected component together, from labels around the cycle
// (hashComponent). What the hashes mean: doc.go, "Algorithm", step 2.

// hashSingle computes the label hash, tag, finiteness and hash of a type
// outside any cycle, whose edges lead to hashed types.
func (st *batchState) hashSingle(v uint32) {
	n := st.bnode(v)
	lh := labelHash(n)
	h, tag, fin := lh, lh, true
	for _, c := range st.out(v) {
		h = mix(h, st.tagOf(c))
		tag = mix(tag, st.lhOf(c))
		fin = fin && st.finOf(c)
	}
	h = finalize(h)
	st.bhash[v], st.fin[v], st.blh[v] = h, fin, lh
	if key, cut := cutKey(n); cut {
		st.btag[v], st.blh[v], st.fin[v] = key, key, true
	} else if fin {
		st.btag[v] = h
	} else {
		st.btag[v] = finalize(tag)
	}
}

// hashComponent computes the label hashes, tags, finiteness and hashes
// of the members of a cyclic component. Named structs, unions and FWDs
// are cut points (their tag is cutKey); every other member whose
// unfolding, cut there, is finite gets a Merkle tag (its hash), computed
// children first by a depth-first search over the members that are not
// cut points; the others (cycles with no named aggregate, which C cannot
// produce) get a one-level unfolding as tag. low is free scratch here:
// 0 unvisited, 1 on the stack, 2 done.
func (st *batchState) hashComponent(members []uint32) {
	for _, m := range members {
		n := st.bnode(m)
		st.low[m] = 0
		if key, cut := cutKey(n); cut {
			st.btag[m], st.blh[m], st.fin[m] = key, key, true
			st.low[m] = 2
		} else {
			st.blh[m] = labelHash(n)
			st.fin[m] = true
		}
	}
	// Depth-first, children first, over the members that are not cut.
	stack := st.hstack[:0]
	pos := st.hpos[:0]
	for _, root := range members {
		if st.low[root] != 0 {
			continue
		}
		st.low[root] = 1
		stack, pos = append(stack, root), append(pos, 0)
		for len(stack) > 0 {
			top := len(stack) - 1
			m := stack[top]
			out := st.out(m)
			if j := int(pos[top]); j < len(out) {
				pos[top]++
				c := out[j]
				if c < st.t0 || st.res[c-st.t0] != none {
					st.fin[m] = st.fin[m] && st.finOf(c)
					continue
				}
				ci := c - st.t0
				switch st.low[ci] {
				case 0:
					st.low[ci] = 1
					stack, pos = append(stack, ci), append(pos, 0)
				case 1:
					st.fin[m] = false
				case 2:
					st.fin[m] = st.fin[m] && st.fin[ci]
				}
				continue
			}
			stack, pos = stack[:top], pos[:top]
			st.low[m] = 2
			if st.fin[m] {
				h := st.blh[m]
				for _, c := range out {
					h = mix(h, st.tagOf(c))
				}
				st.btag[m] = finalize(h)
			}
			if top > 0 {
				p := stack[top-1]
				st.fin[p] = st.fin[p] && st.fin[m]
			}
		}
	}
	st.hstack, st.hpos = stack[:0], pos[:0]
	for _, m := range members {
		if st.fin[m] {
			continue
		}
		tag := st.blh[m]
		for _, c := range st.out(m) {
			tag = mix(tag, st.lhOf(c))
		}
		st.btag[m] = finalize(tag)
	}
	for _, m := range members {
		// blh is the label hash computed above, except for cut points,
		// whose blh is their key, as is their tag (for any other member
		// blh == btag is a hash collision, and recomputing is still right).
		h := st.blh[m]
		if st.btag[m] == h {
			h = labelHash(st.bnode(m))
		}
		for _, c := range st.out(m) {
			h = mix(h, st.tagOf(c))
		}
		st.bhash[m] = finalize(h)
	}
}
