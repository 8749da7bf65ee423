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
// EncodeOptions.MemLimit. The pipeline reports its stages (setup, read,
// work, merge, finish) to a hook (SetStageHook); bench/encodeprof turns
// them into a "stage" label on CPU profiles, which tells the serial path
// from the workers' share (btfstream itself links no runtime/pprof).
//
// # Where the time goes, and what 16 cores would do
//
// Measured on the 6.12 cloud vmlinux at -j1 (bench/encodeprof -j 1
// -cpuprofile cpu.out FILE; go tool pprof -tags cpu.out; three runs on a
// 2-core host, 2026-11-23): of 5.6 s of CPU, the workers' stage (decode,
// encode, dedup.Prepare and resolving against the table snapshot) takes
// 4.8-5.1 s, 86-89%; the serial path 0.49-0.63 s, 9-11% (setup 0.16 s:
// the symbol table, overlapped with the first units at -j > 1; finish
// 0.16 s: function merge by name and dedup.Finish; merge 0.07-0.15 s:
// AddPrepared replaying what the worker resolved, and the id remap; read
// 0.08-0.15 s: unit headers); the rest, 0.14-0.21 s, is the Go runtime's
// unlabelled share. A worker's resolution is replayed unless a batch added
// since its snapshot changed what it read: at -j2 0.4% of the components
// are resolved again by the merger, at -j8 1.5% (merge 0.4 s).
//
// On 16 cores the work stage divides by 16 (0.3 s) and the serial path
// stays: read and merge about 0.5 s (more components resolved again with
// more batches in flight), finish 0.16 s, so a vmlinux takes about 0.8-1 s,
// 5-6x the -j1 time, against Amdahl's 6.4x for an 11% serial share. Each
// job beyond the first holds about 17 MiB more (one unit's arena, its
// batch, the worker's caches and table snapshot: -j2 103 MB, -j3 125 MB,
// -j8 208 MB peak RSS), so -j16 would peak near 350 MB, still below
// pahole 1.31's -j1. Under --mem-limit, the limit decides how many jobs
// run (mem.go), never the output.
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
