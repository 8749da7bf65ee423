package merge

import (
	"encoding/binary"
	"fmt"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/encode"
)

// Config configures a Merger.
type Config struct {
	Features encode.Features
	// Syms and FuncStrings are the encoder's symbol table and the strings
	// its FuncStates' names point into.
	Syms        *encode.Symbols
	FuncStrings *btf.Strings
	// SectionNames are the ELF section names by index (DATASEC names).
	SectionNames []string
	// Base is the BTF a module's is split onto (nil for vmlinux).
	Base *btf.Spec
	// Budget accounts the saved function states, which spill to TmpDir
	// when it is over; Limit (0: none) sizes their read-back windows.
	Budget *spill.Budget
	Limit  int64
	TmpDir string
	// NoDedup appends batches as they are (tests comparing type sets).
	NoDedup bool
}

// Merger is the serial end of the pipeline: it takes each unit's batch in
// file order, deduplicates it into the table, and remaps the ids the unit's
// function states, variables and the array index type refer to. After the
// last unit, Funcs merges the function states by name and Finish writes
// the result.
type Merger struct {
	cfg   Config
	d     typeSink
	idx   encode.IndexState
	funcs funcMerge
	ds    *datasecs
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
		m.d = d
	}
	m.funcs = funcMerge{syms: cfg.Syms, strs: cfg.FuncStrings,
		arenaAttrs: cfg.Features.Has(encode.FeatAttributes) && cfg.Features.Has(encode.FeatDeclTagKfuncs)}
	if cfg.Budget != nil {
		m.funcs.store = newFuncStore(cfg.Budget, cfg.Limit, cfg.TmpDir)
	}
	return m, nil
}

// Close releases the function-state store.
func (m *Merger) Close() { m.funcs.store.close() }

// NewBatch returns an empty batch for the next unit: its ids continue the
// table's.
func (m *Merger) NewBatch() *btf.Spec { return m.d.NewBatch() }

// Index is the array index type so far, in table ids.
func (m *Merger) Index() *encode.IndexState { return &m.idx }

// Table returns the deduplicated types so far.
func (m *Merger) Table() *btf.Spec { return m.d.Table() }

// Add deduplicates a unit's batch into the table and keeps its function
// states and variables with table ids.
func (m *Merger) Add(batch *btf.Spec, u *encode.Unit) error {
	r, err := m.d.AddBatch(batch)
	if err != nil {
		return &elffile.Error{Msg: fmt.Sprintf("unit %q", u.Name), Err: err}
	}
	m.idx.ID = r.Map(m.idx.ID)
	if err := m.funcs.add(u.Funcs, r); err != nil {
		return err
	}
	m.ds.add(u.Vars, r)
	return nil
}

// Funcs merges the saved function states by name into FUNC_PROTO, FUNC
// and DECL_TAG types (pahole's btf_encoder__add_saved_funcs), then adds
// the DATASECs. It returns how many FUNCs were added and how many names
// were dropped as inconsistent. Call it once, after the last unit.
func (m *Merger) Funcs() (added, dropped int, err error) {
	feat := m.cfg.Features
	batch, added, dropped, err := m.funcs.emitFuncs(m.d, feat.Has(encode.FeatConsistentFunc),
		feat.Has(encode.FeatDeclTagKfuncs) && feat.Has(encode.FeatDeclTag))
	if err != nil {
		return added, dropped, err
	}
	m.ds.emit(batch)
	if _, err := m.d.AddBatch(batch); err != nil {
		return added, dropped, err
	}
	m.funcs = funcMerge{store: m.funcs.store}
	m.cfg.Syms, m.cfg.FuncStrings = nil, nil // the symbol tables can go
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
