package dedup

import (
	"slices"

	"github.com/btfstream/btfstream/btf"
)

// batchState is the working set of one batch. The Incremental keeps it
// and reuses its buffers for the next batch, so a run of batches costs no
// allocation once the largest batch has been seen. Every per-type slice is
// indexed by the batch-local index i = id - t0.
type batchState struct {
	d  *Incremental
	t0 uint32
	n  int
	bs strView  // the batch's strings
	ts strView  // the table's (and base's) strings
	bv *strView // &bs, or &ts when the batch shares the table's strings

	// The table's and the base's types as the batch began, read in place
	// by nodeOf (the table grows only in commit).
	tv, basev typesView

	// The batch's types: copied in here, or borrowed (a Spec's or a
	// Prepared's, read in place). Edges >= t0 are batch ids.
	types []btf.Type
	at    []uint32 // at[i]: index in words of type i's extra words; n+1 entries
	words []uint32

	res   []uint32 // class of i: an existing id, or t0+creator for a new class; none until resolved
	bhash []uint64 // structural hash
	btag  []uint64 // tag parents mix in
	blh   []uint64 // label hash
	fin   []bool
	idx   []uint32 // Tarjan dfs number; none once the SCC is done; final id of creators in commit
	low   []uint32 // Tarjan lowlink
	aux   []uint32 // position in R during refinement

	// The batch's edges, listed once by run (ForEachRef order): type i's
	// are edges[eat[i]:eat[i+1]]. Tarjan and hashing read them here
	// instead of decoding each type's words again.
	eat, edges []uint32
	listed     bool // eat and edges hold this batch's (Prepare's moveList)

	bindex  hindex   // newest creator (local index + 1) by hash
	bnext   []uint32 // by creator: next older creator + 1 with the same hash
	scc     []uint32
	callN   []uint32
	callJ   []uint32
	hstack  []uint32 // hashComponent's depth-first search
	cstack  []uint64 // pairCopy's: pairs to explore, pairs explored
	cseen   pairSet
	cpaired []uint32
	copies  int // components pairCopy settled (tests)
	hpos    []uint32
	scratch []uint32
	rf      refineScratch

	// Equivalence checks (equiv.go): the pair memo, the check's stacks,
	// the epoch (OK results of earlier epochs are stale), the commit
	// stamp (pairs committed since it changed are not visited again), and
	// whether the current commit ends the epoch.
	pm        pairMemo
	pframes   []pairFrame
	ptstack   []uint32
	epoch     uint32
	stamp     uint32
	bump      bool
	noHash    bool       // hashes not computed yet (adjustBase runs before them)
	fwdNew    []uint32   // fwdTo keys recorded by this batch that involve batch ids
	fwdAdded  []fwdEntry // every fwdTo entry this batch added, in order
	fwdOK     bool       // FWD <-> STRUCT/UNION equivalence applies
	fwdTarget []bool     // by batch index: a resolved FWD reads this unresolved type

	// Split mode (adjust.go): batch types kept apart from the base.
	kept      []bool
	assignAll bool // commits give classes to all types, not only structs
	// btwin: base struct -> the batch type first kept apart from it;
	// twins: the table or the batch has such twins (moduleView).
	btwin map[uint32]uint32
	twins bool

	prep *Prepared // set while preparing a batch (prepare.go): hash and record only
	// borrowed: types, words and at, and borrowedHashes: the hashes, are a
	// Prepared's, read in place; own keeps the state's own buffers.
	borrowed, borrowedHashes bool
	own                      ownBuffers
	// rec, while a Resolver resolves a batch against a snapshot
	// (snapshot.go), records what replaying it needs.
	rec *preResolution
	// rs is AddPrepared's state while it takes a batch resolved elsewhere.
	rs replayState
}

// batch returns the reused batch state, emptied for a batch whose first id
// is t0 and whose strings are strs. Types are then added with add.
func (d *Incremental) batch(t0 uint32, strs *btf.Strings) *batchState {
	return d.batchAdopt(t0, strs, true)
}

