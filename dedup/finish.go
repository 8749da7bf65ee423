package dedup

import (
	"fmt"

	"github.com/btfstream/btfstream/btf"
)

// Dedup deduplicates s in one batch: Dedup(s) equals feeding s to a fresh
// Incremental as a single batch and calling Finish. If s is split BTF, its
// base is the base of the result and is left untouched. The Remap maps
// every id of s to its id in the result. s is not modified.
func Dedup(s *btf.Spec) (*btf.Spec, Remap, error) {
	d, err := NewIncremental(s.Base())
	if err != nil {
		return nil, Remap{}, err
	}
	r1, err := d.AddBatch(s)
	if err != nil {
		return nil, Remap{}, err
	}
	out, r2, err := d.Finish()
	if err != nil {
		return nil, Remap{}, err
	}
	for i, id := range r1.IDs {
		r1.IDs[i] = r2.Map(id)
	}
	return out, r1, nil
}

// Finish does what needs the whole input: it resolves forward declarations
// (FWD, and ENUM/ENUM64 without values) that name exactly one complete
// type, merges the types that became equivalent through that, and rebuilds
// the string table in the order the final types use it. The Remap maps
// every table id (as returned by AddBatch) to its final id. The Incremental
// cannot be used afterwards.
func (d *Incremental) Finish() (*btf.Spec, Remap, error) {
	if d.done {
		return nil, Remap{}, fmt.Errorf("dedup: Finish called twice")
	}
	first := d.table.FirstID()
	total := Remap{First: first, IDs: make([]btf.TypeID, d.table.Len())}
	for i := range total.IDs {
		total.IDs[i] = first + btf.TypeID(i)
	}
	for {
		target := d.resolveFwds()
		if target == nil {
			break
		}
		r, err := d.rebuild(target)
		if err != nil {
			return nil, Remap{}, err
		}
		for i, id := range total.IDs {
			total.IDs[i] = r.Map(id)
		}
	}
	d.done = true
	return d.output(), total, nil
}

// Name classes for forward resolution.
const (
	fwdStruct = 0
	fwdUnion  = 1
	fwdEnum   = 2
)

// fwdClass tells what a type can stand for or be resolved to: complete
// reports a full definition, ok whether it takes part at all.
func fwdClass(t btf.Type) (cls uint64, complete, ok bool) {
	if t.NameOff == 0 {
		return 0, false, false
	}
	switch t.Kind() {
	case btf.KindStruct:
		return fwdStruct, true, true
	case btf.KindUnion:
		return fwdUnion, true, true
	case btf.KindFwd:
		if t.KindFlag() {
			return fwdUnion, false, true
		}
		return fwdStruct, false, true
	case btf.KindEnum, btf.KindEnum64:
		return fwdEnum, t.Vlen() > 0, true
	}
	return 0, false, false
}

// resolveFwds returns, per table index, the id a forward declaration
// resolves to (0: not resolved), or nil when none resolves. A forward
// declaration resolves when exactly one class of the matching kind (struct
// or union; for enums, ENUM or ENUM64 with values) in the base or table has
// its name.
func (d *Incremental) resolveFwds() []uint32 {
	st := d.table.Strings()
	first := uint32(d.table.FirstID())
	// Names are keyed by their canonical offset: table names were interned;
	// base names are looked up again, since a base may repeat strings.
	cand := make(map[uint64]uint32)
	add := func(id uint32, t btf.Type, nameOff uint32) {
		cls, complete, ok := fwdClass(t)
		if !ok || !complete {
			return
		}
		key := uint64(nameOff)<<2 | cls
		if v, seen := cand[key]; seen {
			if v != id {
				cand[key] = none
			}
			return
		}
		cand[key] = id
	}
	var bview strView
	if d.base != nil {
		bview = viewOf(d.base.Strings())
	}
	for id := uint32(1); id < first; id++ {
		if d.canonEx(id) != id {
			continue
		}
		t := d.base.Type(btf.TypeID(id))
		if _, complete, ok := fwdClass(t); !ok || !complete {
			continue
		}
		off, found := st.Find(bview.bytes(uint32(t.NameOff)))
		if found {
			add(id, t, uint32(off))
		}
	}
	// A shared string table may repeat strings: key its names by their
	// first occurrence.
	tview := viewOf(st)
	name := func(t btf.Type) uint32 {
		if !d.shared {
			return uint32(t.NameOff)
		}
		off, _ := st.Find(tview.bytes(uint32(t.NameOff)))
		return uint32(off)
	}
	for id := first; id < uint32(d.table.NextID()); id++ {
		t := d.table.Type(btf.TypeID(id))
		if _, complete, ok := fwdClass(t); ok && complete {
			if off := name(t); off != 0 {
				add(id, t, off)
			}
		}
	}
	var target []uint32
	for id := first; id < uint32(d.table.NextID()); id++ {
		t := d.table.Type(btf.TypeID(id))
		cls, complete, ok := fwdClass(t)
		if !ok || complete {
			continue
		}
		off := name(t)
		if off == 0 {
			continue
		}
		if v, seen := cand[uint64(off)<<2|cls]; seen && v != none {
			if target == nil {
				target = make([]uint32, d.table.Len())
			}
			target[id-first] = v
		}
	}
	return target
}

