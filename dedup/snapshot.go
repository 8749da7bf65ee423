package dedup

import (
	"fmt"
	"slices"

	"github.com/btfstream/btfstream/btf"
)

// Resolving prepared batches against a snapshot of the table, off the
// merging goroutine (package documentation, "Resolving against a
// snapshot"): a worker resolves a batch against the table as it was after
// some earlier batch (a Snapshot), recording what its components read
// that a later table may have changed; AddPrepared then replays the
// components that nothing changed for, in order, and resolves the rest
// itself.

// Snapshot is an Incremental's table as it was after one AddBatch or
// AddPrepared: its types, strings and per-id hashes (read-only views that
// the table's growth does not change), and the forward declarations
// resolved so far. It is immutable; any goroutine may read it.
type Snapshot struct {
	n      uint32    // the table's next id then
	table  *btf.Spec // view of the table
	hash   []uint64
	tag    []uint64
	lh     []uint64
	fin    []bool
	next   []uint32
	fwdLog []fwdEntry // every resolution, in the order they were made
}

// fwdEntry is one resolved declaration: key stands for val.
type fwdEntry struct{ key, val uint32 }

// Snapshot returns the table as it is now, for Resolvers on other
// goroutines, or nil when batches cannot be resolved elsewhere: with a
// base (split mode's adjustments read state a snapshot does not carry),
// when the table shares its first batch's strings, or after Finish. Call
// it on the goroutine that adds batches, between batches.
func (d *Incremental) Snapshot() *Snapshot {
	if d.base != nil || d.mergeAll || d.shared || d.done {
		return nil
	}
	n := len(d.hash)
	return &Snapshot{
		n:      uint32(n),
		table:  d.table.View(),
		hash:   d.hash[:n:n],
		tag:    d.tag[:n:n],
		lh:     d.lh[:n:n],
		fin:    d.fin[:n:n],
		next:   d.next[:n:n],
		fwdLog: d.fwdLog[:len(d.fwdLog):len(d.fwdLog)],
	}
}

// Replays reports, over the batches resolved against a snapshot, how many
// of their components AddPrepared replayed and how many it resolved
// itself (because the table had changed for them since the snapshot).
func (d *Incremental) Replays() (replayed, resolved int) {
	return d.stats.replayed, d.stats.resolved
}

// Resolver resolves prepared batches against snapshots, on one goroutine.
// It keeps a replica of the table's hash index and of the resolved
// declarations, brought up to date from each snapshot (the table only
// grows, so that costs what was added since the last one).
type Resolver struct {
	v      *Incremental // the snapshot's table, read-only, with its own index and fwdTo
	n      uint32       // ids indexed so far
	fwdSeq int          // resolutions copied so far
}

// NewResolver returns a Resolver.
func NewResolver() *Resolver {
	v := &Incremental{fwdTo: make(map[uint32]uint32)}
	v.index.reset(0)
	return &Resolver{v: v, n: 1}
}

// sync makes the replica the table of s. Snapshots must come in the order
// they were taken.
func (r *Resolver) sync(s *Snapshot) {
	v := r.v
	v.table, v.hash, v.tag, v.lh, v.fin, v.next = s.table, s.hash, s.tag, s.lh, s.fin, s.next
	for id := r.n; id < s.n; id++ {
		if !v.neverMerged(s.table.Type(btf.TypeID(id)).Kind()) {
			v.index.put(s.hash[id], id, s.hash, 0)
		}
	}
	r.n = s.n
	for _, e := range s.fwdLog[r.fwdSeq:] {
		v.fwdTo[e.key] = e.val
	}
	r.fwdSeq = len(s.fwdLog)
}

// Resolve resolves p against s, as AddPrepared would against that table,
// and records the outcome in p for AddPrepared. p must not be in use by
// AddPrepared meanwhile.
func (r *Resolver) Resolve(p *Prepared, s *Snapshot) {
	if s == nil || s.n < r.n || len(s.fwdLog) < r.fwdSeq {
		p.pre.ok = false // none, or older than one synced before
		return
	}
	r.sync(s)
	v := r.v
	pre := &p.pre
	pre.reset(s.n, len(s.fwdLog))
	st := v.loadPrepared(p)
	st.rec = pre
	st.resolveComponents(p, 0)
	st.rec = nil
	pre.res = append(pre.res, st.res[:st.n]...)
	pre.fwds = append(pre.fwds, st.fwdAdded...)
	// The batch's resolutions are tentative: the replica forgets them.
	for _, e := range st.fwdAdded {
		delete(v.fwdTo, e.key)
	}
	slices.SortFunc(pre.reads, func(a, b fwdEntry) int { return int(a.key) - int(b.key) })
	pre.ok = true
}

