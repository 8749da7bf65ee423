package dedup

import (
	"fmt"

	"github.com/btfstream/btfstream/btf"
)

// Import ids: a batch given to PrepareAgainst may refer to types of the
// table by ImportBit | table id, where its encoder skipped a closure the
// table already holds (stream/encode's closureskip.go). Prepare turns
// them into the table ids themselves (below batchBase), which every later
// step (Resolver, AddPrepared) already reads as resolved table types; the
// hashes of the batch's types that reach them are computed from the
// snapshot's, which are those of the closures they stand for (equal
// types hash alike wherever they are). Restore turns them back.

// ImportBit marks an import id in a batch given to PrepareAgainst.
const ImportBit = 1 << 31

// imported reports whether x is an import id of a type below imax.
func imported(x, imax uint32) bool {
	return x >= ImportBit && x&^ImportBit != 0 && x&^ImportBit < imax
}

// PrepareAgainst is Prepare for a batch that may hold import ids of the
// types of s (the table then, or later): s must be a snapshot of the
// table the batch is added to, taken no earlier than the imports were
// chosen.
func (p *Preparer) PrepareAgainst(batch *btf.Spec, into *Prepared, s *Snapshot) (*Prepared, error) {
	if s == nil {
		return nil, fmt.Errorf("dedup: PrepareAgainst needs a snapshot")
	}
	return p.prepare(batch, into, s)
}

// useFor makes d (a Preparer's empty table) read the hashes of s's types,
// for a batch importing them; it returns the first id s does not have.
func (s *Snapshot) useFor(d *Incremental) uint32 {
	d.hash, d.tag, d.lh, d.fin = s.hash, s.tag, s.lh, s.fin
	return s.n
}

// restoreRefs moves a prepared type's edges back: batch ids (from
// batchBase) to the batch's own, table ids to import ids.
func restoreRefs(t *btf.Type, w []uint32) {
	back := func(x uint32) uint32 {
		switch {
		case x >= batchBase:
			return x - (batchBase - 1)
		case x != 0:
			return x | ImportBit
		}
		return 0
	}
	s := &refShapes[t.Kind()&0x7f]
	if s.hasType {
		t.SizeOrType = back(t.SizeOrType)
	}
	if s.stride == 0 {
		return
	}
	n := int(s.fixed)
	if n == 0 {
		n = int(t.Vlen())
	}
	for i, p := 0, int(s.first); i < n; i, p = i+1, p+int(s.stride) {
		w[p] = back(w[p])
	}
}
