package encode

// The encoder follows pahole 1.31 (dwarf_loader.c + btf_encoder.c) rule for
// rule, one compile unit at a time:
//
//   - Types: a unit's type DIEs are numbered in dwarf_loader's order (a
//     type's nested types, such as anonymous members' types, pointer type
//     tags and types declared in function bodies, come before it), and each
//     becomes one BTF type in a batch, except an array of n dimensions: n
//     nested ARRAYs, innermost first (pahole 1.32; 1.31 wrote one ARRAY of
//     the dimensions' product); the index type is the first unit's "int"
//     (or an "int" appended after the first unit that needs one). Enums with no byte size are 4 bytes; an enum
//     declaration is an empty ENUM, a struct/union declaration a FWD.
//     DW_TAG_unspecified_type becomes void; C++ references, _Atomic and
//     pointers to members are errors, as in pahole.
//   - The batch holds the types, then the unit's struct/union/typedef
//     DECL_TAGs, then its per-CPU VARs with their DECL_TAGs.
//   - Functions: every non-declaration DW_TAG_subprogram whose parameters
//     all have names and whose name (own, or its abstract origin's) is an
//     ELF FUNC symbol name (up to the first '.'; .cold/.part skipped) is
//     saved as ids and string offsets (FuncState); the merger merges them
//     by name at the end. Their verdicts are pahole 1.32's (paramloc.go:
//     locations judged per ABI register slot, parameters out of their
//     abstract origin's order; funcs.go: DW_AT_low_pc against the name's
//     symbols, whose addresses and '.' suffixes funcsyms.go keeps).
//   - optimized_func is accepted and changes nothing: pahole 1.32 always
//     keeps functions with optimized-out parameters unless their ABI
//     changed.

import (
	"debug/dwarf"
	"encoding/binary"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/elffile"
)

// IndexUse is what the merger needs to give a unit's arrays their index
// type, which pahole picks across units: the first unit (in file order)
// with a base type named "int" provides it, else an "int" is appended
// after the first unit that needs one. In the batch, the arrays refer to
// LocalInt if there is one, else to AddedInt. Ids are the batch's.
type IndexUse struct {
	LocalInt btf.TypeID   // the unit's first base type named "int" (0: none)
	AddedInt btf.TypeID   // the "int" appended for the unit's arrays (0: none)
	Arrays   []btf.TypeID // ARRAYs, whose index word (Extra()[1]) the merger may re-point
}

// Config configures an Encoder.
type Config struct {
	Features Features
	// Verbose, when non-nil, receives one line per variable left out for a
	// reason a user may want to know (stream.EncodeOptions.Verbose).
	Verbose func(msg string)
	// NameCacheBits sizes each worker's cache of .debug_str names: 1<<n
	// slots of 16 bytes and up to 32<<n bytes of names (0: 1<<16, 3 MiB
	// in all; a memory limit asks for less).
	NameCacheBits uint8
}

// Encoder holds what every unit of a file needs: the symbol tables, the
// location list reader, the sections. It is read-only once made, so
// several Workers may use it at once.
type Encoder struct {
	feat     Features
	nameBits uint8
	le       bool
	addr     uint32 // address size
	funcs    funcCtx
	vars     *varCtx
}

// Batch is one unit encoded, self-contained: it refers to nothing outside
// itself, so a worker can build it while the merger is busy with earlier
// units.
type Batch struct {
	// Types are the unit's types, numbered from 1, with their own
	// strings: its types (in dwarf_loader's order), an index "int" if
	// Index.AddedInt says so, its struct/union/typedef DECL_TAGs, its VARs
	// with their DECL_TAGs.
	Types *btf.Spec
	Name  string      // DW_AT_name of the unit DIE
	Funcs []FuncState // functions with an ELF symbol; names in Types.Strings()
	Vars  []VarEntry  // DATASEC entries of the unit's VARs
	Index IndexUse
	// Keys: keyed declaration-free types converted (closureskip.go), for
	// the merger to publish; Checks: types a ClassTable in check mode
	// would have skipped. Imports: how many types were skipped.
	Keys, Checks []KeyedType
	Imports      int
	// DeclKeys: keyed types with declarations converted, with
	// DeclImports of them skipped while the table had resolved DeclRes
	// declarations (closureskip_decl.go); DeclChecks: those a table in
	// check mode would have skipped; DeclClasses: the table ids of the
	// DeclImports.
	DeclKeys, DeclChecks []KeyedType
	DeclClasses          []btf.TypeID
	DeclImports          int
	DeclRes              uint32
	// NodeImports: the skipped DIEs, if the worker records them
	// (closureskip_again.go).
	NodeImports []NodeImport
}

// NewBatch returns an empty batch.
func NewBatch() *Batch {
	b := &Batch{Types: btf.NewSpec()}
	b.Types.Strings().NoMemo() // the worker's name cache does its job
	return b
}

// reset empties b for another unit, keeping its memory. Funcs are
// dropped, not reused: the merger may keep their slices.
func (b *Batch) reset() {
	b.Types.Reset()
	b.Types.Strings().Reset()
	b.Name, b.Funcs, b.Vars = "", nil, b.Vars[:0]
	b.Index = IndexUse{Arrays: b.Index.Arrays[:0]}
	b.Keys, b.Checks, b.Imports = b.Keys[:0], b.Checks[:0], 0
	b.DeclKeys, b.DeclChecks, b.DeclImports, b.DeclRes = b.DeclKeys[:0], b.DeclChecks[:0], 0, 0
	b.DeclClasses, b.NodeImports = b.DeclClasses[:0], b.NodeImports[:0]
}

