package dedup

import "github.com/btfstream/btfstream/btf"

// Equivalence checks between a batch type and a candidate class: a
// greatest fixed point over pairs, computed depth-first with Tarjan's
// algorithm and memoised (see the package documentation, "Comparing a
// batch type with a candidate").

// Pair states.
const (
	pairOK   uint8 = 1 // may be equivalent (valid while the epoch lasts)
	pairAdj  uint8 = 2 // equivalent only if a base FWD stood for a struct outside the base
	pairFail uint8 = 3 // not equivalent (valid for the rest of the batch)
	pairOpen uint8 = 4 // on the stack of the check in progress
)

// pairNode is one memoised pair: left a (a batch type or an existing id,
// read as it is written) against right b (a class, read through resolved
// forward declarations). 32 bytes.
type pairNode struct {
	a, b     uint32
	epoch    uint32 // OK and ADJ hold while it equals the batch's epoch
	idx, low uint32 // Tarjan numbers while open
	slot     uint32 // index slot, to clear it
	mark     uint32 // commit that visited it last
	state    uint8
	adj      bool
}

// pairFrame is a pair being explored, with the next edge to look at.
type pairFrame struct {
	n      uint32
	j, end int32
	na, nb node
}

// walkStats counts the work of the equivalence checks, for tests and
// benchmarks: checks started, pairs explored (each costs one visit of its
// edges), edges looked at, commits, and epochs (OK results forgotten).
type walkStats struct {
	checks, nodes, edges, commits, epochs int
	// replayed and resolved count the components of batches resolved
	// against a snapshot that AddPrepared replayed and resolved itself.
	// partial counts the batches that had both.
	replayed, resolved, partial int
}

// pairMemo is an open-addressing index from (a, b) to its pairNode.
type pairMemo struct {
	slots []uint32 // node index + 1; 0 empty
	nodes []pairNode
}

func pairHash(a, b uint32) uint64 { return finalize(uint64(a)<<32 | uint64(b)) }

// reset empties the memo; it costs the number of pairs it held.
func (m *pairMemo) reset() {
	for i := range m.nodes {
		m.slots[m.nodes[i].slot] = 0
	}
	m.nodes = m.nodes[:0]
}

// find returns the node of (a, b), or none.
func (m *pairMemo) find(a, b uint32) uint32 {
	if len(m.slots) == 0 {
		return none
	}
	mask := uint64(len(m.slots) - 1)
	for i := pairHash(a, b) & mask; ; i = (i + 1) & mask {
		v := m.slots[i]
		if v == 0 {
			return none
		}
		if p := &m.nodes[v-1]; p.a == a && p.b == b {
			return v - 1
		}
	}
}

// add creates the node of (a, b), which must not exist.
func (m *pairMemo) add(a, b uint32) uint32 {
	if 2*(len(m.nodes)+1) > len(m.slots) {
		m.grow()
	}
	n := uint32(len(m.nodes))
	m.nodes = append(m.nodes, pairNode{a: a, b: b, slot: m.place(a, b, n)})
	return n
}

func (m *pairMemo) place(a, b, n uint32) uint32 {
	mask := uint64(len(m.slots) - 1)
	i := pairHash(a, b) & mask
	for m.slots[i] != 0 {
		i = (i + 1) & mask
	}
	m.slots[i] = n + 1
	return uint32(i)
}

func (m *pairMemo) grow() {
	size := max(64, 2*len(m.slots))
	m.slots = make([]uint32, size)
	for i := range m.nodes {
		p := &m.nodes[i]
		p.slot = m.place(p.a, p.b, uint32(i))
	}
}

// fwdRank tells what a type can stand for or be stood for by: a struct or
// union FWD, or an enum without values (fwd true), or a complete named
// STRUCT, UNION, ENUM or ENUM64 (fwd false); cls is fwdStruct, fwdUnion or
// fwdEnum, and 0xff for anything else.
func fwdRank(n node) (cls uint8, fwd bool) {
	switch n.t.Kind() {
	case btf.KindFwd:
		if n.t.KindFlag() {
			return fwdUnion, true
		}
		return fwdStruct, true
	case btf.KindStruct:
		return fwdStruct, false
	case btf.KindUnion:
		return fwdUnion, false
	case btf.KindEnum, btf.KindEnum64:
		return fwdEnum, n.t.Vlen() == 0
	}
	return 0xff, false
}

// isFwd reports whether n is a forward declaration: a FWD, or an ENUM or
// ENUM64 without values.
func isFwd(n node) bool {
	_, fwd := fwdRank(n)
	return fwd
}

// leftClass returns the class of a left element, or none for an
// unresolved batch type.
func (st *batchState) leftClass(a uint32) uint32 {
	if a < st.t0 {
		return a // existing ids on the left are canonical already
	}
	return st.res[a-st.t0]
}

