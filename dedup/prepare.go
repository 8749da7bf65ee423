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
	comps []uint32 // members (batch index) of the components in Tarjan order; cyclic ones ascending
	ends  []uint32 // ends[k]: end of component k in comps, | cyclicComp if it is cyclic
	bhash []uint64
	btag  []uint64
	blh   []uint64
	fin   []bool
}

const cyclicComp = 1 << 31

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
// or void; it must not change until AddPrepared has used it. into, if
// not nil, is reused.
func (p *Preparer) Prepare(batch *btf.Spec, into *Prepared) (*Prepared, error) {
	if batch.Base() != nil || batch.FirstID() != 1 {
		return nil, fmt.Errorf("dedup: Prepare needs a base Spec, got first id %d", batch.FirstID())
	}
	if err := checkRefs(batch); err != nil {
		return nil, err
	}
	pr := into
	if pr == nil {
		pr = &Prepared{}
	}
	pr.batch = batch
	pr.comps, pr.ends = pr.comps[:0], pr.ends[:0]
	st := p.d.loadSpec(batch)
	st.prep = pr
	st.run()
	st.prep = nil
	pr.bhash = append(pr.bhash[:0], st.bhash[:st.n]...)
	pr.btag = append(pr.btag[:0], st.btag[:st.n]...)
	pr.blh = append(pr.blh[:0], st.blh[:st.n]...)
	pr.fin = append(pr.fin[:0], st.fin[:st.n]...)
	// The empty table adopted the batch's strings: drop them.
	p.d.table.SetStrings(btf.NewStrings(nil))
	p.d.shared = false
	return pr, nil
}

// Batch returns the prepared batch.
func (p *Prepared) Batch() *btf.Spec { return p.batch }

// AddPrepared deduplicates a prepared batch against the table, as AddBatch
// would the same types placed at the table's next id. The Remap maps the
// batch's own ids (from 1) to table ids.
func (d *Incremental) AddPrepared(p *Prepared) (Remap, error) {
	if d.done {
		return Remap{}, fmt.Errorf("dedup: AddPrepared after Finish")
	}
	src := p.batch
	t0 := uint32(d.table.NextID())
	st := d.batch(t0, src.Strings())
	shift := t0 - 1
	ref := func(r uint32) uint32 {
		if r == 0 {
			return 0
		}
		return r + shift
	}
	for id := src.FirstID(); id < src.NextID(); id++ {
		t := src.Type(id)
		w := st.add(t, src.Extra(id))
		mapWords(&t, w, ref, nil)
		st.types[len(st.types)-1] = t
	}
	st.ready()
	st.adjustBase()
	copy(st.bhash, p.bhash)
	copy(st.btag, p.btag)
	copy(st.blh, p.blh)
	copy(st.fin, p.fin)
	for i := range st.idx {
		st.idx[i] = none // every component is done, as after Tarjan
	}
	start := uint32(0)
	for _, e := range p.ends {
		end := e &^ cyclicComp
		members := p.comps[start:end]
		if e&cyclicComp == 0 {
			st.resolveSingle(members[0])
		} else {
			st.resolveComponent(members)
		}
		start = end
	}
	remap := make([]btf.TypeID, st.n)
	st.commit(remap)
	return Remap{First: 1, IDs: remap}, nil
}
