package encode

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
//   - The batch holds the types, then the unit's struct/union/typedef
//     DECL_TAGs, then its per-CPU VARs with their DECL_TAGs.
//   - Functions: every non-declaration DW_TAG_subprogram whose parameters
//     all have names and whose name (own, or its abstract origin's) is an
//     ELF FUNC symbol name (up to the first '.'; .cold/.part skipped) is
//     saved as ids and string offsets (FuncState); the merger merges them
//     by name at the end.
//   - optimized_func is accepted and, as in pahole 1.31, changes nothing.

import (
	"debug/dwarf"
	"encoding/binary"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// IndexState is pahole's array index type bookkeeping, carried across
// units: the first unit with a base type named "int" provides it, else an
// "int" is appended after the first unit that needs one. The merger maps
// ID to a table id after each unit.
type IndexState struct {
	Has bool
	ID  btf.TypeID
}

// Config configures an Encoder.
type Config struct {
	Features Features
	// Verbose, when non-nil, receives one line per skipped item.
	Verbose func(msg string)
}

// Encoder converts the units of one file into BTF, one at a time. Between
// units it keeps only what every unit needs: the symbol tables, the
// location list reader, and the strings of saved function states.
type Encoder struct {
	feat  Features
	le    bool
	addr  uint32 // address size
	names *nameCache
	funcs funcCtx
	vars  *varCtx
	out   Unit
}

// Unit is what Encode made of one unit besides its types. Its slices are
// reused by the next Encode.
type Unit struct {
	Name  string      // DW_AT_name of the unit DIE
	Funcs []FuncState // functions with an ELF symbol, batch ids
	Vars  []VarEntry  // DATASEC entries of the unit's VARs, batch ids
}

// New returns the encoder of f's units. syms is the symbol table
// (ReadSymbols, then MarkKfuncs with decl_tag_kfuncs).
func New(f *dwarfread.File, syms *Symbols, cfg Config) (*Encoder, error) {
	feat := cfg.Features
	e := &Encoder{feat: feat, le: f.ByteOrder() == binary.LittleEndian, addr: 8, names: newNameCache()}
	if !f.Class64() {
		e.addr = 4
	}
	locs, err := dwarfread.NewLocLists(f)
	if err != nil {
		return nil, err
	}
	e.funcs = funcCtx{elfs: &syms.funcs, locs: locs, declTags: feat.Has(FeatDeclTag), strs: btf.NewStrings(nil)}
	e.funcs.v5 = locs.HasLoclists() && !locs.HasLoc()
	e.funcs.nRegs, e.funcs.regs = regParams(f.Machine())
	e.vars = newVarCtx(f.ELF(), &syms.objects, feat, cfg.Verbose)
	return e, nil
}

// FuncStrings holds the names and annotation values of saved function
// states (FuncParam.Name, FuncAnnot.Value).
func (e *Encoder) FuncStrings() *btf.Strings { return e.funcs.strs }

// Skip reports whether a unit is not encoded: only compile and partial
// units are (type units are not).
func Skip(cu *dwarfread.CU) bool {
	tag := cu.Root().Tag()
	return tag != dwarf.TagCompileUnit && tag != dwarf.TagPartialUnit
}

// Encode adds cu's types to batch (whose ids continue those of the types
// it may reference: the table's) and returns its function states and
// variables. idx is the array index type so far; Encode updates it.
func (e *Encoder) Encode(cu *dwarfread.CU, batch *btf.Spec, idx *IndexState) (*Unit, error) {
	t := newEncTree(cu)
	u := &e.out
	u.Name, u.Funcs, u.Vars = t.name, u.Funcs[:0], u.Vars[:0]
	clear(e.funcs.states)
	e.funcs.states = e.funcs.states[:0]
	c := newCUConv(t, batch, e.feat, e.le, e.addr)
	c.names = e.names
	c.collect()
	if err := c.emit(idx); err != nil {
		return nil, err
	}
	c.emitDeclTags()
	e.funcs.saveFuncs(c, 0)
	u.Funcs = e.funcs.states
	if e.feat.Has(FeatVar) || e.feat.Has(FeatGlobalVar) {
		var err error
		if u.Vars, err = e.vars.encodeVars(c, e.feat.Has(FeatDeclTag), u.Vars); err != nil {
			return nil, err
		}
	}
	return u, nil
}