// rebuild replaces the table by the deduplication of itself with every
// resolved forward declaration replaced by its target, and returns where
// each old table id went.
func (d *Incremental) rebuild(target []uint32) (Remap, error) {
	old := d.table
	first := uint32(old.FirstID())
	// Forget the table's hashes, keep the base's.
	d.hash, d.tag, d.lh, d.fin = d.hash[:first], d.tag[:first], d.lh[:first], d.fin[:first]
	d.index.reset(int(first))
	for id := uint32(1); id < first; id++ {
		if d.canonEx(id) == id && !d.neverMerged(d.base.Type(btf.TypeID(id)).Kind()) {
			d.index.insert(d.hash[id], id, d.hash, 0)
		}
	}
	d.words, d.room, d.wroom = 0, 0, 0
	if d.base == nil {
		d.table = btf.NewSpec()
	} else {
		d.table = btf.NewSplitSpec(d.base)
	}

	// The old table, forward declarations substituted, as one batch.
	pos := make([]uint32, len(target)) // old index -> batch id
	next := first
	for i, tg := range target {
		if tg == 0 {
			pos[i] = next
			next++
		}
	}
	mapID := func(c uint32) uint32 {
		if c < first {
			return c
		}
		if tg := target[c-first]; tg != 0 {
			if tg < first {
				return tg
			}
			return pos[tg-first]
		}
		return pos[c-first]
	}
	st := d.batch(first, old.Strings())
	for i, tg := range target {
		if tg != 0 {
			continue
		}
		id := btf.TypeID(first + uint32(i))
		t := old.Type(id)
		w := st.add(t, old.Extra(id))
		mapWords(&t, w, mapID, nil)
		st.types[len(st.types)-1] = t
	}
	st.ready()
	st.run()
	r := Remap{First: btf.TypeID(first), IDs: make([]btf.TypeID, st.n)}
	st.commit(r.IDs)
	out := Remap{First: btf.TypeID(first), IDs: make([]btf.TypeID, len(target))}
	for i := range target {
		out.IDs[i] = r.Map(btf.TypeID(mapID(first + uint32(i))))
	}
	return out, nil
}

// output rewrites the table's string offsets in place into a fresh string
// table holding exactly the strings the types use, in the order they first
// use them, and returns the table. The hash state is dropped first: it is
// no longer needed and output is the peak of Finish.
func (d *Incremental) output() *btf.Spec {
	d.hash, d.tag, d.lh, d.fin, d.index, d.canon, d.st = nil, nil, nil, nil, hindex{}, nil, nil
	out := d.table
	tv := viewOf(out.Strings())
	var ost *btf.Strings
	if d.base == nil {
		ost = btf.NewStrings(nil)
	} else {
		ost = btf.NewStrings(d.base.Strings())
	}
	str := func(off uint32) uint32 { return uint32(ost.AddBytes(tv.bytes(off))) }
	for id := out.FirstID(); id < out.NextID(); id++ {
		t := out.Type(id)
		mapWords(&t, out.Extra(id), nil, str)
		out.SetType(id, t)
	}
	out.SetStrings(ost)
	d.table = nil
	return out
}
