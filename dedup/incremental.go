package dedup

import (
	"fmt"

	"github.com/btfstream/btfstream/btf"
)

const none = ^uint32(0)

// Remap translates the ids of one input (a batch, or the table before
// Finish) to the ids they got. Ids below First are not part of that input
// (void, base types, types of earlier batches) and map to themselves.
type Remap struct {
	First btf.TypeID
	IDs   []btf.TypeID // IDs[id-First]
}

// Map returns the new id of id.
func (r Remap) Map(id btf.TypeID) btf.TypeID {
	if id < r.First || int(id-r.First) >= len(r.IDs) {
		return id
	}
	return r.IDs[id-r.First]
}

// Incremental is a deduplicated type table that grows batch by batch. See
// the package documentation for the algorithm and the contract.
//
// Per table (and base) id it keeps the structural hash, the tag its parents
// mix into their hashes, its label hash, a finiteness flag and a hash chain link:
// 29 bytes per canonical type, plus 4 to 8 bytes of open-addressing index, next to
// the types themselves. The working state of a batch is kept between
// batches and reused.
type Incremental struct {
	base  *btf.Spec
	table *btf.Spec
	words int // extra words in the table's local types
	room  int // types the table has room for without growing
	wroom int // extra words likewise

	hash []uint64 // by id: structural hash (index key)
	tag  []uint64 // by id: what a parent mixes in for this child
	lh   []uint64 // by id: label hash
	fin  []bool   // by id: the type's unfolding is finite (reaches no cycle)
	next []uint32 // by id: next older id with the same hash, 0 ends
	// hoff: hash, tag, lh, fin and next hold ids from hoff on (a base
	// indexed on demand keeps its own: hoff is the first table id; else 0).
	hoff  uint32
	index hindex // newest table id by hash
	// baseIndex: newest base id by hash (split mode; the oldest table id
	// of a hash links to its head).
	baseIndex hindex
	canon     []uint32 // by base id: class representative; nil when the base has no duplicates
	// lz: the base is indexed on demand (baselazy.go); nil when hashed
	// whole (or without base).
	lz *lazyBase

	// shared: the table's string offsets point into a string table it
	// shares with its batches (adopted from the first batch) instead of
	// its own interned copy; offsets are then not canonical.
	shared bool

	st *batchState // reused working state of a batch

	// fwdTo: a FWD class resolved, by a walk, to the STRUCT/UNION it was
	// found to stand for (first come); applied in Finish. Few entries (at
	// most one per FWD name), no pointers.
	fwdTo map[uint32]uint32
	// fwdLog lists fwdTo's entries in the order batches added them (with
	// table ids), for Snapshots.
	fwdLog []fwdEntry
	// ahead: Finish's first resolveFwds, run early (ResolveAhead).
	ahead *fwdAhead

	stats walkStats // work of the equivalence checks so far

	// Split mode: base STRUCTs and UNIONs by label signature (adjustBase,
	// resolveFwds), and the table ids of classes kept apart from the base.
	agg     hindex
	aggSig  []uint64
	aggID   []uint32
	aggNext []uint32
	// baseFwd: the base's named FWDs by label signature, sorted (built
	// with agg); baseFwdAnon: one of them has no name (adjustBase).
	baseFwd     []baseFwd
	baseFwdAnon bool
	kept        map[uint32]bool
	// twin: base struct -> table id of the module struct first kept
	// apart from it (moduleView).
	twin map[uint32]uint32
	// baseCopied: Finish copied the base references over base FWDs that
	// stand for table structs (basecopy.go); it does so once.
	baseCopied bool
	// pure: Finish's last rebuild of a split table, by identity alone (no
	// FWD resolution, nothing kept apart), folds kept types identical to
	// base types.
	pure bool

	mergeAll bool // diff: VAR and DATASEC merge like any other type
	// baseHashed: indexBase only hashed the base (it has no duplicates).
	baseHashed bool
	done       bool

	// rebuildChunk is the chunk size of Finish's rebuilds (0: chunkTypes;
	// tests vary it); rebuilds counts them.
	rebuildChunk int
	rebuilds     int

	newStore func() RecordStore // SetStore; nil: none
}

// baseFullRun makes indexBase deduplicate every base as a batch (tests
// compare it with hashBase).
var baseFullRun = false

// voidTag is what a reference to void (id 0) contributes to a hash.
const voidTag = 0x766f6964766f6964

