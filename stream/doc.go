// Package stream is btfstream's encoder: EncodeFile reads the DWARF of a
// vmlinux, module or object file and returns its BTF, as pahole -J would,
// holding one unit at a time.
//
// # The pipeline
//
// The sub-packages are the stages, in the order data flows:
//
//	elffile    the one ELF parser: headers, sections (paged, compressed,
//	           relocated), symbols, .BTF lookup; the Error type
//	dwarfread  units and DIEs, read in file order, decoded (in parallel
//	           with Jobs > 1), delivered in file order
//	encode     one unit's DWARF -> a BTF batch + function states + VARs
//	merge      batches in file order -> dedup table, id remap; function
//	           merge by name, DATASECs, Finish
//	elfwrite   the result into the ELF file's .BTF, or a detached file
//
// This package wires them (encode_file.go) under one memory budget
// (mem.go): units in flight, page cache, tables and saved function states
// are accounted against EncodeOptions.MemLimit.
//
// # Invariants
//
//   - Output is byte-identical for every Jobs and MemLimit.
//   - Errors are *elffile.Error naming the input file.
//
// # Imports
//
// stream imports its sub-packages, btf, dedup (through merge) and spill.
// Nothing in the repository but cmd/, bench/ and e2e/ imports stream.
package stream