// Bytes estimates the batch's memory.
func (b *Batch) Bytes() int64 {
	n := int64(b.Types.Len())*16 + int64(b.Types.Strings().Len()) + int64(len(b.Vars))*16 + int64(len(b.Index.Arrays))*4
	for i := range b.Funcs {
		n += 48 + 8*int64(len(b.Funcs[i].Params)) + 8*int64(len(b.Funcs[i].Annots))
	}
	for id := b.Types.FirstID(); id < b.Types.NextID(); id++ {
		n += 4 * int64(len(b.Types.Extra(id)))
	}
	return n
}

// New returns the encoder of f's units. syms is the symbol table
// (ReadSymbols, then MarkKfuncs with decl_tag_kfuncs).
func New(f *dwarfread.File, syms *Symbols, cfg Config) (*Encoder, error) {
	feat := cfg.Features
	e := &Encoder{feat: feat, le: f.ByteOrder() == binary.LittleEndian, addr: 8, nameBits: cfg.NameCacheBits}
	if !f.Class64() {
		e.addr = 4
	}
	locs, err := dwarfread.NewLocLists(f)
	if err != nil {
		return nil, err
	}
	e.funcs = funcCtx{elfs: &syms.funcs, locs: locs, declTags: feat.Has(FeatDeclTag), trueSig: feat.Has(FeatTrueSignature)}
	e.funcs.v5 = locs.HasLoclists() && !locs.HasLoc()
	e.funcs.abi.nRegs, e.funcs.abi.regs = regParams(f.Machine())
	e.funcs.abi.addr = int(e.addr)
	e.funcs.abi.aggTwoRegs = f.Machine() != elffile.EMS390
	e.funcs.rel = f.ELF().Relocatable()
	e.vars = newVarCtx(f.ELF(), &syms.objects, feat, cfg.Verbose)
	return e, nil
}

// Worker encodes units on one goroutine: it holds that goroutine's
// scratch state (the name cache).
type Worker struct {
	e        *Encoder
	names    *nameCache
	funcSyms *funcSymCache
	conv     *cuConv      // reused, with its buffers
	classes  *ClassTable  // closures to skip (closureskip.go); nil: none
	keys     *ClosureKeys // with classes
	record   bool         // list the skipped DIEs (RecordImports)
}

// NewWorker returns a worker; use one per goroutine.
func (e *Encoder) NewWorker() *Worker { return e.NewWorkerBits(e.nameBits) }

// NewWorkerBits returns a worker whose name cache has 1<<bits slots (0:
// the encoder's size), for one that encodes few units.
func (e *Encoder) NewWorkerBits(bits uint8) *Worker {
	if bits == 0 {
		bits = e.nameBits
	}
	nc := newNameCache(bits)
	// A quarter of the name cache's slots (1<<14, 128 KiB by default): a
	// unit's functions are fewer than its names.
	fsBits := max(30-nc.shift, 8)
	return &Worker{e: e, names: nc, funcSyms: newFuncSymCache(fsBits)}
}

// Skip reports whether a unit is not encoded: only compile and partial
// units are (type units are not).
func Skip(cu *dwarfread.CU) bool {
	tag := cu.Root().Tag()
	return tag != dwarf.TagCompileUnit && tag != dwarf.TagPartialUnit
}

// Encode converts cu into a Batch: into, emptied, or a new one if into is
// nil (a batch the merger is done with can be reused). cu may be released
// as soon as it returns.
func (w *Worker) Encode(cu *dwarfread.CU, into *Batch) (*Batch, error) {
	var mark func(*cuConv, *Batch)
	if w.classes != nil {
		mark = w.markImports
	}
	return w.encode(cu, into, mark)
}

// encode is Encode, mark (if any) choosing the skipped DIEs in c.imp.
func (w *Worker) encode(cu *dwarfread.CU, into *Batch, mark func(*cuConv, *Batch)) (*Batch, error) {
	e := w.e
	t := newEncTree(cu)
	b := into
	if b == nil {
		b = NewBatch()
	} else {
		b.reset()
	}
	b.Name = t.name
	w.names.next()
	if e.funcs.rel {
		w.names.empty()
	}
	if w.conv == nil {
		w.conv = newCUConv(t, b.Types, e.feat, e.le, e.addr)
	} else {
		w.conv.reset(t, b.Types, e.feat, e.le, e.addr)
	}
	c := w.conv
	c.names, c.funcSyms, c.rel = w.names, w.funcSyms, e.funcs.rel
	c.index.Arrays = b.Index.Arrays
	c.collect()
	c.imp, c.imports, c.keyed = c.imp[:0], 0, nil
	if mark != nil && !t.annots && len(c.tags) == 0 {
		mark(c, b)
	}
	if err := c.emit(); err != nil {
		return nil, err
	}
	b.Index = c.index
	if mark != nil {
		c.keyIDs(b)
		b.Imports = c.imports
	}
	c.emitDeclTags()
	b.Funcs = e.funcs.saveFuncs(c, 0, nil)
	if e.feat.Has(FeatVar) || e.feat.Has(FeatGlobalVar) {
		var err error
		if b.Vars, err = e.vars.encodeVars(c, e.feat.Has(FeatDeclTag), b.Vars); err != nil {
			return nil, err
		}
	}
	if t.foreignErr != nil {
		return nil, t.foreignErr
	}
	if c.keyed != nil && w.record {
		// Only now: emit, funcs and vars find types through c.keyed.
		c.keyed = nil
		w.keys.Trim(keysKeptDIEs)
	}
	return b, nil
}
