// Package dwarfread reads the DWARF of an ELF file one unit at a time: the
// first stage of the encoder's pipeline.
//
// # Role
//
// dwarfread turns a vmlinux, a module (.ko) or an object file into a
// sequence of decoded units (*CU), each holding its DIEs in a pointer-free
// arena (package arena). Nothing requires the whole file, or all units, in
// memory:
//
//   - The ELF file is read through package elffile: the DWARF string and
//     index sections go through its bounded page cache (4 MiB by default,
//     Options.CacheBytes).
//   - .debug_info is read one unit at a time into a pooled buffer; a
//     compressed .debug_info (SHF_COMPRESSED zlib or zstd, or .zdebug_info)
//     is inflated as a stream. Small random-access sections that are
//     compressed, or need relocation in an ET_REL file, are materialized.
//   - In ET_REL files (.o, .ko) the .rel(a).debug_* relocations are applied
//     to each unit window as it is read (elffile.Relocator).
//   - Location lists (.debug_loc, .debug_loclists) are walked lazily, one
//     list at a time (LocLists).
//   - Abbreviation tables are parsed once per (offset, unit format) and kept
//     in a small bounded cache; sequential codes use a dense slice indexed
//     by code-1, a map only otherwise.
//
// # Usage
//
//	f, err := dwarfread.Open("vmlinux", dwarfread.Options{})
//	if err != nil { ... }
//	defer f.Close()
//	for cu, err := range f.Units(dwarfread.UnitOptions{Jobs: 4, LangExclude: []string{"rust"}}) {
//		if err != nil { return err }       // *elffile.Error: "vmlinux: .debug_info+0x1a2b: ..."
//		for d := range cu.Root().Children() {
//			if d.Tag() == dwarf.TagStructType {
//				size, _ := d.AttrUint(dwarf.AttrByteSize)
//				fmt.Println(d.Name(), size, d)  // "list_head 16 DW_StructType @ <0x2b>"
//			}
//		}
//		cu.Release()                        // the arena goes back to the pool
//	}
//	for sym, err := range f.ELF().Symbols() { ... } // .symtab, streamed
//
// Units are delivered strictly in file order whatever UnitOptions.Jobs is:
// with Jobs > 1 a producer reads units in order, Jobs goroutines decode
// them, and the consumer receives them through an ordered queue of at most
// Jobs units, so output never depends on -j. The language filter looks at
// the unit DIE's DW_AT_language, decoded from the first bytes of the unit,
// before the rest of the unit is read or decoded.
//
// # Values
//
// Each attribute is one uint64 in arena.Vals; Attr decodes it:
//
//	constants, flags, addresses, strx/addrx/rnglistx/loclistx indices,
//	ref_sig8, sec_offset, strp/line_strp offsets   the value itself
//	ref1/2/4/8/udata                                section offset (rebased)
//	ref_addr                                        .debug_info offset, may be in another CU
//	string (inline)                                 position in the unit bytes
//	block*, exprloc                                 position<<32 | length
//	data16                                          position of the 16 bytes
//	implicit_const                                  the abbreviation's constant
//
// Strings, strx and addrx are resolved lazily (Attr.String, Attr.Address,
// CU.RnglistOffset); nothing is resolved during decoding. Attr.Class
// follows debug/dwarf's class rules, so code written against debug/dwarf
// ports directly.
//
// # Invariants
//
//   - Tags of a CU are in section order; a parent's id is smaller than its
//     children's; CU.Lookup reads one offBucket: the first tag of 64 bytes
//     of the unit and a bit per byte where a DIE starts (offindex.go),
//     kept in the unit's arena (arena.Arena.Index) and pooled with it.
//   - A CU, its DIEs, Attrs and any []byte they returned are valid until
//     cu.Release().
//   - Hot structs (arena.Tag, attrSpec, abbrevDecl, offBucket) hold no pointers, int or
//     string; their sizes are written beside them and tested.
//   - Malformed input returns an *elffile.Error naming file, section and
//     offset and wrapping elffile.ErrFormat or elffile.ErrUnsupported; the
//     reader never panics and never sizes an allocation from an unchecked
//     header field.
//   - The DW_LANG table (lang.go) is the only one: --lang_exclude is
//     parsed and applied here, and skipped units are counted here.
//
// # Imports
//
// dwarfread imports elffile, arena and spill (a unit's arena is accounted
// against the budget). It must not import btf, dedup, encode, merge or the
// stream package: it knows nothing of BTF. debug/dwarf is used for its
// constants and class names; debug/dwarf and debug/elf are test oracles.
//
// Specifications: DWARF 5 (https://dwarfstd.org/doc/DWARF5.pdf), System V
// gABI "Object Files" (relocation).
package dwarfread
