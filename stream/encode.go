package stream

// The encoder follows pahole 1.31 (dwarf_loader.c + btf_encoder.c) rule for
// rule, one compile unit at a time:
//
//   - Types: a unit's type DIEs are numbered in dwarf_loader's order (a
//     type's nested types, such as anonymous members' types, pointer type
//     tags and types declared in function bodies, come before it), and each
//     becomes one BTF type in a batch. Arrays of several dimensions become
//     ONE ARRAY whose nelems is the product of the dimensions; the index
//     type is the first unit's "int" (or an "int" appended after the first
//     unit that needs one). Enums with no byte size are 4 bytes; an enum
//     declaration is an empty ENUM, a struct/union declaration a FWD.
//     DW_TAG_unspecified_type becomes void; C++ references, _Atomic and
//     pointers to members are errors, as in pahole.
//   - The batch (types, then the unit's struct/union/typedef DECL_TAGs,
//     then its per-CPU VARs with their DECL_TAGs) goes to
//     dedup.Incremental; the remap turns the few ids kept across units
//     (saved functions, DATASEC entries, the index type) into table ids.
//   - Functions: every non-declaration DW_TAG_subprogram whose parameters
//     all have names and whose name (own, or its abstract origin's) is an
//     ELF FUNC symbol name (up to the first '.'; .cold/.part skipped) is
//     saved as ids and string offsets. At the end the states are merged by
//     name; with consistent_func a name is dropped if its prototypes differ
//     (pahole's loose types__match), a parameter arrives in an unexpected
//     register (judged from DW_AT_location lists), or its symbols sit at
//     different addresses. FUNCs (linkage static) follow in name order,
//     each after its FUNC_PROTO, then kfunc ("bpf_kfunc", "bpf_fastcall")
//     and btf_decl_tag DECL_TAGs; DATASECs come last.
//   - optimized_func is accepted and, as in pahole 1.31, changes nothing.

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"

	"github.com/btfstream/btfstream/arena"
	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
)

// encodeLangs maps pahole's --lang_exclude names (dwarves.c lang__str2int,
// the DW_LANG_ suffix in lower case) to DW_LANG codes.
var encodeLangs = map[string]int64{
	"c89": 0x01, "c": 0x02, "ada83": 0x03, "c_plus_plus": 0x04, "cobol74": 0x05,
	"cobol85": 0x06, "fortran77": 0x07, "fortran90": 0x08, "pascal83": 0x09,
	"modula2": 0x0a, "java": 0x0b, "c99": 0x0c, "ada95": 0x0d, "fortran95": 0x0e,
	"pli": 0x0f, "objc": 0x10, "objc_plus_plus": 0x11, "upc": 0x12, "d": 0x13,
	"python": 0x14, "opencl": 0x15, "go": 0x16, "modula3": 0x17, "haskell": 0x18,
	"c_plus_plus_03": 0x19, "c_plus_plus_11": 0x1a, "ocaml": 0x1b, "rust": 0x1c,
	"c11": 0x1d, "swift": 0x1e, "julia": 0x1f, "dylan": 0x20,
	"c_plus_plus_14": 0x21, "fortran03": 0x22, "fortran08": 0x23,
	"renderscript": 0x24, "bliss": 0x25, "mips_assembler": 0x8001,
}

// encoder holds the state of one EncodeFile run. Between units it keeps
// only ids and string offsets: the function-symbol and object-symbol
// tables (compact, sorted), saved function states, DATASEC entries and
// the dedup table.
type encoder struct {
	opts  EncodeOptions
	f     *File
	out   *btf.Spec
	d     typeSink
	idx   indexState
	funcs funcCtx
	vars  *varCtx
	stats EncodeStats
	skip  map[int64]bool
	mem   *memPlan
}

func encodeFile(path string, opts EncodeOptions) (*btf.Spec, EncodeStats, error) {
	e := &encoder{opts: opts, skip: map[int64]bool{}}
	for _, l := range opts.LangExclude {
		code, ok := encodeLangs[l]
		if !ok {
			return nil, EncodeStats{}, fmt.Errorf("%w: %q", ErrUnknownLanguage, l)
		}
		e.skip[code] = true
	}
	mem, err := newMemPlan(opts)
	if err != nil {
		return nil, EncodeStats{}, err
	}
	e.mem = mem
	defer mem.close()
	f, err := Open(path, Options{CacheBytes: mem.cacheBytes})
	if err != nil {
		return nil, EncodeStats{}, err
	}
	defer f.Close()
	e.f = f
	if err := e.run(path); err != nil {
		e.stats.Spilled = mem.budget.Spilled()
		return nil, e.stats, err
	}
	for id := e.out.FirstID(); id < e.out.NextID(); id++ {
		e.stats.KindCounts[e.out.Kind(id)]++
		e.stats.Types++
	}
	e.stats.Spilled = mem.budget.Spilled()
	e.stats.PeakAccounted = mem.budget.Peak()
	return e.out, e.stats, nil
}

