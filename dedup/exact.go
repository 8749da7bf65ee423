package dedup

import "github.com/btfstream/btfstream/btf"

// Resolving types by their exact resolved edges: single types outside any
// cycle, and, once a component's structs are settled, its other members.

// exact gives v the class whose label and resolved edges equal v's, if
// there is one (this batch's classes first, then the table's).
func (st *batchState) exact(v uint32) bool {
	n := st.bnode(v)
	k := numRefs(n.t, n.w)
	same := func(c uint32) bool {
		cn := st.nodeOf(c)
		if !labelEq(n, cn) {
			return false
		}
		for j := 0; j < k; j++ {
			if st.resolve(refAt(n.t, n.w, j)) != st.resolve(refAt(cn.t, cn.w, j)) {
				return false
			}
		}
		return true
	}
	h := st.bhash[v]
	for e := st.bindex.find(h, st.bhash, 1); e != 0; e = st.bnext[e-1] {
		if same(st.t0 + e - 1) {
			st.res[v] = st.t0 + e - 1
			st.fwdResolved(v)
			return true
		}
	}
	kept := st.kept != nil && st.kept[v]
	st.lazyChain(v, false)
	for c := st.d.chain(h); c != 0; c = st.d.nextOf(c) {
		if same(c) && !(kept && c < uint32(st.d.table.FirstID())) {
			st.res[v] = c
			st.fwdResolved(v)
			return true
		}
	}
	return false
}

// States of exactRefs, in low.
const (
	refOpen   = 1 // on the path
	refDone   = 2 // resolved, or certainly new
	refCyclic = 3 // on or above a cycle of members that are not structs
)

// exactRefs resolves the unresolved members of a component that are not
// structs or unions by their exact resolved edges, children first: once
// the structs are done, libbpf deduplicates reference types the same way.
// A member whose edge leads to a new member is new. Members on a cycle
// without a struct, and those above one, are left refCyclic.
func (st *batchState) exactRefs(members []uint32) {
	for _, m := range members {
		st.low[m] = 0
	}
	for _, m := range members {
		if k := st.kind(m); st.res[m] == none && k != btf.KindStruct && k != btf.KindUnion {
			st.exactRef(m)
		}
	}
}

func (st *batchState) exactRef(m uint32) uint32 {
	switch st.low[m] {
	case refOpen:
		return refCyclic
	case refDone, refCyclic:
		return st.low[m]
	}
	st.low[m] = refOpen
	t, w := st.typ(m)
	state, known := uint32(refDone), true
	for j, n := 0, numRefs(t, w); j < n; j++ {
		c := refAt(t, w, j)
		if c < st.t0 || st.res[c-st.t0] != none {
			continue
		}
		ci := c - st.t0
		if k := st.kind(ci); k == btf.KindStruct || k == btf.KindUnion {
			known = false // a new struct: m is new
			continue
		}
		switch st.exactRef(ci) {
		case refCyclic:
			state = refCyclic
		case refDone:
			known = known && st.res[ci] != none
		}
	}
	if state == refCyclic {
		st.low[m] = refCyclic
		return refCyclic
	}
	if known {
		st.exact(m)
	}
	st.low[m] = refDone
	return refDone
}
