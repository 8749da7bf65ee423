package merge

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/encode"
)

// Config configures a Merger.
type Config struct {
	Features encode.Features
	// Syms is the encoder's symbol table (FuncState.Elf indexes it).
	Syms *encode.Symbols
	// SectionNames are the ELF section names by index (DATASEC names).
	SectionNames []string
	// Base is the BTF a module's is split onto (nil for vmlinux).
	Base *btf.Spec
	// Budget accounts the saved function states, which spill where the
	// budget's spill files go when it is over; Limit (0: none) sizes
	// their read-back windows.
	Budget *spill.Budget
	Limit  int64
	// ColdAt is the live heap at which the function states, which
	// nothing reads before the last unit, spill (0: when the budget is
	// over, as everything else).
	ColdAt int64
	// NoDedup appends batches as they are (tests comparing type sets).
	NoDedup bool
	// FuncsAside: Funcs reads and chooses the function states on a
	// goroutine of its own while the caller's adds their types (with
	// jobs to spare; a few hundred chosen states more in memory).
	FuncsAside bool
}

// Merger is the serial end of the pipeline: it takes each unit's batch in
// file order, deduplicates it into the table, and remaps the ids the unit's
// function states, variables and the array index type refer to. After the
// last unit, Funcs merges the function states by name and Finish writes
// the result.
type Merger struct {
	cfg   Config
	d     typeSink
	idx   indexState
	funcs funcMerge
	ds    *datasecs
	// placed is the batch as handed to dedup, reused from unit to unit.
	placed *btf.Spec
	// snap is the table after the last Add, for Preparers on other
	// goroutines (nil when dedup cannot be resolved elsewhere).
	snap atomic.Pointer[dedup.Snapshot]
	// classes: closures workers may skip (skip.go); nil: none.
	classes *encode.ClassTable
	skip    skipState
}

// indexState is pahole's array index type across units: has says whether
// some unit provided it; id is its table id.
type indexState struct {
	has bool
	id  btf.TypeID
}

// New returns an empty Merger. Close releases its spill files.
func New(cfg Config) (*Merger, error) {
	m := &Merger{cfg: cfg, ds: newDatasecs(cfg.SectionNames)}
	if cfg.NoDedup {
		m.d = newFlatSink(cfg.Base)
	} else {
		// A module's units meet the base from the first one on, so split
		// mode sees each unit's own view of the types it shares with the
		// base: the module copies libbpf keeps (dedup/doc.go, "Modules")
		// are only found there, not after the module's own dedup.
		d, err := dedup.NewIncremental(cfg.Base)
		if err != nil {
			return nil, err
		}
		if cfg.Budget != nil && cfg.Limit > 0 {
			// Finish writes the old table here while it rebuilds it.
			d.SetStore(func() dedup.RecordStore {
				return tableStore{spill.NewStore("dedup table", cfg.Budget).Sequential(), cfg.Budget, cfg.ColdAt}
			})
		}
		m.d = d
		m.snap.Store(d.Snapshot())
		m.initSkip(cfg)
	}
	m.funcs = funcMerge{syms: cfg.Syms, strs: btf.NewStrings(nil), aside: cfg.FuncsAside,
		arenaAttrs: cfg.Features.Has(encode.FeatAttributes) && cfg.Features.Has(encode.FeatDeclTagKfuncs)}
	if cfg.Budget != nil {
		m.funcs.store = newFuncStore(cfg.Budget, cfg.Limit)
		// Nothing reads the states before the last unit: the coldest
		// data there is.
		cfg.Budget.AddSpiller("function states", m.funcs.store.st, cfg.ColdAt)
	}
	return m, nil
}

// Replays reports how many components of the units' batches were taken
// as a Preparer resolved them, and how many were resolved again.
func (m *Merger) Replays() (replayed, resolved int) {
	if d, ok := m.d.(*dedup.Incremental); ok {
		return d.Replays()
	}
	return 0, 0
}

// Close releases the function-state store.
func (m *Merger) Close() { m.funcs.store.close() }

// Table returns the deduplicated types so far.
func (m *Merger) Table() *btf.Spec { return m.d.Table() }

// FuncStringsLen is the size of the saved function states' strings.
func (m *Merger) FuncStringsLen() uint32 { return m.funcs.strs.Len() }

// Add deduplicates a unit's batch into the table and keeps its function
// states and variables with table ids. Batches must come in file order.
// p, if not nil, is b prepared by a worker (Preparer): the merger then
// does only the table's share of the work.
func (m *Merger) Add(b *encode.Batch, p *Prepared) error {
	var table func(btf.TypeID) btf.TypeID
	res0 := m.resolutions()
	if d, ok := m.d.(*dedup.Incremental); ok && p != nil && p.Batch == b && m.indexFits(b) {
		r, err := d.AddPrepared(p.p)
		if err != nil {
			return &elffile.Error{Msg: fmt.Sprintf("unit %q", b.Name), Err: err}
		}
		table = withImports(r.Map)
		if !m.idx.has {
			own := b.Index.LocalInt
			if own == 0 {
				own = b.Index.AddedInt
			}
			if own != 0 {
				m.idx = indexState{true, r.Map(own)}
			}
		}
	} else {
		if p != nil && p.Batch == b {
			p.p.Restore() // Prepare moved the batch's edges
		}
		batch, local := m.place(b)
		r, err := m.d.AddBatch(batch)
		if err != nil {
			return &elffile.Error{Msg: fmt.Sprintf("unit %q", b.Name), Err: err}
		}
		m.idx.id = r.Map(m.idx.id)
		table = func(id btf.TypeID) btf.TypeID { return r.Map(local(id)) }
	}
	if d, ok := m.d.(*dedup.Incremental); ok {
		m.snap.Store(d.Snapshot())
	}
	if err := m.publish(b, table, res0); err != nil {
		return err
	}
	if err := m.funcs.add(b.Funcs, b.Types.Strings(), table); err != nil {
		return err
	}
	m.ds.add(b.Vars, table)
	return nil
}

