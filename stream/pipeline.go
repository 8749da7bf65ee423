package stream

import (
	"sync/atomic"

	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/encode"
	"github.com/btfstream/btfstream/stream/internal/ordered"
	"github.com/btfstream/btfstream/stream/merge"
)

// unitJob is one unit on its way through the pipeline.
type unitJob struct {
	off, n uint64        // the unit's offset and length, for progress
	cu     *dwarfread.CU // until a worker has encoded it
	keep   *dwarfread.CU // the unit again, until merged, if its batch may be stale (pipeline_skip.go)
	err    error
	batch  *encode.Batch
	prep   *merge.Prepared // the batch, prepared for the merger (nil without dedup)
	bytes  int64           // the batch's accounted bytes
	skip   bool            // not encoded: excluded late by language (counted by the reader) ...
	notCU  bool            // ... or not a compile or partial unit
}

// encodeUnits runs the pipeline:
//
//	producer (1)      reads units in file order: bytes, unit DIE, language filter
//	workers (Jobs)    decode a unit, encode it into a self-contained batch, free it
//	consumer (caller) merges the batches strictly in file order
//
// The producer reserves each unit's estimated arena against the budget
// before reading it (blocking while the units in flight would pass the
// limit); a worker turns the reservation into the batch's size when it
// frees the unit; the consumer returns it once the batch is merged. At
// most about 2*Jobs units are in flight (ordered.Run). With Jobs <= 1 it
// all runs on the caller's goroutine.
func encodeUnits(f *dwarfread.File, su *setup, opts EncodeOptions, mem *memPlan, stats *EncodeStats, progress *progressReport) error {
	jobs := max(opts.Jobs, 1)
	ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: jobs, LangExclude: opts.LangExclude, NoTypeUnits: true, Budget: mem.budget})
	if err != nil {
		return err
	}
	defer ur.Close()
	// A worker's encoder state is made on its first unit, once setup is
	// done (the units are read and decoded meanwhile).
	workers := make([]*encode.Worker, jobs)
	preparers := make([]*merge.Preparer, jobs)
	// Batches the merger is done with go back to the workers, so a run
	// does not allocate a batch's tables per unit. The list holds as many
	// as can be in flight (ordered.Run's queue of 2*jobs, one per worker,
	// one read ahead): with fewer, the ones returned while it was full
	// were dropped and new ones grown again (-j2 on the 6.12 vmlinux: 435
	// batches made instead of 3, 100 MB of allocation).
	free := make(chan *merge.Prepared, 3*jobs+1)
	// Each worker beyond the first keeps state of its own (name cache,
	// conversion and preparation buffers, a batch) besides its unit: the
	// collector gets that much less room under a limit (the first
	// worker's is in the plan's working set, as the single encoder's
	// always was).
	largest, _ := f.LargestUnit()
	defer mem.reserveRuntime(int64(jobs-1) * workerBytes(largest, mem.nameCacheBits(f)))()
	var runErr error
	var again restale
	defer again.close()
	ordered.Run(jobs, func() (*unitJob, bool) {
		stage(stageRead)
		cu, err := ur.Next()
		j := &unitJob{cu: cu, err: err}
		if cu != nil {
			j.off, j.n = cu.Offset(), cu.Length()
		}
		return j, cu != nil || err != nil
	}, func(w int, j *unitJob) {
		stage(stageWork)
		if j.err != nil {
			return
		}
		if j.err = j.cu.Decode(); j.err != nil {
			return
		}
		<-su.ready
		if su.err != nil {
			j.err = su.err
			return
		}
		if workers[w] == nil {
			workers[w] = su.enc.NewWorker()
			switch {
			case opts.noDedup:
			case mem.limit == 0 || mem.limit >= resolveMinLimit:
				preparers[w] = su.m.NewPreparer()
				if su.m.SkipsAt(jobs) {
					su.m.SkipDeclarations()
					workers[w].SetClassTable(su.m.ClassTable())
					if jobs > 1 {
						workers[w].RecordImports()
					}
				}
			default:
				preparers[w] = merge.NewPreparer()
			}
		}
		cu := j.cu
		j.cu = nil
		if ur.Excluded(cu) { // released and counted by the reader
			j.skip = true
			return
		}
		if encode.Skip(cu) {
			cu.Release()
			j.skip, j.notCU = true, true
			return
		}
		into := &merge.Prepared{}
		select {
		case into = <-free:
		default:
		}
		j.batch, j.err = workers[w].Encode(cu, into.Batch)
		if j.err == nil && keepUnit(jobs, j.batch) {
			j.keep = cu
		} else {
			mem.releaseUnit(cu)
		}
		if j.err == nil && preparers[w] != nil {
			j.prep, j.err = preparers[w].Prepare(j.batch, into)
		}
		if j.err == nil {
			j.bytes = j.batch.Bytes()
			mem.budget.Resize(j.bytes)
		}
	}, func(j *unitJob) bool {
		stage(stageMerge)
		if j.keep != nil {
			cu := j.keep
			j.keep = nil
			if su.m.Stale(j.batch) || reencodeKept {
				j.err = again.encode(su, f, mem, cu, j)
				stats.StaleUnits++
			}
			cu.Release()
		}
		if j.err != nil {
			runErr = j.err
			if j.cu != nil {
				j.cu.Release()
			}
			return false
		}
		if j.skip {
			if j.notCU {
				stats.SkippedCUs++
				progress.unit(j.off, j.n)
			}
			return true
		}
		stats.CUs++
		stats.Vars += len(j.batch.Vars)
		m := su.m
		err := m.Add(j.batch, j.prep)
		mem.budget.Return(j.bytes)
		if j.prep != nil && !m.Holds(j.batch) {
			select {
			case free <- j.prep:
			default:
			}
		}
		j.batch, j.prep = nil, nil
		if err != nil {
			runErr = err
			return false
		}
		if err := mem.afterUnit(m.Table(), m.FuncStringsLen()); err != nil {
			runErr = err
			return false
		}
		progress.unit(j.off, j.n)
		return true
	}, func(j *unitJob) {
		if j.cu != nil {
			j.cu.Release()
		}
		if j.keep != nil {
			j.keep.Release()
		}
		if j.batch != nil {
			mem.budget.Return(j.bytes)
		}
	})
	// Units the language filter skipped are counted by the reader; the
	// others skipped (not compile units) above.
	stats.SkippedCUs += ur.Skipped()
	return runErr
}