// leftRef returns edge j of a left element as written (canonical if it
// names an existing id).
func (st *batchState) leftRef(n node, j int) uint32 {
	c := refAt(n.t, n.w, j)
	if c < st.t0 {
		return st.d.canonEx(c)
	}
	return c
}

// rightRef returns edge j of right element b (whose node is n) as a
// class, through resolved forward declarations, in b's view (see
// moduleView).
func (st *batchState) rightRef(b uint32, n node, j int) uint32 {
	c := st.elem(refAt(n.t, n.w, j))
	if !st.twins || c == 0 {
		return c
	}
	// c is a base id (below the table's first) read below a module class
	// when b is a module class (at or past the first) or a base id already
	// read in the module view.
	if first := uint32(st.d.table.FirstID()); c < first && (b&moduleView != 0 || b >= first) {
		// Only base STRUCTs and UNIONs have twins.
		if k := st.header(c).Kind(); k == btf.KindStruct || k == btf.KindUnion {
			if k, ok := st.twinOf(c); ok {
				return k
			}
		}
		return c | moduleView
	}
	return c
}

// header returns the header of an existing id (below t0), read as nodeOf
// reads it.
func (st *batchState) header(id uint32) btf.Type {
	if i := id - st.tv.first; i < uint32(len(st.tv.types)) {
		return st.tv.types[i]
	}
	if i := id - st.basev.first; i < uint32(len(st.basev.types)) {
		return st.basev.types[i]
	}
	return st.d.table.Type(btf.TypeID(id))
}

// moduleView marks a base id on the right of a pair as read below a
// module class: a base struct with a kept module twin (twinOf) reads as
// that twin there, as libbpf, walking a module candidate's own unit, meets
// the unit's struct (see the package documentation, "Modules: the
// module's view of base types"). Ids stay below 1<<31 (batch ids start at
// 1<<30).
const moduleView = 1 << 31

// twinOf returns the module struct kept apart from base struct c, if any:
// a table class, or this batch's kept type (first come).
func (st *batchState) twinOf(c uint32) (uint32, bool) {
	if k, ok := st.d.twin[c]; ok {
		return k, true
	}
	if k, ok := st.btwin[c]; ok {
		return st.classOr(k), true
	}
	return 0, false
}

// hashKnown reports whether id's structural hash has been computed: existing
// ids, and batch types whose component has been reached.
func (st *batchState) hashKnown(id uint32) bool { return id < st.t0 || st.idx[id-st.t0] == none }

// pairOf classifies the pair (a, b): a leaf result (OK, ADJ or FAIL) with
// node none, or the pair's node with its state (0: to explore, which
// includes OK and ADJ results of an earlier epoch). With create false,
// a pair that has no node yet is reported as (0, none).
func (st *batchState) pairOf(a, b uint32, create bool) (uint8, uint32) {
	b0 := b &^ moduleView
	if a == b0 || st.leftClass(a) == b0 {
		return pairOK, none
	}
	if a == 0 || b0 == 0 {
		return pairFail, none
	}
	// A pair met before has equal labels and hashes: only nodes have
	// memo entries.
	if i := st.pm.find(a, b); i != none {
		p := &st.pm.nodes[i]
		if p.state == pairFail || p.state == pairOpen || p.epoch == st.epoch {
			return p.state, i
		}
		return 0, i
	}
	na, nb := st.nodeOf(a), st.nodeOf(b0)
	if isFwd(na) || isFwd(nb) {
		return st.fwdPair(a, b0, na, nb), none
	}
	k := na.t.Kind()
	if k != nb.t.Kind() || st.d.neverMerged(k) || !labelEq(na, nb) {
		return pairFail, none
	}
	if !st.noHash && st.hashKnown(a) && st.hashKnown(b0) && st.hashOf(a) != st.hashOf(b0) {
		return pairFail, none
	}
	if numRefs(na.t, na.w) == 0 {
		return pairOK, none
	}
	if !create {
		return 0, none
	}
	return 0, st.pm.add(a, b)
}

// fwdPair classifies a pair of which at least one side is a forward
// declaration: a FWD and the STRUCT or UNION (as its kind_flag says) of
// its name, or an enum without values and an ENUM or ENUM64 of its name,
// stand for each other, as do two such declarations of one name. A base
// FWD on the right opposite a struct on the left gives ADJ: they would be
// equivalent only if the base changed (libbpf's hypot_adjust_canon).
// Without FWD resolution (Compare, the base), only equal labels match.
func (st *batchState) fwdPair(a, b uint32, na, nb node) uint8 {
	if !st.fwdOK {
		if na.t.Kind() == nb.t.Kind() && labelEq(na, nb) {
			return pairOK
		}
		return pairFail
	}
	ca, fa := fwdRank(na)
	cb, fb := fwdRank(nb)
	if ca != cb || ca == 0xff || na.t.NameOff == 0 || nb.t.NameOff == 0 ||
		!strEq(na.s, nb.s, uint32(na.t.NameOff), uint32(nb.t.NameOff)) {
		return pairFail
	}
	if fa && fb && ca != fwdEnum && na.t.Info != nb.t.Info {
		return pairFail
	}
	if fb && !fa && ca != fwdEnum && b < uint32(st.d.table.FirstID()) {
		return pairAdj
	}
	return pairOK
}

