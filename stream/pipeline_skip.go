package stream

import (
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/encode"
	"github.com/btfstream/btfstream/stream/merge"
)

// Skipping closures with declarations above one job (encode's
// closureskip_decl.go): a worker keeps the unit of a batch that skipped
// some (keepUnit) until the merger takes the batch; if the batches before
// it resolved declarations meanwhile (merge.Merger.Stale), the merger's
// goroutine encodes the unit again (restale.encode) against the table as
// it is then, as -j1's worker would. Which batches are stale depends on
// timing; the output does not.

// reencodeKept makes workers keep every unit and the merger encode each
// again, stale or not (tests: the fallback must give the same bytes).
var reencodeKept = false

// keepUnit reports whether a worker of a pipeline of jobs keeps b's unit
// until the merger has taken b.
func keepUnit(jobs int, b *encode.Batch) bool {
	return jobs > 1 && (b.DeclImports > 0 || reencodeKept)
}

// restale encodes stale units again on the merger's goroutine. Its worker
// is made at the first stale unit.
type restale struct {
	w    *encode.Worker
	p    *merge.Preparer
	undo func() // the worker's reservation (memPlan.reserveRuntime)
}

// encode replaces j's batch by cu encoded again, prepared for m.
func (r *restale) encode(su *setup, f *dwarfread.File, mem *memPlan, cu *dwarfread.CU, j *unitJob) error {
	if r.w == nil {
		// A small name cache: the worker encodes about one unit in ten
		// (48 KiB instead of 3 MiB by default).
		largest, _ := f.LargestUnit()
		r.undo = mem.reserveRuntime(workerBytes(largest, restaleNameBits))
		r.w = su.enc.NewWorkerBits(restaleNameBits)
		r.w.SetClassTable(su.m.ClassTable())
		r.p = su.m.NewPreparer()
	}
	b, err := r.w.Encode(cu, j.batch)
	if err != nil {
		return err
	}
	j.batch = b
	if j.prep != nil {
		if j.prep, err = r.p.Prepare(b, j.prep); err != nil {
			return err
		}
	}
	n := b.Bytes()
	mem.budget.Resize(n - j.bytes)
	j.bytes = n
	return nil
}

// restaleNameBits sizes the name cache of restale's worker.
const restaleNameBits = 10

// close returns the worker's reservation.
func (r *restale) close() {
	if r.undo != nil {
		r.undo()
	}
}
