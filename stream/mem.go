package stream

// Memory plan of one encoding (EncodeOptions.MemLimit, issue 6).
//
// The limit is MemLimit, or with MemLimit 0 DefaultBudget: the tightest
// limit the host puts on the process (cgroup, rlimits, RAM), found in one
// place (hostmem.go). Everything large is accounted against one
// spill.Budget:
//
//   - CU arenas in flight: the reader Acquires ArenaEstimate(unit length)
//     before reading a unit's body and corrects it to the arena's footprint
//     after decoding, so -j decoders wait instead of piling units up;
//   - the page cache of string and location sections (a share of the
//     limit, at most 4 MiB);
//   - the symbol tables (compact, sorted);
//   - the dedup table, read after every batch from its Spec (type words,
//     string bytes) times dedupFactor for its hash indexes and maps;
//   - saved function states, kept in a spill.Store: once the live heap
//     passes half the soft limit (coldAt), its chunks go to an unnamed zstd
//     temp file in TmpDir and come back, in order, for the final merge;
//   - the old dedup table while Finish rebuilds it, spilled as written
//     past the same threshold.
//
// Besides, the budget watches the live heap: past heapFraction of the soft
// limit the spillers are asked to spill after each unit (afterUnit), and
// past holdFraction a unit waits for those in flight; the units in flight
// are capped to the room the limit leaves beside the floor (check), and
// the limit decides how many of the -j jobs run. What the plan sizes from
// the limit: the page cache, the reader's string and abbreviation caches,
// the arenas kept for reuse, the workers' name caches, whether function
// names get a hash index (funcIndexMax). spill/doc.go says
// what spills, when, and what it costs; memFloor is the smallest limit.
//
// The Go runtime's soft limit is set to the limit minus runtimeOverhead
// and a 32nd, so the collector runs harder rather than let the heap grow
// past it.

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/outfile"
)

// DefaultMemLimit is the budget when EncodeOptions.MemLimit is 0: the
// tightest limit the process is under (DefaultBudget, hostmem.go).
func DefaultMemLimit() int64 { return DefaultBudget().Budget }

// SoftLimit is the Go runtime soft memory limit EncodeFile uses for a
// MemLimit (0: the default; negative: none, returned as -1). EncodeFile
// sets it for its own duration and restores the previous setting; a
// program that keeps working with the result (validating, marshaling)
// should set it for its whole run: debug.SetMemoryLimit(SoftLimit(l)).
func SoftLimit(memLimit int64) int64 {
	switch {
	case memLimit == 0:
		memLimit = DefaultMemLimit()
	case memLimit < 0:
		return -1
	}
	return max(memLimit-runtimeOverhead-memLimit/32, memLimit/4)
}

// ModuleGCPercent is the Go GC target for an encode over a base (a
// module's), the process's setting as SoftLimit is (a program sets it for
// its whole run unless the user set GOGC): the heap is mostly the base's
// tables, which hold no pointers, so a collection costs little, while
// GOGC=100 lets the heap grow to twice what is live before one. Measured
// on 7.2's modules (peak RSS, same CPU within the noise): xfs 79 -> 69 MB,
// nf_tables 46 -> 43, tcp_bbr 32.5 -> 31.3.
const ModuleGCPercent = 50