// batchAdopt is batch; adopt says whether an empty table may adopt strs.
func (d *Incremental) batchAdopt(t0 uint32, strs *btf.Strings, adopt bool) *batchState {
	st := d.st
	if st == nil {
		st = &batchState{d: d}
		d.st = st
	}
	st.d = d // a Preparer's Resolver shares its state
	// A table without base and without types adopts the string table of
	// its first batch, if that has no base: it is then shared, not copied.
	if adopt && d.base == nil && d.table.Len() == 0 && strs != nil && strs.Base() == nil {
		d.table.SetStrings(strs)
		d.shared = true
	} else if d.shared && strs != d.table.Strings() {
		d.unshare()
	}
	st.unborrow()
	st.t0, st.n = t0, 0
	st.fwdOK = !d.mergeAll
	st.fwdNew, st.fwdAdded = st.fwdNew[:0], st.fwdAdded[:0]
	st.pm.reset()
	st.stamp = 1 // new pairs have mark 0
	st.fwdTarget, st.kept = nil, nil
	st.btwin, st.twins = nil, len(d.twin) > 0
	st.tv, st.basev = typesOf(d.table), typesView{}
	if d.base != nil {
		st.basev = typesOf(d.base)
	}
	st.ts = viewOf(d.table.Strings())
	st.ts.shared = d.table.Strings().Len()
	st.bv = &st.ts
	if strs != d.table.Strings() {
		st.bs = viewOf(strs)
		if strs.Base() == d.table.Strings() {
			st.bs.shared = st.bs.baseLn
		}
		st.bv = &st.bs
	}
	st.types, st.words = st.types[:0], st.words[:0]
	st.at = append(st.at[:0], 0)
	return st
}

// reserve sizes the reused batch state, exactly, for batches of up to n
// types with words extra words in all.
func (d *Incremental) reserve(n, words int) {
	if d.st == nil {
		d.st = &batchState{d: d}
	}
	st := d.st
	st.unborrow()
	if cap(st.types) < n {
		st.types = make([]btf.Type, 0, n)
		st.at = make([]uint32, 0, n+1)
		st.res, st.aux, st.idx, st.low, st.bnext = make([]uint32, n), make([]uint32, n), make([]uint32, n), make([]uint32, n), make([]uint32, n)
		st.bhash, st.btag, st.blh, st.fin = make([]uint64, n), make([]uint64, n), make([]uint64, n), make([]bool, n)
	}
	if cap(st.words) < words {
		st.words = make([]uint32, 0, words)
	}
}

// ownBuffers are a batch state's buffers put aside while it borrows.
type ownBuffers struct {
	types            []btf.Type
	words, at        []uint32
	bhash, btag, blh []uint64
	fin              []bool
}

// borrow makes p's types (ids from batchBase) the batch's, read in place.
func (st *batchState) borrow(p *Prepared) { st.borrowTypes(p.types, p.at, p.words) }

// borrowTypes makes types (words[at[i]:at[i+1]] are type i's words) the
// batch's, read in place.
func (st *batchState) borrowTypes(types []btf.Type, at, words []uint32) {
	if !st.borrowed {
		st.own.types, st.own.words, st.own.at = st.types, st.words, st.at
		st.borrowed = true
	}
	st.types, st.words, st.at = types, words, at
}

// borrowHashes makes p's hashes the batch's (after ready), read in place.
func (st *batchState) borrowHashes(p *Prepared) {
	if !st.borrowedHashes {
		st.own.bhash, st.own.btag, st.own.blh, st.own.fin = st.bhash, st.btag, st.blh, st.fin
		st.borrowedHashes = true
	}
	st.bhash, st.btag, st.blh, st.fin = p.bhash, p.btag, p.blh, p.fin
}

// unborrow gives the state its own buffers back.
func (st *batchState) unborrow() {
	if st.borrowed {
		st.types, st.words, st.at = st.own.types, st.own.words, st.own.at
		st.borrowed = false
	}
	if st.borrowedHashes {
		st.bhash, st.btag, st.blh, st.fin = st.own.bhash, st.own.btag, st.own.blh, st.own.fin
		st.borrowedHashes = false
	}
	st.own = ownBuffers{}
}

// add appends a type to the batch and returns its copied extra words, for
// the caller to rewrite in place.
func (st *batchState) add(t btf.Type, w []uint32) []uint32 {
	st.types = append(st.types, t)
	k := len(st.words)
	st.words = append(st.words, w...)
	st.at = append(st.at, uint32(len(st.words)))
	return st.words[k:]
}

// ready sizes the per-type state for the types added or borrowed.
func (st *batchState) ready() {
	n := len(st.types)
	st.n = n
	st.res = fill(st.res, n, none)
	st.aux = fill(st.aux, n, none)
	st.idx = fill(st.idx, n, 0)
	st.low = fill(st.low, n, 0)
	st.bhash = resize(st.bhash, n)
	st.btag = resize(st.btag, n)
	st.blh = resize(st.blh, n)
	st.fin = resize(st.fin, n)
	st.bnext = resize(st.bnext, n)
	st.bindex.reset(n)
}

