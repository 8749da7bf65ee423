package dedup

import (
	"fmt"

	"github.com/btfstream/btfstream/btf"
)

// Preparing batches off the merging goroutine.
//
// Deduplicating a batch has two halves. The first needs nothing but the
// batch: its edges checked, its strongly connected components in the
// order Tarjan's algorithm emits them (children first), and every type's
// label hash, structural hash, tag and finiteness, which are equal for
// equivalent types wherever they are (package documentation, steps 1 and
// 2). The second needs the table: candidate lookups, checks, refinement of
// the new classes, commit (steps 3 to 5). For a self-contained batch (a
// base Spec: ids from 1, its own strings, edges only to its own types or
// void) the first half can run anywhere: Prepare does it, on any
// goroutine; AddPrepared does the second half against the table, with the
// same result as AddBatch of the same types placed after the table,
// because the components, their order and the hashes are those AddBatch
// would compute (ids shift, structure does not).

// Prepared is a self-contained batch with its table-independent half of
// deduplication done (Prepare). It is read-only for AddPrepared, which may
// be called on another goroutine than Prepare's.
type Prepared struct {
	batch *btf.Spec
	// The batch's types (words[at[i]:at[i+1]] are type i's words), read in
	// place by AddPrepared and Resolvers: batch's own, their edges moved to
	// ids from batchBase while moved is set (see Restore).
	types []btf.Type
	words []uint32
	at    []uint32
	moved bool
	comps []uint32 // members (batch index) of the components in Tarjan order; cyclic ones ascending
	ends  []uint32 // ends[k]: end of component k in comps, | cyclicComp if it is cyclic
	bhash []uint64
	btag  []uint64
	blh   []uint64
	fin   []bool
	pre   preResolution // set by a Resolver
}

const cyclicComp = 1 << 31

// batchBase is the first id of a prepared batch's types while it is
// resolved, whatever the table's size: ids below it are the table's
// (tables stay far smaller), so a batch needs no renumbering between a
// worker's snapshot and the table it is added to.
const batchBase = 1 << 30

// record appends a hashed component, and marks its members done, so that
// the components after it see them as resolved (what hashComponent tells
// members of the current component from earlier ones by).
func (p *Prepared) record(st *batchState, members []uint32, cyclic bool) {
	p.comps = append(p.comps, members...)
	end := uint32(len(p.comps))
	if cyclic {
		end |= cyclicComp
	}
	p.ends = append(p.ends, end)
	for _, m := range members {
		st.res[m] = st.t0 + m
	}
}

// Preparer prepares batches on one goroutine; it keeps the working state
// between batches (an Incremental with an empty table, whose batch
// machinery computes the components and hashes).
type Preparer struct {
	d *Incremental
}

// NewPreparer returns a Preparer.
func NewPreparer() *Preparer {
	d, _ := newIncremental(nil, false) // no base: cannot fail
	return &Preparer{d: d}
}

// Prepare checks batch's edges and computes its components and hashes.
// batch must be a base Spec (first id 1) whose edges lead to its own types
// or void. Prepare moves batch's edges, in place, to the ids the batch
// takes while it is resolved (Restore moves them back); batch must not be
// read otherwise or changed until AddPrepared has used it. into, if not
// nil, is reused.
func (p *Preparer) Prepare(batch *btf.Spec, into *Prepared) (*Prepared, error) {
	return p.prepare(batch, into, nil)
}

// prepare is Prepare; with s, the batch may hold import ids of s's types
// (imports.go).
func (p *Preparer) prepare(batch *btf.Spec, into *Prepared, s *Snapshot) (*Prepared, error) {
	if batch.Base() != nil || batch.FirstID() != 1 {
		return nil, fmt.Errorf("dedup: Prepare needs a base Spec, got first id %d", batch.FirstID())
	}
	pr := into
	if pr == nil {
		pr = &Prepared{}
	}
	pr.batch = batch
	pr.comps, pr.ends = pr.comps[:0], pr.ends[:0]
	pr.pre.ok = false
	pr.types, pr.at, pr.words = batch.Raw()
	pr.moved = false
	st := p.d.batchAdopt(batchBase, batch.Strings(), false)
	imax := uint32(0) // imports allowed below it
	if s != nil {
		imax = s.useFor(p.d)
	}
	if !pr.moveList(batchBase-1, uint32(batch.NextID()), imax, st) {
		return nil, checkRefs(batch) // the error, naming the type
	}
	// The hashes are computed into pr's arrays.
	n := len(pr.types)
	pr.bhash, pr.btag, pr.blh, pr.fin = resize(pr.bhash, n), resize(pr.btag, n), resize(pr.blh, n), resize(pr.fin, n)
	st.borrow(pr)
	st.borrowHashes(pr)
	st.ready()
	st.prep = pr
	st.run()
	st.prep = nil
	st.unborrow()
	return pr, nil
}

