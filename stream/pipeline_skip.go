package stream

import (
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/encode"
	"github.com/btfstream/btfstream/stream/merge"
)

// Skipping closures with declarations above one job (encode's
// closureskip_decl.go): a worker keeps the unit of a batch that skipped
// some (keepUnit) until the merger takes the batch, and lists the DIEs it
// skipped (encode's closureskip_again.go). If the batches before it
// resolved declarations meanwhile (merge.Merger.Stale), the merger's
// goroutine encodes the unit again (restale.encode), skipping the same
// declaration-free DIEs and converting every closure with declarations
// (merge.Merger.Restale). Which batches are stale depends on timing; the
// output does not. On at any -j since session 10 (merge.Merger.SkipsAt).

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
	imps []encode.NodeImport
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
		r.p = su.m.NewOwnPreparer()
	}
	r.imps = append(r.imps[:0], j.batch.NodeImports...)
	imps, res := su.m.Restale(j.batch, r.imps)
	b, err := r.w.EncodeImports(cu, j.batch, imps, res)
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
