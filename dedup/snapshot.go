package dedup

import (
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
	seen   map[uint32]uint32
}

// NewResolver returns a Resolver.
func NewResolver() *Resolver {
	v := &Incremental{fwdTo: make(map[uint32]uint32)}
	v.index.reset(0)
	return &Resolver{v: v, n: 1, seen: make(map[uint32]uint32)}
}

// NewResolver returns a Resolver that shares p's working state: use it
// on p's goroutine only (it saves a batch's working state per worker).
func (p *Preparer) NewResolver() *Resolver {
	r := NewResolver()
	if p.d.st == nil {
		p.d.st = &batchState{d: p.d}
	}
	r.v.st = p.d.st
	return r
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
	clear(r.seen)
	pre.seen = r.seen
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
	pre.seen = nil
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
	// reads: the declarations (table and batch classes) whose resolution
	// a component read (key), with the component (val), once per pair;
	// sorted by key.
	reads   []fwdEntry
	seen    map[uint32]uint32 // key -> 1 + the last component recorded reading it (the Resolver's)
	comp    uint32            // component being resolved
	noReads bool              // record puts only (AddPrepared's own resolving)
}

func (pre *preResolution) reset(n uint32, fwdSeq int) {
	pre.ok, pre.n, pre.fwdSeq = false, n, fwdSeq
	pre.res, pre.puts, pre.putEnd = pre.res[:0], pre.puts[:0], pre.putEnd[:0]
	pre.fwds, pre.fwdEnd, pre.reads = pre.fwds[:0], pre.fwdEnd[:0], pre.reads[:0]
	pre.comp, pre.noReads = 0, false
}

// read records that the current component read the resolution of
// declaration class k.
func (pre *preResolution) read(k uint32) {
	if pre.noReads {
		return
	}
	if pre.seen[k] != pre.comp+1 {
		pre.seen[k] = pre.comp + 1
		pre.reads = append(pre.reads, fwdEntry{k, pre.comp})
	}
}

// readers calls fn with every component that read k's resolution.
func (pre *preResolution) readers(k uint32, fn func(comp uint32)) {
	i, _ := slices.BinarySearchFunc(pre.reads, k, func(e fwdEntry, k uint32) int { return int(e.key) - int(k) })
	for ; i < len(pre.reads) && pre.reads[i].key == k; i++ {
		fn(pre.reads[i].val)
	}
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