const (
	// runtimeOverhead is what the process holds outside the memory the
	// Go runtime manages (which its soft limit covers: heap, stacks, GC
	// metadata): the binary's text and data. Measured on amd64 as VmRSS
	// minus the runtime's total less released memory: 0.9-1.7 MiB on the
	// vmlinux at 32M-46M. The soft limit is the limit minus this and
	// minus a 32nd of the limit for what the runtime frees late.
	runtimeOverhead = 3 << 20
	// dedupFactor scales the dedup table's BTF bytes to its whole
	// footprint (hash indexes, canonical maps, grown slices).
	dedupFactor = 3
	// spillFraction is where stores start spilling, as a fraction of the
	// limit: the accounted tables are about 40% of the Go heap on vmlinux
	// (measured: 16-18 MiB accounted at a 40 MiB live heap), the rest
	// being per-unit conversion state and garbage between collections.
	spillFraction = 0.30
	// heapFraction is where stores start spilling as a fraction of the
	// Go soft limit, measured on the live heap (what the last collection
	// found reachable): above it the collector would run nearly
	// continuously.
	heapFraction = 0.75
	// coldFraction is where data that nothing reads before the end (the
	// function states) spills, as a fraction of the soft limit: writing
	// it out costs little, and its room is better used by the tables.
	coldFraction = 0.5
	// holdFraction is the live heap, as a fraction of the soft limit, at
	// which a unit waits for the units in flight to be merged before its
	// arena is read (-j N shrinks towards one unit in flight).
	holdFraction = 0.85
	// minWorking is what a run needs besides the largest arena, the
	// tables and the page cache: the runtime overhead and the runtime's
	// own metadata, the garbage between collections, one unit's
	// conversion state, the function names, the reader's small caches.
	minWorking = runtimeOverhead + 8<<20
	// baseFactor scales a module's base BTF bytes (types and strings) to
	// what it holds in memory: the parsed Spec with its string index and
	// the dedup index over it, about 3x, and while the index is built its
	// working state, about 1x more (measured with the 6.12 vmlinux as base,
	// 4.5 MiB: 12.5 MB live after setup, 20 MB allocated). At the floor it
	// quotes, xfs, nf_tables, sctp, tcp_bbr and virtio_net of the 6.12 and
	// 6.1 kernels peak 1 to 3 MiB below it.
	baseFactor = 4
	// tableShare estimates the dedup table at its largest (after the
	// function merge) with its hash state and the function states' keys,
	// from the .debug_info size (the 6.12 cloud vmlinux: 209 MB of
	// .debug_info, 12.5 MiB of table at 109k types), capped at maxTables
	// (deduplication makes it grow far slower than the input). What is
	// cold spills (spill/doc.go), so it need not be held besides.
	tableShare = 15
	maxTables  = 24 << 20
	// kernelTables: a kernel's table is about the same size whatever
	// its .debug_info (the 6.1 cloud vmlinux, 163 MB of it, peaks as high
	// as the 6.12 one, 210 MB: its units leave more near-duplicates until
	// Finish), so a large input counts at least this much, reached at
	// kernelShare of its .debug_info.
	kernelTables = 29 << 19 // 14.5 MiB
	kernelShare  = 8
)

// memPlan is the budget of one run and what it derived from it.
type memPlan struct {
	budget     *spill.Budget
	limit      int64  // 0: unlimited
	from       string // what set limit (EncodeStats.MemLimitFrom)
	spillAll   bool   // EncodeOptions.spillAll
	cacheBytes int64
	prevLimit  int64
	dedupAcct  int64 // bytes accounted for the dedup table
	funcsAcct  int64
	// freeFrom: a split encode frees each unit arena of at least
	// freeFrom bytes that is larger than any before it, and collects
	// (releaseUnit; 0: never); largestFreed is the largest so far.
	freeFrom     uint64
	largestFreed atomic.Uint64
}

