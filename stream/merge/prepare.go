package merge

import (
	"sync/atomic"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/stream/encode"
)

// Prepared is a unit's batch with the share of its deduplication that
// does not need the table already done (dedup.Prepare: edges checked,
// components, hashes), by a worker. The merger then does only the rest.
type Prepared struct {
	Batch *encode.Batch
	p     *dedup.Prepared
}

// Preparer does the workers' share of merging; use one per goroutine.
type Preparer struct {
	p    *dedup.Preparer
	r    *dedup.Resolver
	snap *atomic.Pointer[dedup.Snapshot] // the merger's newest table, if any
}

// NewPreparer returns a Preparer that only prepares (see
// Merger.NewPreparer).
func NewPreparer() *Preparer { return &Preparer{p: dedup.NewPreparer()} }

// NewPreparer returns a Preparer for m's batches: besides preparing a
// batch, it resolves it against the newest table m has published, so
// that m replays what is still valid instead of resolving it (dedup's
// "Resolving against a snapshot").
func (m *Merger) NewPreparer() *Preparer {
	pp := NewPreparer()
	if _, ok := m.d.(*dedup.Incremental); ok {
		pp.r, pp.snap = pp.p.NewResolver(), &m.snap
	}
	return pp
}

// NewOwnPreparer returns a Preparer for m's own goroutine, between two
// Adds: it prepares batches that import types of m's table, but does not
// resolve them against a snapshot (m resolves them at once anyway), so it
// keeps no replica of the table's hash index (2-3 MB on a vmlinux).
func (m *Merger) NewOwnPreparer() *Preparer {
	pp := NewPreparer()
	pp.snap = &m.snap
	return pp
}

// Prepare does the table-independent half of deduplicating b, and with
// a merger's table, resolves it against the newest one. It moves the
// edges of b.Types in place (dedup.Prepare): until the merger has added
// b, only its strings, functions, variables and sizes may be read. into,
// if not nil, is reused (its Batch is replaced by b).
func (pp *Preparer) Prepare(b *encode.Batch, into *Prepared) (*Prepared, error) {
	pr := into
	if pr == nil {
		pr = &Prepared{}
	}
	pr.Batch = b
	var s *dedup.Snapshot
	if pp.snap != nil {
		s = pp.snap.Load() // newer than the class table the worker read
	}
	var p *dedup.Prepared
	var err error
	if b.Imports > 0 {
		p, err = pp.p.PrepareAgainst(b.Types, pr.p, s)
	} else {
		p, err = pp.p.Prepare(b.Types, pr.p)
	}
	if err != nil {
		return nil, err
	}
	pr.p = p
	if pp.r != nil {
		pp.r.Resolve(p, s)
	}
	return pr, nil
}

// Restore moves the batch's edges back (dedup.Prepared.Restore), so that
// it can be read, or prepared again, as it was before Prepare.
func (pr *Prepared) Restore() {
	if pr.p != nil {
		pr.p.Restore()
	}
}

// indexFits reports whether b's arrays may keep the unit's own index int:
// it is the index type (no earlier unit provided one), or it is equal to
// the one an earlier unit provided (an INT with the same name, size and
// encoding deduplicates into it, and the arrays with it), or b has no
// arrays.
func (m *Merger) indexFits(b *encode.Batch) bool {
	if len(b.Index.Arrays) == 0 || !m.idx.has {
		return true
	}
	own := b.Index.LocalInt
	if own == 0 {
		own = b.Index.AddedInt
	}
	return sameLeaf(m.d.Table(), m.idx.id, b.Types, own)
}

// sameLeaf reports whether type x of a and type y of b have no edges and
// equal labels (kind, info, size, words, name by content): what makes two
// leaves one class.
func sameLeaf(a *btf.Spec, x btf.TypeID, b *btf.Spec, y btf.TypeID) bool {
	ta, tb := a.Type(x), b.Type(y)
	if ta.Info != tb.Info || ta.SizeOrType != tb.SizeOrType || ta.Kind().HasType() {
		return false
	}
	switch ta.Kind() {
	case btf.KindInt, btf.KindFloat:
	default:
		return false
	}
	wa, wb := a.Extra(x), b.Extra(y)
	if len(wa) != len(wb) {
		return false
	}
	for i := range wa {
		if wa[i] != wb[i] {
			return false
		}
	}
	return a.Name(x) == b.Name(y)
}
