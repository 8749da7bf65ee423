package dedup

import (
	"bytes"
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

// ReachesResolved reports whether a table type reachable from roots (table
// ids; ids outside the table are ignored) is a struct, union, enum or
// forward declaration named like a declaration resolved by resolutions
// from..to-1 (in Resolutions' order). A batch type is only ever paired with
// table types of its own name (cutKey), so a batch whose imported closures
// reach no such name reads none of those resolutions, whatever its types
// were paired with. It walks the table from every root once; r is its
// scratch, kept for the next call.
func (d *Incremental) ReachesResolved(roots []btf.TypeID, from, to int, r *ReachScratch) bool {
	if !d.resolvedNames(from, to, r) {
		return false
	}
	r.newEpoch(d.table.NextID())
	return d.reach(roots, r, 0)
}

// ReachesResolvedEach sets reach[i] to ReachesResolved of roots[i] alone
// (reach is as long as roots): an imported closure that reaches no such
// name stands for its class still, whatever the others reach. A root's
// walk stops at the types an earlier root's walk found clean.
func (d *Incremental) ReachesResolvedEach(roots []btf.TypeID, from, to int, r *ReachScratch, reach []bool) {
	clear(reach)
	if !d.resolvedNames(from, to, r) {
		return
	}
	r.newEpoch(d.table.NextID())
	clean := r.epoch // stamps of types found clean
	for i, root := range roots {
		r.newEpoch(d.table.NextID())
		if r.epoch <= clean { // wrapped: the clean stamps are gone
			clean = 0
		}
		reach[i] = d.reach([]btf.TypeID{root}, r, clean)
		if !reach[i] && clean != 0 {
			for _, id := range r.visited {
				r.seen[id] = clean
			}
		}
	}
}

// resolvedNames lists in r.names the names of resolutions from..to-1 and
// reports whether there are any.
func (d *Incremental) resolvedNames(from, to int, r *ReachScratch) bool {
	names := r.names[:0]
	for _, e := range d.fwdLog[from:to] {
		if b, err := d.table.Strings().LookupBytes(d.table.Type(btf.TypeID(e.key)).NameOff); err == nil && len(b) > 0 {
			names = append(names, b)
		}
	}
	r.names = names
	return len(names) > 0
}

// newEpoch makes r's visit stamps fit a table of n ids and starts a walk.
func (r *ReachScratch) newEpoch(n btf.TypeID) {
	if len(r.seen) < int(n) {
		r.seen = make([]uint32, n+n/4)
		r.epoch = 0
	}
	r.epoch++
	if r.epoch == 0 { // wrapped: stamps of old epochs could match
		clear(r.seen)
		r.epoch = 1
	}
}

// reach walks the table from roots in r's epoch, not past types stamped
// clean (0: none), listing the types it visits in r.visited; it reports
// whether one is named like r.names.
func (d *Incremental) reach(roots []btf.TypeID, r *ReachScratch, clean uint32) bool {
	n := uint32(d.table.NextID())
	stack := r.stack[:0]
	r.visited = r.visited[:0]
	push := func(id uint32) {
		if id != 0 && id < n && r.seen[id] != r.epoch && (clean == 0 || r.seen[id] != clean) {
			r.seen[id] = r.epoch
			stack = append(stack, id)
			r.visited = append(r.visited, id)
		}
	}
	for _, id := range roots {
		push(uint32(id))
	}
	strs := d.table.Strings()
	found := false
	for len(stack) > 0 && !found {
		id := btf.TypeID(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		t := d.table.Type(id)
		switch t.Kind() {
		case btf.KindStruct, btf.KindUnion, btf.KindFwd, btf.KindEnum, btf.KindEnum64:
			if b, err := strs.LookupBytes(t.NameOff); err == nil && len(b) > 0 {
				for _, nm := range r.names {
					if bytes.Equal(b, nm) {
						found = true
					}
				}
			}
		}
		d.table.ForEachRef(id, func(ref *uint32) { push(*ref) })
	}
	r.stack = stack[:0]
	return found
}

// ReachScratch is ReachesResolved's: a visit stamp per table id, the
// walk's stack, the resolved names.
type ReachScratch struct {
	seen    []uint32
	epoch   uint32
	stack   []uint32
	visited []uint32
	names   [][]byte
}