func newMemPlan(opts EncodeOptions) (*memPlan, error) {
	limit, from := opts.MemLimit, "--mem-limit"
	switch {
	case limit == 0:
		host := DefaultBudget()
		limit, from = host.Budget, host.String()
	case limit < 0:
		limit, from = 0, "--mem-limit 0"
	}
	m := &memPlan{budget: spill.NewBudget(limit), limit: limit, from: from, cacheBytes: cacheBytesFor(limit)}
	if opts.Base != nil {
		m.freeFrom = freeArenaMin
	}
	// Spill files have no name (O_TMPFILE where it works): nothing is
	// left behind, even by SIGKILL.
	m.budget.SetTempFiles(opts.TmpDir, outfile.Temp)
	if limit > 0 {
		// Under a limit anything may spill: a spill directory that
		// cannot take files fails now, not at the first spill.
		if err := checkSpillDir(opts.TmpDir); err != nil {
			return nil, err
		}
		m.prevLimit = m.budget.SetRuntimeLimit(runtimeOverhead + limit/32)
		m.budget.SetSpillAt(int64(float64(limit) * spillFraction))
		m.budget.SetHeapTarget(int64(float64(SoftLimit(limit)) * heapFraction))
		m.budget.SetHeapCeiling(int64(float64(SoftLimit(limit)) * holdFraction))
		if opts.spillAll {
			m.spillAll = true
			m.budget.SetHeapTarget(1)
		}
	} else {
		m.prevLimit = debug.SetMemoryLimit(-1)
	}
	m.budget.Add(m.cacheBytes)
	return m, nil
}

// ErrSpillDir is returned when the spill directory cannot take files.
var ErrSpillDir = errors.New("cannot create spill files")

// checkSpillDir creates and drops an unnamed file in dir ("": the
// default temporary directory), as a spill would.
func checkSpillDir(dir string) error {
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := outfile.Temp(dir, ".btfstream-probe-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%w: --tmpdir %s: %v; under a memory limit spills may go there (set --tmpdir or $TMPDIR, or --mem-limit 0)",
			ErrSpillDir, dir, err)
	}
	return f.Close()
}

func (m *memPlan) close() { debug.SetMemoryLimit(m.prevLimit) }

// reserveRuntime lowers the Go runtime's soft limit by n bytes (under a
// limit) for memory the budget does not account, and returns the undo.
func (m *memPlan) reserveRuntime(n int64) func() {
	if m.limit <= 0 || n <= 0 {
		return func() {}
	}
	cur := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(max(cur-n, m.limit/4))
	return func() { debug.SetMemoryLimit(cur) }
}

// nameCacheBits sizes each worker's name cache (encode.Config) for file
// f: by the limit (nameCacheBitsFor) and, in a relocatable file, by its
// largest unit (unitNameBits): there the encoder empties the cache at
// each unit, as units share no .debug_str offsets, so it never holds more
// than one unit's names.
func (m *memPlan) nameCacheBits(f *dwarfread.File) uint8 {
	bits := nameCacheBitsFor(m.limit)
	if f.ELF().Relocatable() {
		if largest, err := f.LargestUnit(); err == nil && largest > 0 {
			bits = min(bits, unitNameBits(largest))
		}
	}
	return bits
}

// unitNameBits sizes a name cache that holds the names of one unit of
// unitBytes bytes of .debug_info: a slot for every 32 bytes, at least
// 1<<10. Measured on 7.2's tcp_bbr.ko (largest unit 183 KB: 1<<13 slots,
// 128 KiB instead of 1 MiB) and virtio_net.ko (444 KB: 1<<14): callgrind
// counts the same instructions from 1<<12 to 1<<16 slots.
func unitNameBits(unitBytes uint64) uint8 {
	bits := uint8(10)
	for bits < 24 && uint64(1)<<bits < unitBytes/32 {
		bits++
	}
	return bits
}

// nameCacheBitsFor is the name cache of a limit (0: none): 1<<12 to 1<<16
// slots, 32 bytes of it each (16 for the slot, some names) taking at most
// a 128th of the limit (1<<16 without a limit or from 256 MiB, the
// encoder's default; 1<<13 at 32 MiB).
func nameCacheBitsFor(limit int64) uint8 {
	if limit <= 0 {
		return 16
	}
	bits := uint8(12)
	for bits < 16 && int64(32)<<(bits+1) <= limit/128 {
		bits++
	}
	return bits
}