func (e *encoder) run(path string) error {
	f := e.f
	if err := e.mem.check(f, e.opts.Jobs); err != nil {
		return err
	}
	feat := e.opts.Features
	secs := f.Sections()
	syms, err := readSymbols(f, func(shndx uint32) bool {
		return shndx < uint32(len(secs)) && varIncluded(secs[shndx].Name, feat)
	})
	if err != nil {
		return err
	}
	e.funcs.elfs = &syms.funcs
	if e.funcs.locs, err = newLocLists(f); err != nil {
		return err
	}
	e.funcs.v5 = e.funcs.locs.loclists != nil && e.funcs.locs.loc == nil
	e.funcs.nRegs, e.funcs.regs = regParams(f.Machine())
	e.funcs.declTags = feat.Has(FeatDeclTag)
	e.funcs.arenaAttrs = feat.Has(FeatAttributes) && feat.Has(FeatDeclTagKfuncs)
	e.funcs.strs = btf.NewStrings(nil)
	if e.funcs.store, err = newFuncStore(e.mem); err != nil {
		return err
	}
	defer func(s *funcStore) { s.close() }(e.funcs.store)
	e.mem.budget.Add(syms.funcs.bytesSize() + syms.objects.bytesSize())
	if e.opts.noDedup {
		e.d = newFlatSink(e.opts.Base)
	} else if e.d, err = dedup.NewIncremental(nil); err != nil {
		// A module is deduplicated on its own first and split onto the
		// base once at the end (dedup.SplitOnto), as pahole does.
		return err
	}
	if feat.Has(FeatDeclTagKfuncs) {
		if err := markKfuncs(f, syms); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	syms.btfIDs = nil
	e.vars = newVarCtx(f, &syms.objects, feat, e.opts.Verbose)
	addr := uint32(8)
	if !f.Class64() {
		addr = 4
	}
	le := f.ByteOrder() == binary.LittleEndian
	uo := UnitOptions{Jobs: e.opts.Jobs, LangExclude: e.opts.LangExclude, NoTypeUnits: true, Budget: e.mem.budget}
	names := newNameCache()
	for cu, err := range f.Units(uo) {
		if err != nil {
			return err
		}
		t := newEncTree(cu)
		if t.tag(0) != dwarf.TagCompileUnit && t.tag(0) != dwarf.TagPartialUnit || e.skip[t.lang] {
			cu.Release()
			e.stats.SkippedCUs++
			continue
		}
		e.stats.CUs++
		batch := e.d.NewBatch()
		c := newCUConv(t, batch, feat, le, addr)
		c.names = names
		c.collect()
		if err := c.emit(&e.idx); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		c.emitDeclTags()
		k0 := len(e.funcs.states)
		e.funcs.saveFuncs(c, 0)
		if feat.Has(FeatVar) || feat.Has(FeatGlobalVar) {
			n, err := e.vars.encodeVars(c, feat.Has(FeatDeclTag))
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			e.stats.Vars += n
		}
		r, err := e.d.AddBatch(batch)
		if err != nil {
			return fmt.Errorf("%s: unit %q: %w", path, t.name, err)
		}
		cu.Release()
		e.idx.id = r.Map(e.idx.id)
		if err := e.funcs.remap(k0, r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		e.vars.remap(r)
		e.mem.afterUnit(e.d.Table(), &e.funcs)
	}
	f.pool = arena.Pool{} // idle arenas of the last units
	batch, added, dropped, err := e.funcs.emitFuncs(e.d, feat.Has(FeatConsistentFunc),
		feat.Has(FeatDeclTagKfuncs) && feat.Has(FeatDeclTag))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	e.stats.Funcs, e.stats.DroppedFuncs = added, dropped
	e.vars.emitDatasecs(batch)
	if _, err := e.d.AddBatch(batch); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// Drop what Finish does not need before it builds the output: the
	// symbol tables, the function store, the page cache.
	e.mem.budget.Add(-syms.funcs.bytesSize() - syms.objects.bytesSize())
	e.funcs, e.vars, syms = funcCtx{}, nil, nil
	f.elf.Close()
	if e.out, _, err = e.d.Finish(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if e.opts.Base != nil && !e.opts.noDedup {
		if e.out, err = dedup.SplitOnto(e.opts.Base, e.out); err != nil {
			return fmt.Errorf("%s: split onto base: %w", path, err)
		}
	}
	if e.f.ByteOrder() == binary.BigEndian {
		e.out.ByteOrder = binary.BigEndian
	}
	return nil
}