// preResolution is a batch resolved against a snapshot by a worker: per
// component (in Prepared's order), the classes, the batch's new classes
// in the order they were indexed, and the declarations resolved, with
// what it read that a later table may have changed.
type preResolution struct {
	ok     bool
	n      uint32     // the snapshot's next id
	fwdSeq int        // resolutions in the snapshot
	res    []uint32   // by batch index: class (batch ids from batchBase)
	puts   []uint32   // batch indexes indexed as new classes, in order
	putEnd []uint32   // by component: end in puts
	fwds   []fwdEntry // resolutions made, in order
	fwdEnd []uint32   // by component: end in fwds
	// reads: the table's declarations whose resolution a component read
	// (key), each with the first component that did (val); sorted by key.
	reads []fwdEntry
	seen  map[uint32]bool // keys in reads
	comp  uint32          // component being resolved
}

func (pre *preResolution) reset(n uint32, fwdSeq int) {
	pre.ok, pre.n, pre.fwdSeq = false, n, fwdSeq
	pre.res, pre.puts, pre.putEnd = pre.res[:0], pre.puts[:0], pre.putEnd[:0]
	pre.fwds, pre.fwdEnd, pre.reads = pre.fwds[:0], pre.fwdEnd[:0], pre.reads[:0]
	pre.comp = 0
	if pre.seen == nil {
		pre.seen = make(map[uint32]bool)
	}
	clear(pre.seen)
}

// read records that the current component read the resolution of table
// declaration k.
func (pre *preResolution) read(k uint32) {
	if !pre.seen[k] {
		pre.seen[k] = true
		pre.reads = append(pre.reads, fwdEntry{k, pre.comp})
	}
}

// firstRead returns the first component that read table declaration k's
// resolution, or none.
func (pre *preResolution) firstRead(k uint32) uint32 {
	if i, ok := slices.BinarySearchFunc(pre.reads, k, func(e fwdEntry, k uint32) int { return int(e.key) - int(k) }); ok {
		return pre.reads[i].val
	}
	return none
}

// resolveComponents resolves the prepared components from the k-th on,
// in order, recording each when resolving against a snapshot.
func (st *batchState) resolveComponents(p *Prepared, k int) {
	start := uint32(0)
	if k > 0 {
		start = p.ends[k-1] &^ cyclicComp
	}
	for ; k < len(p.ends); k++ {
		e := p.ends[k]
		end := e &^ cyclicComp
		members := p.comps[start:end]
		if st.rec != nil {
			st.rec.comp = uint32(k)
		}
		if e&cyclicComp == 0 {
			st.resolveSingle(members[0])
		} else {
			st.resolveComponent(members)
		}
		if st.rec != nil {
			st.rec.putEnd = append(st.rec.putEnd, uint32(len(st.rec.puts)))
			st.rec.fwdEnd = append(st.rec.fwdEnd, uint32(len(st.fwdAdded)))
		}
		start = end
	}
}

// firstDirty returns the first component of p whose resolution against
// the snapshot may differ from one against the table now: one with a
// member whose hash a class added since the snapshot has (a lookup would
// meet that class first), or one that read the resolution of a table
// declaration resolved since. len(p.ends) if there is none.
func (st *batchState) firstDirty(p *Prepared) int {
	d, pre := st.d, &p.pre
	dirty := uint32(len(p.ends))
	for _, e := range d.fwdLog[pre.fwdSeq:] {
		if e.key < pre.n {
			dirty = min(dirty, pre.firstRead(e.key))
		}
	}
	// The hashes of the classes added since the snapshot.
	keys := st.rf.rh[:0]
	for id := pre.n; id < uint32(d.table.NextID()); id++ {
		if !d.neverMerged(d.table.Type(btf.TypeID(id)).Kind()) {
			keys = append(keys, d.hash[id])
		}
	}
	st.rf.rh = keys
	if len(keys) == 0 {
		return int(dirty)
	}
	recent := &st.rf.heads
	recent.reset(len(keys))
	for i, h := range keys {
		recent.put(h, uint32(i)+1, keys, 1)
	}
	start := uint32(0)
	for k := uint32(0); k < dirty; k++ {
		end := p.ends[k] &^ cyclicComp
		for _, m := range p.comps[start:end] {
			if recent.find(p.bhash[m], keys, 1) != 0 {
				return int(k)
			}
		}
		start = end
	}
	return int(dirty)
}

// replay gives the members of component k the classes the worker found,
// indexes the new classes in the worker's order and makes the worker's
// resolutions (batch ids start at batchBase on both sides).
func (st *batchState) replay(p *Prepared, k int, members []uint32) error {
	pre := &p.pre
	for _, m := range members {
		st.res[m] = pre.res[m]
	}
	ps, fs := uint32(0), uint32(0)
	if k > 0 {
		ps, fs = pre.putEnd[k-1], pre.fwdEnd[k-1]
	}
	for _, v := range pre.puts[ps:pre.putEnd[k]] {
		st.bnext[v] = st.bindex.put(st.bhash[v], v+1, st.bhash, 1)
	}
	for _, e := range pre.fwds[fs:pre.fwdEnd[k]] {
		f, s := e.key, e.val
		if _, done := st.d.fwdTo[f]; done {
			return fmt.Errorf("dedup: replaying a batch resolved elsewhere: declaration [%d] is already resolved", f)
		}
		st.setFwd(f, s)
	}
	return nil
}