// symNamesWhole is the largest symbol name table (.strtab) setup reads
// whole rather than through a 4 KiB window: a 32nd of the memory limit
// (what the page cache gets of a small one), at most 64 MiB. The 7.2
// vmlinux's is 4.4 MB, garbage once the symbol tables have copied the
// names they keep; read whole, setup's CPU there goes from 0.17-0.2 s to
// 0.10-0.12 s, most of the difference the window reads' system time.
// Under a limit near the floor (2 MiB at 64M) both vmlinuxes keep the
// window, so the plan's memory there is what it was.
func symNamesWhole(limit int64) uint64 {
	if limit <= 0 {
		return 64 << 20
	}
	return uint64(min(limit/32, 64<<20))
}

// symNamesWhole is symNamesWhole of the plan's limit.
func (m *memPlan) symNamesWhole() uint64 { return symNamesWhole(m.limit) }

// strOutside is the largest .debug_str the reader reads whole outside the
// Go heap when it is larger than the page cache (dwarfread
// Options.StrOutside): as symNamesWhole, a 32nd of the limit, at most 64
// MiB, and only from resolveMinLimit (256M), so a limit near the floor
// keeps the page cache's window and its memory there is what it was. The
// 7.2 vmlinux's (5.7 MB) and 6.12's (4.6 MB) are read so without a limit.
func strOutside(limit int64) uint64 {
	if limit > 0 && limit < resolveMinLimit {
		return 0
	}
	return symNamesWhole(limit)
}

// funcIndexMax is the most the function names' hash index may take
// (encode.SymbolOptions.IndexMax; negative: whatever it takes): a 128th of the
// limit, as the name caches. The index speeds up the encoder's lookups
// of functions by name, about 1% of a vmlinux's CPU, and takes 8 bytes a
// slot: 2 MiB for the 101k names of the 6.12 cloud vmlinux, which it holds
// all run, so a limit below 256M binary-searches the names instead (at
// 32M the index raised the peak RSS by 2 MiB, over the limit). A module's
// few thousand names keep theirs at any limit from 8M.
func (m *memPlan) funcIndexMax() int64 {
	if m.limit <= 0 {
		return -1
	}
	return m.limit / 128
}

// workerBytes estimates what each decoding job beyond the first adds:
// its name cache (16-byte slots and up to 32 bytes of names each, 1<<nameBits of them), the
// buffers it sizes by the largest unit it meets (conversion tables,
// dedup's preparation state, a reused batch) and the batches it keeps
// queued for the merger, in all about one more arena of the largest unit
// (measured on the 6.12 cloud vmlinux: -j2 holds its limit from 6 MiB
// above -j1's floor).
func workerBytes(largest uint64, nameBits uint8) int64 {
	return 48<<nameBits + dwarfread.ArenaEstimate(largest)
}

// arenaKeep is the largest unit arena the reader keeps for reuse (0:
// all): under a limit a 32nd of it (1 MiB at 32M: the arenas of units up
// to about 170 KB, most of a kernel's). A larger unit gets an arena sized
// for it at once and freed after use, instead of each job keeping one as
// large as the largest unit it met for the rest of the run.
func (m *memPlan) arenaKeep() uint64 {
	if m.limit <= 0 {
		return 0
	}
	return uint64(m.limit / 32)
}

// releaseUnit returns the memory of a unit its worker has encoded. In a
// split encode (a module's, over its vmlinux's BTF) the process peaks
// while its largest unit is encoded and merged: the unit's arena (about a
// third of the live heap of a median 7.2 module), then the merger's
// tables over the base, which grow after the arena is released. Kept for
// reuse, the arena stays live and the tables take new pages. So an arena
// larger than any freed before (at least freeFrom) is freed instead,
// and a collection at once lets the merger's tables reuse its pages: 24
// 7.2 modules around the median peak 0.9-1.1 MiB lower (5% of their
// RSS), virtio_net 2.7, xfs 4 MiB. The largest arenas come early in a
// module: a few collections a run (one for most modules, xfs included),
// a run's later, smaller units reuse what the pool kept.
func (m *memPlan) releaseUnit(cu *dwarfread.CU) {
	n := cu.Footprint()
	for {
		prev := m.largestFreed.Load()
		if m.freeFrom == 0 || n < m.freeFrom || n <= prev {
			cu.Release()
			return
		}
		if m.largestFreed.CompareAndSwap(prev, n) {
			break
		}
	}
	cu.Free()
	runtime.GC()
}

