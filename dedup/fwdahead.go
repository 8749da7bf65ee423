package dedup

import (
	"maps"

	"github.com/btfstream/btfstream/btf"
)

// Resolving forward declarations ahead of Finish.
//
// Finish starts with resolveFwds, a pass over the whole table (0.03-0.04
// s on a vmlinux) on the caller's goroutine, after the last batch: at
// -j>1 the other cores idle meanwhile. The last batches of a vmlinux are
// the function merge's (FUNC_PROTO, FUNC, DECL_TAG, DATASEC, VAR), which
// resolveFwds reads nothing of: it reads the named STRUCT, UNION, FWD and
// ENUM types, and libbpf's enum pass counts INT, FLOAT and FWD too
// (planEnums). ResolveAhead runs the pass over a view of the table as it
// is when the function merge starts, beside it; Finish takes its result
// when the batches added since hold none of those kinds and no walk
// resolved a declaration meanwhile (fwdTo only grows), and otherwise runs
// the pass again: the target is the same either way.

// fwdAhead is a resolveFwds run by ResolveAhead.
type fwdAhead struct {
	done   chan struct{}
	target []uint32
	n      int // table types when it started
	nfwd   int // fwdTo entries then
}

// ResolveAhead starts Finish's first resolution of forward declarations
// over the table as it is now, on a goroutine of its own; batches may be
// added meanwhile. Only without a base (a module's resolution looks base
// names up in state it builds on demand); a second call does nothing.
func (d *Incremental) ResolveAhead() {
	if d.base != nil || d.done || d.ahead != nil {
		return
	}
	a := &fwdAhead{done: make(chan struct{}), n: d.table.Len(), nfwd: len(d.fwdTo)}
	tbl, fwdTo := d.table.View(), maps.Clone(d.fwdTo)
	d.ahead = a
	go func() {
		defer close(a.done)
		a.target = d.resolveFwdsIn(tbl, fwdTo)
	}()
}

// aheadTarget waits for ResolveAhead's resolution and returns it, sized
// for the table as it is now, with ok; ok is false without one, or when
// what was added since may change it (the package comment above).
func (d *Incremental) aheadTarget() (target []uint32, ok bool) {
	a := d.ahead
	if a == nil {
		return nil, false
	}
	d.ahead = nil
	<-a.done
	if len(d.fwdTo) != a.nfwd {
		return nil, false
	}
	for id := d.table.FirstID() + btf.TypeID(a.n); id < d.table.NextID(); id++ {
		switch d.table.Type(id).Kind() {
		case btf.KindStruct, btf.KindUnion, btf.KindFwd, btf.KindEnum, btf.KindEnum64, btf.KindInt, btf.KindFloat:
			return nil, false
		}
	}
	if a.target == nil || len(a.target) == d.table.Len() {
		return a.target, true
	}
	target = make([]uint32, d.table.Len())
	copy(target, a.target)
	return target, true
}
