package encode

import (
	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// Encoding a stale batch's unit again (stream/pipeline_skip.go): a worker
// told to (RecordImports) lists in Batch.NodeImports every DIE it
// skipped and the class it stands for. If the merger finds the batch
// stale, it drops from that list the closures with declarations whose
// class reaches a declaration resolved while the batch was in flight
// (merge.Merger.Restale), and EncodeImports converts the unit again
// skipping exactly the rest: no closure keys are computed, and the
// closures the resolutions did not touch stay skipped.

// NodeImport is a type DIE a worker skipped: its node, the table class
// it stands for, whether its closure has declarations. 12 bytes.
type NodeImport struct {
	Node  int32
	Class btf.TypeID
	Decl  bool
}

// RecordImports makes the worker list its batches' skipped DIEs in
// Batch.NodeImports.
func (w *Worker) RecordImports() { w.record = true }

// EncodeImports is Encode skipping exactly the DIEs of imps (a list
// Batch.NodeImports gave for the same unit, or part of it) instead of
// those a ClassTable holds; the closures with declarations among them
// count as read after res resolutions (Batch.DeclRes). The batch lists no
// keys for the merger to publish.
func (w *Worker) EncodeImports(cu *dwarfread.CU, into *Batch, imps []NodeImport, res uint32) (*Batch, error) {
	return w.encode(cu, into, func(c *cuConv, b *Batch) {
		b.DeclRes = res
		if len(imps) == 0 {
			return
		}
		c.imp = resize(c.imp, int(c.t.cu.Len()))
		for _, m := range imps {
			c.imp[m.Node] = m.Class
			c.imports++
			if m.Decl {
				b.DeclImports++
				b.DeclClasses = append(b.DeclClasses, m.Class)
			}
		}
	})
}