// resolveMinLimit is the smallest memory limit under which workers also
// resolve their batches against the merger's newest table (dedup's
// "Resolving against a snapshot"). Each worker then keeps a replica of
// the table's hash index, and the table's arrays from before it last
// grew stay alive until every worker has moved to a newer snapshot: on
// the 6.12 vmlinux that is 5 MiB more live heap at -j2 and, at -j4
// --mem-limit 64M, a peak of 75 MiB instead of 64. Below it, the merger
// resolves everything itself, as the output is the same either way.
const resolveMinLimit = 256 << 20

// Pipeline stages, for CPU profiles: with a hook set (SetStageHook), each
// goroutine of the pipeline reports the stage it enters, so a profiler
// can label its samples and a profile tells the serial path (setup, read,
// merge, finish) from the workers' share (work); what has no label is the
// Go runtime's own (the collector's background workers). bench/encodeprof
// sets pprof labels ("stage"):
//
//	go tool pprof -tags cpu.out
//
// The hook keeps runtime/pprof out of the btfstream binary (28 KB of
// loaded segments, resident in every run).
const (
	stageNone   = "" // the stage a goroutine leaves run with
	stageSetup  = "setup"
	stageRead   = "read"
	stageWork   = "work"
	stageMerge  = "merge"
	stageFinish = "finish"
)

// stageHook is SetStageHook's; nil: no one listens.
var stageHook atomic.Pointer[func(stage string)]

// SetStageHook has fn called with a stage's name ("setup", "read",
// "work", "merge", "finish"; "" when run returns) on the goroutine
// entering it, from any encode started after; nil removes it. fn must be
// cheap: it runs for every unit.
func SetStageHook(fn func(stage string)) {
	if fn == nil {
		stageHook.Store(nil)
		return
	}
	stageHook.Store(&fn)
}

// stage reports that the calling goroutine enters stage s.
func stage(s string) {
	if fn := stageHook.Load(); fn != nil {
		(*fn)(s)
	}
}