// check reports whether left a may be equivalent to right b: OK when the
// pairs reachable from (a, b) hold no conflict, ADJ when they hold none
// but a base FWD opposite a struct outside the base, FAIL otherwise. Every
// pair explored is memoised: FAIL for the rest of the batch, OK and ADJ
// for the epoch. The pairs form a graph (a pair's successors are the pairs
// of its edges); its strongly connected components, found by Tarjan's
// algorithm, are decided together: a component fails if any pair in it
// reaches a conflict, and when one is found every pair still on the stack
// reaches it, so all of them fail at once.
func (st *batchState) check(a, b uint32) uint8 {
	stats := &st.d.stats
	stats.checks++
	r, i := st.pairOf(a, b, true)
	if i == none || r != 0 {
		return r
	}
	frames, tstack := st.pframes[:0], st.ptstack[:0]
	counter := uint32(0)
	open := func(i uint32) {
		counter++
		p := &st.pm.nodes[i]
		p.state, p.adj, p.idx, p.low = pairOpen, false, counter, counter
		na, nb := st.nodeOf(p.a), st.nodeOf(p.b&^moduleView)
		frames = append(frames, pairFrame{n: i, end: int32(numRefs(na.t, na.w)), na: na, nb: nb})
		tstack = append(tstack, i)
		stats.nodes++
	}
	open(i)
	root := i
	for len(frames) > 0 {
		f := &frames[len(frames)-1]
		if f.j < f.end {
			j := int(f.j)
			f.j++
			stats.edges++
			r, c := st.pairOf(st.leftRef(f.na, j), st.rightRef(st.pm.nodes[f.n].b, f.nb, j), true)
			switch r {
			case pairFail:
				// Everything on the stack reaches this conflict.
				for _, m := range tstack {
					st.pm.nodes[m].state = pairFail
				}
				st.pframes, st.ptstack = frames[:0], tstack[:0]
				return pairFail
			case pairAdj:
				st.pm.nodes[f.n].adj = true
			case pairOpen:
				if p := &st.pm.nodes[f.n]; st.pm.nodes[c].idx < p.low {
					p.low = st.pm.nodes[c].idx
				}
			case 0:
				open(c)
			}
			continue
		}
		n := f.n
		frames = frames[:len(frames)-1]
		p := st.pm.nodes[n]
		if p.low == p.idx {
			// A component of pairs: decided together.
			k := len(tstack)
			adj := false
			for {
				k--
				adj = adj || st.pm.nodes[tstack[k]].adj
				if tstack[k] == n {
					break
				}
			}
			s := pairOK
			if adj {
				s = pairAdj
			}
			for _, m := range tstack[k:] {
				st.pm.nodes[m].state, st.pm.nodes[m].epoch = s, st.epoch
			}
			tstack = tstack[:k]
			if len(frames) > 0 && adj {
				st.pm.nodes[frames[len(frames)-1].n].adj = true
			}
		} else if len(frames) > 0 {
			q := &st.pm.nodes[frames[len(frames)-1].n]
			q.low = min(q.low, p.low)
			q.adj = q.adj || p.adj
		}
	}
	st.pframes, st.ptstack = frames, tstack
	return st.pm.nodes[root].state
}

// match tries batch type v against class c: if check finds them OK, the
// pairs they reach are committed. It reports whether v got a class.
func (st *batchState) match(v, c uint32) bool {
	if st.kept != nil && st.kept[v] && c < uint32(st.d.table.FirstID()) {
		return false // kept apart from the base (see adjustBase)
	}
	if st.kind(v) == btf.KindTypedef && c < uint32(st.d.table.FirstID()) {
		// libbpf 1.7 hashes a split typedef by name and kind, a base one
		// with its target too: a module typedef is never checked against
		// the base's, so it resolves no base FWD (doc.go, "Modules: typedefs
		// are not checked against the base"). Identical copies still fold
		// by their exact edges.
		return false
	}
	if st.check(st.t0+v, c) != pairOK {
		return false
	}
	st.commitPair(st.t0+v, c)
	if st.res[v] == none && st.kind(v) == btf.KindTypedef {
		// A check settles structs and unions, and the typedef it began at.
		all := st.assignAll
		st.assignAll = true
		st.assign(st.t0+v, c)
		st.assignAll = all
	}
	return st.res[v] != none
}