// moveList is move for Prepare, which also lists the moved edges in st
// (listEdges) for run.
func (pr *Prepared) moveList(shift, end, imax uint32, st *batchState) bool {
	eat := resize(st.eat, len(pr.types)+1)
	e := st.edges[:0]
	for i := range pr.types {
		eat[i] = uint32(len(e))
		var ok bool
		if e, ok = shiftList(&pr.types[i], pr.words[pr.at[i]:pr.at[i+1]], shift, end, imax, e); !ok {
			for j := i - 1; j >= 0; j-- { // back to how it was
				restoreRefs(&pr.types[j], pr.words[pr.at[j]:pr.at[j+1]])
			}
			st.eat, st.edges = eat, e[:0]
			return false
		}
	}
	eat[len(pr.types)] = uint32(len(e))
	st.eat, st.edges, st.listed = eat, e, true
	pr.moved = !pr.moved
	return true
}

// shiftList adds shift (modulo 2^32) to every edge of a type but void
// and imports (which become table ids), in place, and appends them to e
// (void included, as listEdges lists them), if every edge is below end or
// an import below imax; it reports whether they were (and then changed
// nothing).
func shiftList(t *btf.Type, w []uint32, shift, end, imax uint32, e []uint32) ([]uint32, bool) {
	s := &refShapes[t.Kind()&0x7f]
	if s.hasType && t.SizeOrType >= end && !imported(t.SizeOrType, imax) {
		return e, false
	}
	n := 0 // edges in w, at first, first+stride, ...
	if s.stride != 0 {
		n = int(s.fixed)
		if n == 0 {
			n = int(t.Vlen())
		}
	}
	first, stride := int(s.first), int(s.stride)
	for i, p := 0, first; i < n; i, p = i+1, p+stride {
		if w[p] >= end && !imported(w[p], imax) {
			return e, false
		}
	}
	if s.hasType {
		if x := t.SizeOrType; x >= ImportBit {
			t.SizeOrType = x &^ ImportBit
		} else if x != 0 {
			t.SizeOrType = x + shift
		}
		e = append(e, t.SizeOrType)
	}
	for i, p := 0, first; i < n; i, p = i+1, p+stride {
		if x := w[p]; x >= ImportBit {
			w[p] = x &^ ImportBit
		} else if x != 0 {
			w[p] = x + shift
		}
		e = append(e, w[p])
	}
	return e, true
}

// Restore moves the batch's edges back to its own ids, so that it reads
// as it did before Prepare; p can then no longer be added. Idempotent.
func (p *Prepared) Restore() {
	if p.moved {
		for i := range p.types {
			restoreRefs(&p.types[i], p.words[p.at[i]:p.at[i+1]])
		}
		p.moved = false
	}
}

// Batch returns the prepared batch.
func (p *Prepared) Batch() *btf.Spec { return p.batch }

// AddPrepared deduplicates a prepared batch against the table, as AddBatch
// would the same types placed at the table's next id. The Remap maps the
// batch's own ids (from 1) to table ids. If a Resolver resolved p against
// a snapshot of this table, the components that nothing added to the
// table since could have changed take the classes it found (see
// "Resolving against a snapshot" in the package documentation).
func (d *Incremental) AddPrepared(p *Prepared) (Remap, error) {
	if d.done {
		return Remap{}, fmt.Errorf("dedup: AddPrepared after Finish")
	}
	if d.table.NextID() >= batchBase {
		return Remap{}, fmt.Errorf("dedup: table of %d types is too large for AddPrepared", d.table.Len())
	}
	if !p.moved {
		return Remap{}, fmt.Errorf("dedup: AddPrepared of a restored batch")
	}
	st := d.loadPrepared(p)
	k := 0
	if p.pre.ok && d.base == nil && !d.mergeAll {
		if p.pre.n > uint32(d.table.NextID()) || len(p.pre.res) != st.n || len(p.pre.putEnd) != len(p.ends) {
			return Remap{}, fmt.Errorf("dedup: batch resolved against a snapshot of another table")
		}
		r0, s0 := d.stats.replayed, d.stats.resolved
		if err := st.takeResolved(p); err != nil {
			return Remap{}, err
		}
		if d.stats.replayed > r0 && d.stats.resolved > s0 {
			d.stats.partial++
		}
		k = len(p.ends)
	}
	st.resolveComponents(p, k)
	remap := make([]btf.TypeID, st.n)
	st.commit(remap)
	return Remap{First: 1, IDs: remap}, nil
}

// loadPrepared makes p's batch the batch state, read in place (ids from
// batchBase), with the hashes Prepare computed. The table does not adopt
// the batch's strings (a Snapshot needs the table's own).
func (d *Incremental) loadPrepared(p *Prepared) *batchState {
	st := d.batchAdopt(batchBase, p.batch.Strings(), false)
	st.borrow(p)
	st.ready()
	st.borrowHashes(p)
	st.adjustBaseOf(p) // reads the label hashes (blh)
	for i := range st.idx {
		st.idx[i] = none // every component is done, as after Tarjan
	}
	return st
}