// unitsDone is called once no unit is read any more and the reader's
// caches are dropped. A split encode collects then: the units' garbage
// (the last batch, the workers' state, the arenas and caches) is reused
// by the function merge and Finish instead of growing the heap. Measured
// on 21 7.2 modules around the median: peak RSS 1.1% lower (median of
// per-module ratios, 4 alternating runs), at 0-4% more instructions on
// tcp_bbr and act_simple (callgrind: the collector's share varies by
// that much from run to run; the encoder's own count is unchanged).
func (m *memPlan) unitsDone() {
	if m.freeFrom != 0 {
		runtime.GC()
	}
}

// freeArenaMin is the smallest unit arena releaseUnit frees and collects
// for: below it a collection returns too little to pay for itself.
const freeArenaMin = 256 << 10

// coldAt is the live heap at which cold data spills (coldFraction of the
// soft limit; 0 without a limit).
func (m *memPlan) coldAt() int64 {
	if m.limit <= 0 {
		return 0
	}
	if m.spillAll {
		return 1
	}
	return int64(float64(SoftLimit(m.limit)) * coldFraction)
}

// ErrMemLimit is returned when the limit is too small to make progress.
var ErrMemLimit = fmt.Errorf("memory limit too small")

// cacheBytesFor is the page cache of string and location sections a limit
// gets: a 32nd of it, between 256 KiB and 4 MiB (4 MiB without a limit).
func cacheBytesFor(limit int64) int64 {
	if limit <= 0 {
		return 4 << 20
	}
	return min(4<<20, max(limit/32, 256<<10))
}

// memFloor is the smallest limit, in whole MiB, whose plan holds jobs
// arenas of the largest unit (largest bytes of .debug_info), the page cache
// that limit itself gets, the working set, the tables estimated from the
// .debug_info size and, for a module, the base BTF of baseBytes bytes with
// its dedup index (baseFactor times). It is the one place the floor is
// computed: check refuses exactly the limits below it and quotes it,
// MemFloor returns it. (Measured on Debian's 6.12 amd64 cloud kernel at
// -j1: 46M for vmlinux, peak RSS 47.6 MiB.)
func memFloor(largest, infoSize uint64, baseBytes int64, jobs int) int64 {
	const mib = 1 << 20
	// What a plan at limit l needs. One arena of the largest unit,
	// whatever the jobs: the plan caps the units in flight to the room
	// the limit leaves (flightCap), so at the floor two large units are
	// never decoded at once. Each job beyond the first keeps its own
	// state (workerBytes); the name caches and the page cache grow with
	// the limit.
	need := func(l int64) int64 {
		return dwarfread.ArenaEstimate(largest) + int64(max(jobs, 1)-1)*workerBytes(largest, nameCacheBitsFor(l)) +
			minWorking + tablesFor(infoSize) + baseFactor*baseBytes + cacheBytesFor(l)
	}
	// need grows with l by less than l does: the first whole MiB that
	// holds its own need is the floor.
	floor := (need(mib) + mib - 1) / mib * mib
	for need(floor) > floor {
		floor += mib
	}
	return floor
}

// tablesFor estimates the table at its largest for infoSize bytes of
// .debug_info (tableShare, kernelTables, maxTables).
func tablesFor(infoSize uint64) int64 {
	n := int64(infoSize)
	return min(max(n/tableShare, min(n/kernelShare, kernelTables)), maxTables)
}

