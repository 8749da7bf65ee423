// Package encode is the per-unit stage of the pipeline: it turns one
// decoded DWARF unit (*dwarfread.CU) into BTF, as pahole 1.31's
// dwarf_loader + btf_encoder do for one compile unit.
//
// # Role
//
// Worker.Encode turns a unit into a self-contained Batch: its types in
// dwarf_loader's order, numbered from 1 with their own strings, then the
// unit's struct/union/typedef DECL_TAGs, then its VARs with their
// DECL_TAGs; and what must outlive the unit as ids and string offsets
// only: the functions that have an ELF symbol (FuncState), the DATASEC
// entries of the VARs (VarEntry), and where the arrays' index type goes
// (IndexUse: pahole picks it across units, so the merger sets it). The
// Encoder is shared and read-only; each goroutine has its own Worker. The
// rules are pahole's, file by file:
//
//   - types.go: type DIEs to BTF kinds (arrays nested per dimension, bitfields,
//     enums and ENUM64, FLOAT, FWD), the index type;
//   - shape.go: where the DIEs of each abbreviation keep their name, type
//     and member location or enumerator value (dieShape, found once per
//     abbreviation and unit), so members, enumerators and parameters are
//     read without a DIE.Attr lookup per attribute;
//   - annot.go: btf_type_tag (TYPE_TAG chains) and btf_decl_tag (DECL_TAG)
//     annotations, as LLVM (child DIEs) and GCC 16 (DW_AT_GNU_annotation
//     chains) write them;
//   - funcs.go, params.go, packed.go: which functions are saved and the
//     verdicts the merger needs (parameters in unexpected registers from
//     DW_AT_location lists, uncertain stack locations of packed structs);
//   - paramloc.go, funcsyms.go: pahole 1.32's per-parameter locations
//     (ABI slots, aggregates in pieces, true_signature's members) and the
//     function symbols' addresses and suffixes (strong definitions,
//     .isra/.constprop clones);
//   - vars.go: which variables are encoded and where (DATASEC entries);
//   - symbols.go, kfunc.go: the ELF symbol tables (function names as
//     pahole's elf_functions, object symbols) and the kfunc flags of
//     .BTF_ids sets;
//   - features.go: the --btf_features set;
//   - closurekey*.go, closureskip*.go: closure keys of type DIEs, and
//     skipping the closures the merger's ClassTable already has.
//
// # Invariants
//
//   - Encode reads the unit and writes only the batch and the Worker's
//     cache; the unit can be released as soon as Encode returns, and the
//     batch refers to nothing outside itself but, with a ClassTable, the
//     table types its import ids (ImportBit | id) name.
//   - Errors are *elffile.Error at the DIE ("DW_TAG_base_type @ <0x2c>:
//     ..."), wrapping elffile.ErrUnsupported for what BTF cannot express.
//   - Hot tables hold no pointers, int or string (symRec: 24 bytes).
//
// # Imports
//
// encode imports btf, dwarfread and elffile. It must not import dedup,
// merge, spill or the stream package: what happens to a batch after
// Encode is the merger's business, and data flows one way (dwarfread ->
// encode -> merge).
package encode
