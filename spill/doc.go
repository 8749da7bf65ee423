// Package spill accounts memory against a budget and moves large
// intermediate tables out of memory when the budget is exceeded.
//
// # Role
//
// Budget is the single accountant of btfstream's big structures: CU arenas
// in flight, type and string tables, dedup maps, I/O buffers. Producers
// Reserve or Acquire before they allocate and Release or Return when they
// free; with -j N the decoders block in Acquire while the in-order merger
// catches up, so parallelism never costs memory beyond the budget.
// SetRuntimeLimit ties the Go runtime's soft limit to the same number so
// the collector works harder before the process grows past it.
//
// Accounting covers the big tables, not every buffer, so a Budget also
// watches the Go heap itself: the live bytes the runtime found reachable
// at its last collection (SetHeapTarget, SetHeapCeiling). That number
// counts everything, whatever was accounted.
//
// Store is an append-only table of byte records. Records live in chunks
// of ChunkSize bytes in memory; a closed chunk is compressed with zstd
// (one-chunk window, fastest level) and written to a spill file when the
// budget is over, and read back when a record of it is needed: through a
// small bounded cache (Cache), or, for a Sequential store read in
// order, keeping only the chunk read last.
//
// # What spills, when, and what it costs
//
// The encoder's plan (stream/mem.go) sets these from --mem-limit; without
// a limit nothing spills. Figures are for Debian's 6.12 cloud-amd64
// vmlinux (209 MB of .debug_info, 108k output types) at --mem-limit 32M.
//
//   - Function states (stream/merge funcStore): one record per function
//     DIE with an ELF symbol (60k), ids and string offsets, uvarint-packed.
//     Nothing reads them before the last unit, so they are the coldest
//     data there is: registered first with Budget.AddSpiller, with a heap
//     target of half the soft limit, they spill at the first unit boundary
//     (Relieve, on the merging goroutine) where the live heap is above it,
//     and all that is still in memory spills before the function merge
//     reads them back (funcStore.windows, when the budget is over). 1.2 MB
//     of records become 180 KB on disk; in memory stay 8 bytes a state
//     (the keys, sorted by name for the merge). Reading back goes window by
//     window in name order, each window reading the chunks in record order
//     (a Sequential store): about 5 windows times 5 chunks decompressed,
//     milliseconds. The store is closed before Finish.
//   - The dedup table while Finish rebuilds it (dedup.RecordStore, a
//     Sequential Store adapted in stream/merge): the old table, 109k types
//     and 3-4 MB, is written out in groups of 1024 types, spilled as it is
//     written once the live heap is past half the soft limit (with room to
//     spare the records stay in memory, no bigger than the table), then
//     read back twice, in order (the plan of the chunked rebuild, then the
//     chunks), instead of being held beside the new one. About 1 MB on
//     disk; tens of milliseconds.
//
// Both are written and read in order, which is what a zstd file is good
// at; random access (the symbol lookups of every unit, the dedup table's
// candidates) would pay a chunk's decompression per miss. What stays in
// memory is made small instead (stream/mem.go lists the plan):
//
//   - function names front coded (101k names, 4.7 MB as a sorted symbol
//     table, 1.3 MB coded), looked up without decoding;
//   - the reader's string, abbreviation and page caches sized from the
//     limit and dropped after the last unit; each unit's arena sized for
//     the unit at once (no step-by-step growth holding old and new
//     arrays), arenas above a 32nd of the limit freed after use;
//   - the dedup table presized for the function merge (which takes it from
//     40k to 109k types), its strings' lookup sets dropped in Finish, no
//     Add memo on them;
//   - -j N: the units in flight capped to the room the limit leaves
//     (SetFlightCap: at the floor, one largest unit at a time), Acquire
//     waiting while the live heap is near the soft limit (SetHeapCeiling),
//     and fewer jobs run when the limit holds fewer (the output does not
//     depend on the number).
//
// Not spilled: the dedup table's type records and strings during the
// units. They are 40k types and about 4 MB with their strings when the
// last unit is merged; the peak comes later, in the function merge and in
// Finish, where the table's new types (FUNC_PROTOs, FUNCs) are the ones
// being compared and the old table is spilled whole. A chunked cold store
// for them would fit behind dedup.RecordStore; it is left for when a
// larger input needs it (NOTES.md).
//
// Time: at 32M the 6.12 vmlinux takes 1.3-1.5x the unlimited run's wall
// time on a shared 2-core host, almost all of it the collector working
// near the soft limit; compression and spill I/O are under 0.1 s.
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
//     output of a run is the same at any limit. When spilling happens
//     depends on the live heap, so the spilled byte count may differ from
//     run to run; the output does not.
//   - Relieve runs on the goroutine that owns the spillers' data, between
//     their uses.
//
// # Imports
//
// spill imports the standard library and klauspost/compress/zstd only;
// it knows nothing of BTF or DWARF and must not import any other package
// of this module (stream/elffile imports it for Cache).
package spill