// baseBytes is the size of a base BTF's types and strings (0 for none).
func baseBytes(base *btf.Spec) int64 {
	if base == nil || base.Len() == 0 {
		return 0
	}
	first, last := base.FirstID(), base.NextID()-1
	return base.TypeOffset(last) - base.TypeOffset(first) + int64(base.TypeBytes(last)) + int64(base.Strings().Len())
}

// MemFloor returns the smallest EncodeOptions.MemLimit with which
// EncodeFile takes the file at path over opts.Base (0: no floor is known,
// as for a compressed .debug_info), whatever opts.Jobs: below the floor of
// opts.Jobs jobs fewer run (EncodeStats.Jobs). It reads the ELF headers
// and the unit headers of .debug_info only.
func MemFloor(path string, opts EncodeOptions) (int64, error) {
	f, err := dwarfread.Open(path, dwarfread.Options{CacheBytes: 256 << 10})
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return fileMemFloor(f, opts)
}

func fileMemFloor(f *dwarfread.File, opts EncodeOptions) (int64, error) {
	if f.Info() == nil {
		return 0, nil
	}
	largest, err := f.LargestUnit()
	if err != nil || largest == 0 {
		return 0, err
	}
	return memFloor(largest, f.Info().Size, baseBytes(opts.Base), 1), nil
}

// check fails early, before any unit is decoded, when the limit is below
// the file's floor (memFloor with one job), naming the floor. Otherwise it
// returns how many of opts.Jobs jobs the units and the limit hold (memFloor of that
// many; the output is the same for any number) and caps the units in
// flight to the room the limit leaves beside the rest of that floor. It
// reads only the unit headers of .debug_info.
func (m *memPlan) check(f *dwarfread.File, opts EncodeOptions) (int, error) {
	jobs := max(opts.Jobs, 1)
	// More jobs than units would only wait.
	if starts, _ := f.UnitStarts(); len(starts) > 0 && jobs > len(starts) {
		jobs = len(starts)
	}
	if m.limit <= 0 || f.Info() == nil {
		return jobs, nil
	}
	largest, err := f.LargestUnit()
	if err != nil || largest == 0 {
		return jobs, err
	}
	info, base := f.Info().Size, baseBytes(opts.Base)
	if floor := memFloor(largest, info, base, 1); m.limit < floor {
		what := "--mem-limit " + spill.FormatSize(m.limit)
		if m.from != "--mem-limit" {
			what = "the default budget, " + spill.FormatSize(m.limit) + " (" + m.from + "),"
		}
		return 0, fmt.Errorf("%w: %s cannot hold the largest compile unit (%d bytes of .debug_info, about %s decoded) besides the tables and the base; use --mem-limit %s or more",
			ErrMemLimit, what, largest, spill.FormatSize(dwarfread.ArenaEstimate(largest)), spill.FormatSize(floor))
	}
	for jobs > 1 && memFloor(largest, info, base, jobs) > m.limit {
		jobs--
	}
	arena := dwarfread.ArenaEstimate(largest)
	m.budget.SetFlightCap(max(arena, m.limit-memFloor(largest, info, base, jobs)+arena))
	return jobs, nil
}

// afterUnit re-accounts the dedup table and the function states after a
// batch, then has the budget's spillers, coldest first, spill while it
// is over. It runs on the merging goroutine, between units.
func (m *memPlan) afterUnit(table *btf.Spec, funcStrs uint32) error {
	d := int64(0)
	if table != nil {
		d = dedupFactor * (12*int64(table.Len()) + int64(table.Strings().Len()))
	}
	m.budget.Add(d - m.dedupAcct)
	m.dedupAcct = d
	s := funcStrs
	m.budget.Add(int64(s) - m.funcsAcct)
	m.funcsAcct = int64(s)
	_, err := m.budget.Relieve()
	return err
}