// NewIncremental returns an empty table. With a base (vmlinux, when
// deduplicating a module), batches are deduplicated against the base's
// types, which are never changed; the table then holds split BTF.
func NewIncremental(base *btf.Spec) (*Incremental, error) {
	return newIncremental(base, false)
}

func newIncremental(base *btf.Spec, mergeAll bool) (*Incremental, error) {
	d := &Incremental{base: base, mergeAll: mergeAll}
	d.hash = []uint64{voidTag}
	d.tag = []uint64{voidTag}
	d.lh = []uint64{voidTag}
	d.fin = []bool{true}
	d.next = []uint32{0}
	d.index.reset(0)
	// The table interns with AddBytes; Add's memo (768 KiB of string
	// headers for the collector to scan, made by the first Add on it or
	// on a batch split over it: the function merge's, whose names are
	// fresh copies that never hit) would only sit there: over a base it
	// was a sixth of a small module's live heap.
	if base == nil {
		d.table = btf.NewSpec()
		d.table.Strings().NoMemo()
		return d, nil
	}
	if base.Base() != nil {
		return nil, fmt.Errorf("dedup: base is itself split BTF")
	}
	d.table = btf.NewSplitSpec(base)
	d.table.Strings().NoMemo()
	if err := d.indexBase(); err != nil {
		return nil, err
	}
	return d, nil
}

// Table returns the deduplicated types so far (split over the base, if
// any). It is read-only for callers and changes with every AddBatch.
func (d *Incremental) Table() *btf.Spec { return d.table }

// NextID is the first id of the next batch.
func (d *Incremental) NextID() btf.TypeID { return d.table.NextID() }

// NewBatch returns an empty batch for the next AddBatch: a Spec split over
// the table, so its types may reference table ids and its strings may
// reuse the table's.
func (d *Incremental) NewBatch() *btf.Spec { return btf.NewSplitSpec(d.table) }

// AddBatch deduplicates batch against the table and appends the batch's new
// canonical types, in the order of their first occurrence in the batch.
// batch's first id must be NextID(); its types may reference ids below that
// (void, base, table) or its own. Its strings are read through
// batch.Strings(). batch is not modified and may be dropped afterwards;
// the returned Remap gives every batch id its table id.
func (d *Incremental) AddBatch(batch *btf.Spec) (Remap, error) {
	if d.done {
		return Remap{}, fmt.Errorf("dedup: AddBatch after Finish")
	}
	t0 := d.table.NextID()
	if batch.FirstID() != t0 {
		return Remap{}, fmt.Errorf("dedup: batch starts at id %d, table's next id is %d", batch.FirstID(), t0)
	}
	if err := checkRefs(batch); err != nil {
		return Remap{}, err
	}
	st := d.loadSpec(batch)
	st.adjustBase()
	st.run()
	remap := make([]btf.TypeID, st.n)
	st.commit(remap)
	return Remap{First: t0, IDs: remap}, nil
}

// checkRefs verifies that every edge of s's local types names void, an
// earlier type or a local type.
func checkRefs(s *btf.Spec) error {
	end := uint32(s.NextID())
	for id := s.FirstID(); id < s.NextID(); id++ {
		t, w := s.Type(id), s.Extra(id)
		for j, n := 0, numRefs(t, w); j < n; j++ {
			if c := refAt(t, w, j); c >= end {
				return &btf.FormatError{Off: -1, ID: id, Kind: t.Kind(), Msg: fmt.Sprintf("%q references type [%d], last id is %d", s.Name(id), c, end-1)}
			}
		}
	}
	return nil
}

