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
//	dwarfread  units read in file order (UnitReader), decoded into DIEs
//	encode     one unit's DIEs -> a self-contained BTF batch: types
//	           numbered from 1 with their own strings, function states,
//	           VARs, what the array index type needs
//	merge      batches in file order -> dedup table, id remap; function
//	           merge by name, DATASECs, Finish
//	elfwrite   the result into the ELF file's .BTF, or a detached file
//
// This package wires them (pipeline.go): one producer reads units in
// file order; EncodeOptions.Jobs workers each take a unit from decoding to
// its batch and free the unit at once; the caller's goroutine merges the
// batches strictly in file order (internal/ordered). Everything runs under
// one memory budget (mem.go): units and batches in flight, page cache,
// tables and saved function states are accounted against
// EncodeOptions.MemLimit. CPU profiles carry a "stage" label (read, work,
// merge, finish) that tells the serial path from the workers' share.
//
// # Invariants
//
//   - Output is byte-identical for every Jobs and MemLimit: the merger
//     sees the same batches in the same order whatever the timing
//     (jobs_test.go checks the kernel at -j1, -j2, -j3, -j8 and a limit).
//   - Errors are *elffile.Error naming the input file.
//
// # Imports
//
// stream imports its sub-packages and btf, spill.
// Nothing in the repository but cmd/, bench/ and e2e/ imports stream.
package stream
