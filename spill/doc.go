// Package spill accounts memory against a budget and moves large
// intermediate tables out of memory when the budget is exceeded.
//
// # Role
//
// Budget is the single accountant of btfstream's big structures: CU arenas
// in flight, type and string tables, dedup maps, I/O buffers. Producers
// Reserve before they allocate and Release when they free; with -j N the
// decoders block in Reserve while the in-order encoder catches up, so
// parallelism never costs memory beyond the budget. SetRuntimeLimit ties
// the Go runtime's soft limit to the same number so the GC works harder
// before the process grows past it.
//
// Store is an append-only table of byte records (per-CU BTF awaiting
// dedup, function state, ...). Records live in fixed-size chunks in memory;
// when the Budget is over its limit, full chunks are compressed with zstd
// and written to a temp file, and come back through a small bounded cache
// (ristretto) when read.
//
// # Invariants
//
//   - Spill files have no name: the budget's TempFunc (SetTempFiles; the
//     encoder passes stream/outfile.Temp, an O_TMPFILE file on Linux)
//     makes them, so they disappear when the process ends, whether it
//     succeeds, fails, or is killed by SIGINT, SIGTERM or SIGKILL. Without
//     a TempFunc a file is created and unlinked at once (a SIGKILL between
//     the two would leave it).
//   - A write error (a full disk) is returned to the caller wrapped with the
//     spill file's directory; nothing else in the output depends on it.
//   - What is spilled and when never changes what a reader gets back: the
//     output of a run is the same at any limit.
//
// # Imports
//
// spill imports the standard library, klauspost/compress/zstd and
// ristretto v2 only; it knows nothing of BTF or DWARF and must not import
// any other package of this module.
package spill