// Holds reports whether the table kept a reference to b after Add (dedup
// adopts the first batch's strings), so b must not be reused.
func (m *Merger) Holds(b *encode.Batch) bool { return m.d.Table().Strings() == b.Types.Strings() }

// place copies a self-contained batch to the ids it takes after the
// table, giving its arrays their index type (dropping the "int" the
// encoder appended if an earlier unit provided one), and returns it with
// the map from its local ids to those ids. The strings stay the batch's:
// dedup reads them in place and interns only those of new types.
func (m *Merger) place(b *encode.Batch) (*btf.Spec, func(btf.TypeID) btf.TypeID) {
	src := b.Types
	if m.placed == nil {
		m.placed = m.d.NewBatch()
	} else {
		m.placed.ResetSplit(m.d.Table())
	}
	out := m.placed
	out.SetStrings(src.Strings())
	t0 := out.FirstID()
	drop := btf.TypeID(0)
	switch {
	case m.idx.has:
		drop = b.Index.AddedInt
	case b.Index.LocalInt != 0:
		m.idx = indexState{true, t0 + b.Index.LocalInt - 1}
	case b.Index.AddedInt != 0:
		m.idx = indexState{true, t0 + b.Index.AddedInt - 1}
	}
	local := func(id btf.TypeID) btf.TypeID {
		switch {
		case id == 0:
			return 0
		case id >= encode.ImportBit:
			return id &^ encode.ImportBit
		case drop != 0 && id > drop:
			return t0 + id - 2
		}
		return t0 + id - 1
	}
	out.Grow(src.Len(), 0)
	arrays := b.Index.Arrays
	for id := src.FirstID(); id < src.NextID(); id++ {
		if id == drop {
			continue
		}
		nid := out.Add(src.Type(id), src.Extra(id)...)
		out.ForEachRef(nid, func(ref *uint32) { *ref = uint32(local(btf.TypeID(*ref))) })
		if len(arrays) > 0 && arrays[0] == id {
			out.Extra(nid)[1] = uint32(m.idx.id)
			arrays = arrays[1:]
		}
	}
	return out, local
}

// Funcs merges the saved function states by name into FUNC_PROTO, FUNC
// and DECL_TAG types (pahole's btf_encoder__add_saved_funcs), then adds
// the DATASECs. It returns how many FUNCs were added and how many names
// were dropped as inconsistent. Call it once, after the last unit.
func (m *Merger) Funcs() (added, dropped int, err error) {
	m.snap.Store(nil) // no more units: the old table views can go
	m.reportSkips()
	feat := m.cfg.Features
	if d, ok := m.d.(*dedup.Incremental); ok && m.funcs.store != nil {
		// Room at once for what the merge adds: a FUNC per name, about
		// half as many new FUNC_PROTOs (on a vmlinux: 47k FUNCs, 22k new
		// protos for 50k names), a name per FUNC.
		names := m.funcs.store.sortKeys()
		d.Reserve(names+names/2, 0, names)
	}
	if d, ok := m.d.(*dedup.Incremental); ok && m.funcs.aside {
		// Finish's first pass over the table, beside the merge (the
		// functions' types change nothing of it: dedup.ResolveAhead).
		d.ResolveAhead()
	}
	batch, added, dropped, err := m.funcs.emitFuncs(m.d, funcOpts{consistent: feat.Has(encode.FeatConsistentFunc),
		kfuncTags: feat.Has(encode.FeatDeclTagKfuncs) && feat.Has(encode.FeatDeclTag),
		trueSig:   feat.Has(encode.FeatTrueSignature)})
	if err != nil {
		return added, dropped, err
	}
	// The states are merged: their store (and spill file) go before
	// Finish, the last peak.
	m.funcs.store.close()
	m.ds.emit(batch)
	if _, err := m.d.AddBatch(batch); err != nil {
		return added, dropped, err
	}
	m.funcs = funcMerge{store: m.funcs.store}
	m.cfg.Syms = nil // the symbol tables can go
	return added, dropped, nil
}

// Finish resolves forward declarations over the whole table and returns
// the final BTF (split BTF over the base for a module) in byte order order.
func (m *Merger) Finish(order binary.ByteOrder) (*btf.Spec, error) {
	out, _, err := m.d.Finish()
	if err != nil {
		return nil, err
	}
	if order == binary.BigEndian {
		out.ByteOrder = binary.BigEndian
	}
	return out, nil
}

// tableStore is a spill.Store as the dedup table's RecordStore.
type tableStore struct {
	*spill.Store
	budget *spill.Budget
	coldAt int64 // live heap from which the old table goes to disk
}

// Append appends rec and, once the live heap is past coldAt, spills what
// is closed: the store takes the old table out of memory while the new
// one is built, and is read back twice, in order. With room to spare (a
// large limit) the records stay in memory, no bigger than the table.
func (s tableStore) Append(rec []byte) (uint32, error) {
	id, err := s.Store.Append(rec)
	if err == nil && s.budget.LiveHeap() > s.coldAt {
		_, err = s.Store.SpillCold()
	}
	return uint32(id), err
}

func (s tableStore) Get(i uint32) ([]byte, error) { return s.Store.Get(spill.RecordID(i)) }