// indexBase computes hashes, tags and the index for the base's types,
// which are already deduplicated; duplicates inside the base (a base
// deduplicated less completely) map to their first occurrence via canon.
// Without duplicates (hashBase proves there are none) the base is only
// hashed; with them, it is deduplicated as a batch.
func (d *Incremental) indexBase() error {
	// The base's working state and per-id arrays are sized exactly (resize
	// and grow would add a quarter): 108k types on a vmlinux, set up once
	// per module, where they are most of what a small module allocates.
	// The base's hashes are computed in place: the batch's hash arrays
	// are the table's per-id arrays past void (base ids are 1 to n), with
	// a sixteenth of room for the module's types past them.
	if !baseFullRun && !lazyBaseOff && d.lazyIndexBase() {
		return nil
	}
	n := d.base.Len()
	c := 1 + n + n/16
	d.hash = append(make([]uint64, 0, c), d.hash...)[:1+n]
	d.tag = append(make([]uint64, 0, c), d.tag...)[:1+n]
	d.lh = append(make([]uint64, 0, c), d.lh...)[:1+n]
	d.fin = append(make([]bool, 0, c), d.fin...)[:1+n]
	d.next = append(make([]uint32, 0, c), d.next...)
	d.index.reset(n)
	if !baseFullRun {
		ok, err := d.hashBase()
		if err != nil {
			return err
		}
		if ok {
			d.baseHashed = true
			d.splitIndex()
			return nil
		}
	} else if err := checkRefs(d.base); err != nil {
		return err
	}
	// Two base types may be equivalent: the full run finds out.
	d.next = d.next[:1]
	d.st = &batchState{d: d,
		res: make([]uint32, n), aux: make([]uint32, n), idx: make([]uint32, n), low: make([]uint32, n), bnext: make([]uint32, n),
		bhash: d.hash[1:], btag: d.tag[1:], blh: d.lh[1:], fin: d.fin[1:]}
	d.index.reset(n)
	st := d.loadSpec(d.base)
	st.fwdOK = false // the base is final: no FWD in it is resolved again
	st.run()
	st.commitBase()
	d.st = nil // sized for the whole base; batches are smaller
	d.splitIndex()
	return nil
}

// splitIndex makes the index of the base's types (just built) baseIndex,
// and index that of the table's, empty: the base's never changes, and
// Finish's rebuilds then only empty the table's.
func (d *Incremental) splitIndex() {
	d.baseIndex, d.index = d.index, hindex{}
	d.index.reset(0)
}

// chain returns the newest id of hash h, table or base, or 0; d.next
// links it to the older ones (a table type's to the base's).
func (d *Incremental) chain(h uint64) uint32 {
	if c := d.index.find(h, d.hash, d.hoff); c != 0 || d.baseIndex.slots == nil {
		return c
	}
	return d.baseHead(h)
}

// canonEx returns the canonical id of an existing (base or table) id.
func (d *Incremental) canonEx(id uint32) uint32 {
	if d.canon != nil && id < uint32(len(d.canon)) {
		return d.canon[id]
	}
	return id
}

// neverMerged reports whether types of kind k always stay distinct.
func (d *Incremental) neverMerged(k btf.Kind) bool {
	return !d.mergeAll && (k == btf.KindVar || k == btf.KindDatasec)
}

// grow reserves per-id state for n more ids, by at least a quarter of
// what there is, so that many small batches do not copy it every time.
func (d *Incremental) grow(n int) {
	if cap(d.hash)-len(d.hash) < n {
		c := len(d.hash) + max(n, len(d.hash)/4)
		d.hash = append(make([]uint64, 0, c), d.hash...)
		d.tag = append(make([]uint64, 0, c), d.tag...)
		d.lh = append(make([]uint64, 0, c), d.lh...)
		d.fin = append(make([]bool, 0, c), d.fin...)
	}
	if cap(d.next)-len(d.next) < n {
		d.next = append(make([]uint32, 0, len(d.next)+max(n, len(d.next)/4)), d.next...)
	}
}

// Reserve makes room, at once, for n more table types with words more
// extra words, in the table and in its per-type state, and for strings
// more strings in its lookup set: a run of batches known to add about
// that many (the encoder's function merge, which takes a vmlinux's table
// from 40k to 109k types and doubles its strings) then does not grow
// them a quarter at a time, each step holding the old arrays and the new.
func (d *Incremental) Reserve(n, words, strings int) {
	if d.room < n || d.wroom < words {
		n, words = max(n, d.room), max(words, d.wroom)
		d.table.Grow(n, words)
		d.room, d.wroom = n, words
	}
	d.grow(n)
	if !d.shared {
		d.table.Strings().GrowIndex(strings)
	}
}

// push appends the per-id state of a new table id.
func (d *Incremental) push(h, tag, lh uint64, fin bool, indexed bool) {
	d.hash = append(d.hash, h)
	d.tag = append(d.tag, tag)
	d.lh = append(d.lh, lh)
	d.fin = append(d.fin, fin)
	d.link(indexed)
}

// link appends the hash chain link of the next id, whose hash is set,
// and indexes it if indexed.
func (d *Incremental) link(indexed bool) {
	id := d.hoff + uint32(len(d.next))
	var nx uint32
	if indexed {
		h := d.hash[id-d.hoff]
		nx = d.index.put(h, id, d.hash, d.hoff)
		if nx == 0 && d.baseIndex.slots != nil {
			nx = d.baseHead(h)
		}
	}
	d.next = append(d.next, nx)
}