// commitPair makes the OK pair (a, b) and all it reaches final: an
// unresolved batch type on the left takes the class opposite it (first
// come), a forward declaration opposite a complete type is resolved to it
// (first come, fwdTo). A pair is visited once per epoch: visiting it again
// would find its types assigned and its declarations resolved already.
func (st *batchState) commitPair(a, b uint32) {
	st.d.stats.commits++
	st.bump = false
	st.assign(a, b)
	i := st.pm.find(a, b)
	if i == none || st.pm.nodes[i].mark == st.stamp {
		return // a leaf (no edges), or committed in this epoch
	}
	stack := append(st.ptstack[:0], i)
	st.pm.nodes[i].mark = st.stamp
	for len(stack) > 0 {
		p := st.pm.nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		na, nb := st.nodeOf(p.a), st.nodeOf(p.b&^moduleView)
		for j, k := 0, numRefs(na.t, na.w); j < k; j++ {
			x, y := st.leftRef(na, j), st.rightRef(p.b, nb, j)
			y0 := y &^ moduleView
			if x == y0 || st.leftClass(x) == y0 {
				continue
			}
			// Every pair below an OK pair that is not a leaf has a node:
			// a check met it in this epoch.
			c := st.pm.find(x, y)
			if c == none {
				// A leaf: two types without edges, or a forward
				// declaration and what it stands for.
				st.resolveFwd(x, y0)
				continue
			}
			if q := &st.pm.nodes[c]; q.mark != st.stamp {
				q.mark = st.stamp
				st.assign(x, y0)
				stack = append(stack, c)
			}
		}
	}
	st.ptstack = stack[:0]
	if st.bump {
		st.newEpoch()
	}
}

// newEpoch forgets OK and ADJ results and commit marks: what the pairs
// read has changed.
func (st *batchState) newEpoch() {
	st.epoch++
	st.stamp++
	st.d.stats.epochs++
}

// assign gives an unresolved batch type a the class b, if a is a STRUCT
// or UNION (or assignAll), b is a class, and a is not kept apart from
// the base (adjustBase). As in libbpf, a check settles structs and unions;
// other types are settled by their exact resolved edges (exactRefs).
func (st *batchState) assign(a, b uint32) {
	if a < st.t0 || st.res[a-st.t0] != none || !st.isClass(b) {
		return
	}
	i := a - st.t0
	if k := st.kind(i); !st.assignAll && k != btf.KindStruct && k != btf.KindUnion {
		return
	}
	if st.kept != nil && st.kept[i] && b < uint32(st.d.table.FirstID()) {
		return
	}
	st.res[i] = b
	if st.fwdTarget != nil && st.fwdTarget[i] {
		st.bump = true // a resolved FWD read through i now reads its class
	}
}

// resolveFwd records, for a leaf pair of a forward declaration and a
// complete type, what the declaration stands for (first come). Enum
// declarations are not resolved by the pairs they are met in, as in
// libbpf (btf_dedup_merge_hypot_map maps only FWDs): they stand for any
// enum of their name and kind there, and Finish resolves them (enumfwd.go).
func (st *batchState) resolveFwd(x, y uint32) {
	nx, ny := st.nodeOf(x), st.nodeOf(y)
	if c, _ := fwdRank(nx); c == fwdEnum {
		return
	}
	fx, fy := isFwd(nx), isFwd(ny)
	switch {
	case fy && !fx:
		st.setFwd(y, st.classOr(x))
	case fx && !fy:
		if c := st.classOr(x); st.isClass(c) && isFwd(st.nodeOf(c)) {
			st.setFwd(c, y)
		}
	}
}

// setFwd records that FWD class f stands for s, unless f already stands
// for something.
func (st *batchState) setFwd(f, s uint32) {
	d := st.d
	if f == 0 {
		return
	}
	if _, done := st.fwdOf(f); done {
		return
	}
	if d.fwdTo == nil {
		d.fwdTo = make(map[uint32]uint32)
	}
	d.fwdTo[f] = s
	st.fwdAdded = append(st.fwdAdded, fwdEntry{f, s})
	if f >= st.t0 || s >= st.t0 {
		st.fwdNew = append(st.fwdNew, f)
	}
	if s >= st.t0 && st.res[s-st.t0] == none {
		st.markFwdTarget(s - st.t0)
	}
	st.bump = true
}

// markFwdTarget notes that a resolved FWD reads batch type i: when i gets
// its class, what the FWD reads changes, and OK results are forgotten.
func (st *batchState) markFwdTarget(i uint32) {
	if st.fwdTarget == nil {
		st.fwdTarget = make([]bool, st.n)
	}
	st.fwdTarget[i] = true
}