// loadSpec makes the local types of s (a batch starting at the table's
// next id, or the base) the batch; they are read in place.
func (d *Incremental) loadSpec(s *btf.Spec) *batchState {
	st := d.batch(uint32(s.FirstID()), s.Strings())
	types, _, words := s.Raw()
	st.borrowTypes(types, s.Offsets(), words) // counted for a sparse base
	st.ready()
	return st
}

// fill returns s resized to n, every element v.
func fill(s []uint32, n int, v uint32) []uint32 {
	s = resize(s, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// run finds the strongly connected components of the batch (edges into
// the table are already resolved) with an iterative Tarjan, and resolves
// each as it completes: Tarjan emits components children first.
func (st *batchState) run() {
	if !st.listed {
		st.listEdges()
	}
	st.listed = false
	eat, edges := st.eat, st.edges
	callN, callJ := st.callN[:0], st.callJ[:0]
	defer func() { st.callN, st.callJ = callN[:0], callJ[:0] }()
	counter := uint32(0)
	push := func(v uint32) {
		counter++
		st.idx[v], st.low[v] = counter, counter
		st.scc = append(st.scc, v)
		callN = append(callN, v)
		callJ = append(callJ, eat[v]) // callJ: v's next edge in edges
	}
	for root := 0; root < st.n; root++ {
		if st.idx[root] != 0 {
			continue
		}
		push(uint32(root))
		for len(callN) > 0 {
			top := len(callN) - 1
			v := callN[top]
			if j := callJ[top]; j < eat[v+1] {
				callJ[top]++
				c := edges[j]
				if c < st.t0 {
					continue
				}
				ci := c - st.t0
				if st.idx[ci] == 0 {
					push(ci)
				} else if st.idx[ci] != none && st.idx[ci] < st.low[v] {
					st.low[v] = st.idx[ci]
				}
				continue
			}
			callN, callJ = callN[:top], callJ[:top]
			if top > 0 {
				if p := callN[top-1]; st.low[v] < st.low[p] {
					st.low[p] = st.low[v]
				}
			}
			if st.low[v] == st.idx[v] {
				k := len(st.scc) - 1
				for st.scc[k] != v {
					k--
				}
				members := st.scc[k:]
				for _, m := range members {
					st.idx[m] = none
				}
				st.component(members)
				st.scc = st.scc[:k]
			}
		}
	}
}

// listEdges lists the batch's edges in eat and edges.
func (st *batchState) listEdges() {
	eat := resize(st.eat, st.n+1)
	e := st.edges[:0]
	for i := 0; i < st.n; i++ {
		eat[i] = uint32(len(e))
		t, w := st.typ(uint32(i))
		s := &refShapes[t.Kind()&0x7f]
		if s.hasType {
			e = append(e, t.SizeOrType)
		}
		if s.stride != 0 {
			n := int(s.fixed)
			if n == 0 {
				n = int(t.Vlen())
			}
			for p, stride := int(s.first), int(s.stride); n > 0; p, n = p+stride, n-1 {
				e = append(e, w[p])
			}
		}
	}
	eat[st.n] = uint32(len(e))
	st.eat, st.edges = eat, e
}

// out returns batch type i's edges (after listEdges).
func (st *batchState) out(i uint32) []uint32 { return st.edges[st.eat[i]:st.eat[i+1]] }

// component resolves one strongly connected component whose outgoing
// edges are all resolved: hashes first, then classes. When preparing a
// batch (prepare.go), it only hashes and records the component.
func (st *batchState) component(members []uint32) {
	single := len(members) == 1 && !st.selfLoop(members[0])
	if single {
		st.hashSingle(members[0])
	} else {
		slices.Sort(members)
		st.hashComponent(members)
	}
	if st.prep != nil {
		st.prep.record(st, members, !single)
		return
	}
	if single {
		st.resolveSingle(members[0])
	} else {
		st.resolveComponent(members)
	}
}

// resolveComponent resolves a cyclic component whose members are hashed
// (ascending).
func (st *batchState) resolveComponent(members []uint32) {
	for _, m := range members {
		if st.d.neverMerged(st.kind(m)) {
			st.newClass(m, false)
		}
	}
	// (a) members equivalent to an existing class: structs, unions and
	// typedefs found by checking them against the candidates of their hash
	// (equiv.go), which makes the structs they reach final too.
	// The first is often a copy of table classes (pairCopy), and the
	// typedefs after it then too (pairedTo), until one is not.
	first, copied := true, false
	for _, m := range members {
		if st.res[m] == none && checked(st.kind(m)) {
			if first {
				first = false
				if copied = st.pairCopy(m); copied {
					continue
				}
			} else if copied && st.pairedTo(m) {
				continue
			}
			copied = false
			st.tryCandidates(m)
		}
	}
	st.unpair()
	// Then the other members by their exact resolved edges, and those on a
	// cycle without a struct by checking.
	st.exactRefs(members)
	st.assignAll = true
	st.stamp++ // commits now assign more: visit pairs again
	for _, m := range members {
		if st.res[m] == none && st.low[m] == refCyclic {
			st.tryCandidates(m)
		}
	}
	st.assignAll = false
	// (b) the rest are new; partition refinement finds which of them are
	// equivalent to each other.
	r := st.rf.r[:0]
	for _, m := range members {
		if st.res[m] == none {
			r = append(r, m)
		}
	}
	st.rf.r = r
	if len(r) > 0 {
		st.refine(r)
	}
	st.targetsResolved(members)
}

// tryCandidates matches v against the classes that share its hash until
// one takes it, newest first: this batch's classes, then the table's, so
// that one batch and the same types cut into several try candidates in the
// same order (it matters only for FWD resolution).
func (st *batchState) tryCandidates(v uint32) {
	h := st.bhash[v]
	for e := st.bindex.find(h, st.bhash, 1); e != 0; e = st.bnext[e-1] {
		if st.match(v, st.t0+e-1) {
			return
		}
	}
	st.lazyChain(v, true)
	for c := st.d.chain(h); c != 0; c = st.d.nextOf(c) {
		if st.match(v, c) {
			return
		}
	}
}

func (st *batchState) selfLoop(v uint32) bool {
	for _, c := range st.out(v) {
		if c == st.t0+v {
			return true
		}
	}
	return false
}

// resolveSingle resolves a hashed component of one type outside any
// cycle: its edges are resolved, so a hash lookup and a direct comparison
// decide.
func (st *batchState) resolveSingle(v uint32) {
	n := st.bnode(v)
	if st.d.neverMerged(n.t.Kind()) {
		st.newClass(v, false)
		return
	}
	// A struct, union or typedef equivalent only up to FWDs (FWD x in
	// one, STRUCT x in the other, somewhere below): found by checking
	// (libbpf 1.7 deduplicates typedefs with structs, for Go's recursive
	// ones). Over a base, libbpf tries its candidates newest first, so a
	// module candidate that checks OK comes before a base type equal to
	// it edge for edge (a module typedef that meets the module's own
	// typedef over the struct a FWD below it stands for). Without a base,
	// a class equal edge for edge comes first, as before (vmlinux outputs
	// are unchanged).
	checks := st.fwdOK && checked(n.t.Kind()) && numRefs(n.t, n.w) > 0
	if checks && st.d.base != nil {
		if st.tryCandidates(v); st.res[v] != none {
			return
		}
		checks = false
	}
	if st.exact(v) {
		return
	}
	if checks {
		if st.tryCandidates(v); st.res[v] != none {
			return
		}
	}
	st.newClass(v, true)
	st.targetsResolved([]uint32{v})
}

// fwdResolved gives a forward declaration whose class is already resolved
// to a complete type that type as its class, as libbpf maps a resolved FWD.
func (st *batchState) fwdResolved(v uint32) {
	if st.fwdOK && (len(st.d.fwdTo) > 0 || st.rec != nil) && isFwd(st.bnode(v)) {
		if s, ok := st.fwdOf(st.res[v]); ok {
			st.res[v] = st.classOr(s)
		}
	}
}

// fwdOf returns what declaration class c stands for, if it is resolved.
// Resolving against a snapshot, it records that c's resolution was read.
func (st *batchState) fwdOf(c uint32) (uint32, bool) {
	if st.rec != nil {
		st.rec.read(c)
	}
	s, ok := st.d.fwdTo[c]
	return s, ok
}

// targetsResolved ends the epoch if one of members, now resolved, is what
// a resolved FWD reads: the FWD now reads its class.
func (st *batchState) targetsResolved(members []uint32) {
	if st.fwdTarget == nil {
		return
	}
	for _, m := range members {
		if st.fwdTarget[m] {
			st.fwdTarget[m] = false
			st.newEpoch()
		}
	}
}

// newClass makes v the creator of a new class.
func (st *batchState) newClass(v uint32, indexed bool) {
	st.res[v] = st.t0 + v
	if indexed {
		st.bnext[v] = st.bindex.put(st.bhash[v], v+1, st.bhash, 1)
		if st.rec != nil {
			st.rec.puts = append(st.rec.puts, v)
		}
	}
}

// checked reports whether types of kind k are checked against the
// candidates of their hash (equivalence up to forward declarations), as
// libbpf's btf_dedup_struct_types does: structs, unions and typedefs.
func checked(k btf.Kind) bool {
	return k == btf.KindStruct || k == btf.KindUnion || k == btf.KindTypedef
}
