package dedup

import (
	"fmt"

	"github.com/btfstream/btfstream/btf"
)

// Dedup deduplicates s: Dedup(s) equals feeding s to a fresh Incremental
// as a single batch and calling Finish, but it feeds s in chunks, each a
// valid batch (see plan), so that its working set is that of a chunk. If s is split BTF, its
// base is the base of the result and is left untouched. The Remap maps
// every id of s to its id in the result. s is not modified.
func Dedup(s *btf.Spec) (*btf.Spec, Remap, error) {
	return dedupSpec(s, chunkTypes)
}

// dedupSpec is Dedup in chunks of at least size types (see plan).
func dedupSpec(s *btf.Spec, size int) (*btf.Spec, Remap, error) {
	d, err := NewIncremental(s.Base())
	if err != nil {
		return nil, Remap{}, err
	}
	p, err := makePlan(uint32(s.FirstID()), s.Strings(), specSource(s), size, true)
	if err != nil {
		return nil, Remap{}, err
	}
	out, ids, err := d.dedupAll(p, s.Strings(), specSource(s))
	if err != nil {
		return nil, Remap{}, err
	}
	return out, Remap{First: s.FirstID(), IDs: ids}, nil
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
	d.st = nil // sized for the batches; rebuild sizes its own
	// Without a base, the table's strings are only read from here on (a
	// rebuild adopts them; output builds a new table): their lookup set
	// goes. (With one, resolveFwds looks base names up in them.)
	if d.base == nil {
		d.table.Strings().DropIndex()
	}
	first := d.table.FirstID()
	total := Remap{First: first, IDs: make([]btf.TypeID, d.table.Len())}
	for i := range total.IDs {
		total.IDs[i] = first + btf.TypeID(i)
	}
	for {
		target, ok := d.aheadTarget()
		if !ok {
			target = d.resolveFwds()
		}
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
	if d.base != nil && len(d.kept) > 0 {
		// Kept module types that came out identical to base types fold
		// (see the package documentation, "Modules: no copies of base types").
		d.pure = true
		r, err := d.rebuild(make([]uint32, d.table.Len()))
		d.pure = false
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
// resolves to (0: not resolved), or nil when none resolves. The rules are
// libbpf's (btf_dedup_resolve_fwds, btf_dedup_prim_type):
//
//   - A FWD resolves when exactly one STRUCT or UNION class in the base or
//     table has its name, and it is of the FWD's kind: a struct and a
//     union of one name make it ambiguous, as libbpf keys them by name.
//   - An enum forward declaration (ENUM or ENUM64 without values, any
//     size) goes where libbpf's first pass puts it (enumfwd.go): the
//     newest complete enum of its name before it (newest as libbpf's hash
//     table orders them); with none before it, the last new one; with none
//     at all, the first declaration of its name.
func (d *Incremental) resolveFwds() []uint32 { return d.resolveFwdsIn(d.table, d.fwdTo) }

// resolveFwdsIn is resolveFwds over tbl, the table or a view of it (its
// types and strings read only), with the walks' resolutions fwdTo (d.fwdTo
// or a copy). Without a base it changes nothing in d, so it may run beside
// AddBatch over a view and a copy (ResolveAhead).
func (d *Incremental) resolveFwdsIn(tbl *btf.Spec, fwdTo map[uint32]uint32) []uint32 {
	st := tbl.Strings()
	first := uint32(tbl.FirstID())
	// A shared string table may repeat strings: key its names by the
	// first offset met with the same content. (Strings.Find would do, but
	// it builds an index inside a table that belongs to the caller.)
	tview := viewOf(st)
	var names hindex
	var nkeys []uint64 // by names value - 1: content hash
	var noffs []uint32 // by names value - 1: offset
	var nnext []uint32 // by names value - 1: next value with the same hash
	if d.shared {
		names.reset(1024)
	}
	name := func(t btf.Type) uint32 {
		off := uint32(t.NameOff)
		if !d.shared {
			return off
		}
		b := tview.tail(off)
		if len(b) == 0 || b[0] == 0 {
			return 0
		}
		h := cstrHash(b)
		for v := names.find(h, nkeys, 1); v != 0; v = nnext[v-1] {
			if cstrEq(tview.tail(noffs[v-1]), b) {
				return noffs[v-1]
			}
		}
		nkeys, noffs = append(nkeys, h), append(noffs, off)
		nnext = append(nnext, names.put(h, uint32(len(noffs)), nkeys, 1))
		return off
	}
	// The table's declarations that no walk resolved, by name (keyed by
	// canonical offset: table names were interned) and class: only these
	// are looked for among the definitions. In a module there are few or
	// none, and the base's 20k definitions are not looked up in vain.
	cand := make(map[uint64]uint32)
	wantHash := make(map[uint64]bool) // content hashes of their names
	for id := first; id < uint32(tbl.NextID()); id++ {
		t := tbl.Type(btf.TypeID(id))
		cls, complete, ok := fwdClass(t)
		if !ok || complete {
			continue
		}
		if _, ok := fwdTo[id]; ok {
			continue
		}
		if off := name(t); off != 0 {
			if cls == fwdUnion {
				cls = fwdStruct // one key per name (see add)
			}
			cand[uint64(off)<<2|cls] = 0
			wantHash[cstrHash(tview.tail(off))] = true
		}
	}
	// A FWD resolves to the one struct or union of its name (none: more
	// than one).
	add := func(id uint32, t btf.Type, nameOff uint32) {
		cls, _, _ := fwdClass(t)
		if cls == fwdEnum {
			return
		}
		key := uint64(nameOff)<<2 | fwdStruct
		if v, wanted := cand[key]; !wanted || v == id {
			return
		} else if v != 0 {
			cand[key] = none
			return
		}
		cand[key] = id
	}
	if len(cand) > 0 {
		// Base names are looked up again, since a base may repeat strings.
		var bview strView
		if d.base != nil {
			bview = viewOf(d.base.Strings())
		}
		if d.base != nil {
			// The base's STRUCTs and UNIONs of the wanted names (add
			// ignores its enums), by their cutKey (the order of adds does
			// not matter).
			d.indexBaseAggregates()
			for key := range cand {
				if key&3 == fwdEnum {
					continue
				}
				name := tview.tail(uint32(key >> 2))
				for _, cls := range []uint64{fwdStruct, fwdUnion} {
					for e := d.agg.find(nameKey(cls, name), d.aggSig, 1); e != 0; e = d.aggNext[e-1] {
						id := d.aggID[e-1]
						t := d.base.Type(btf.TypeID(id))
						b := bview.bytes(uint32(t.NameOff))
						if !wantHash[cstrHash(b)] {
							continue
						}
						if off, found := st.Find(b); found {
							add(id, t, uint32(off))
						}
					}
				}
			}
		}
		for id := first; id < uint32(tbl.NextID()); id++ {
			t := tbl.Type(btf.TypeID(id))
			if _, complete, ok := fwdClass(t); ok && complete {
				if off := name(t); off != 0 {
					add(id, t, off)
				}
			}
		}
	}
	enums := planEnums(d.base, first, tbl.Strings(), func() Source { return specSource(tbl) })
	for k, v := range enums.to {
		if k >= first {
			continue // (every key without a base: d.fwdTo is not read)
		}
		if _, done := d.fwdTo[k]; !done {
			if d.fwdTo == nil {
				d.fwdTo = make(map[uint32]uint32)
			}
			d.fwdTo[k] = v // substituted like a base FWD resolved to a table struct
		}
	}
	var target []uint32
	if d.base != nil && d.refsResolvedBaseFwd() { // (none without a base)
		// rebuild substitutes the base FWDs' table structs
		target = make([]uint32, tbl.Len())
	}
	for id := first; id < uint32(tbl.NextID()); id++ {
		t := tbl.Type(btf.TypeID(id))
		cls, complete, ok := fwdClass(t)
		if !ok || complete {
			continue
		}
		if v, ok := fwdTo[id]; ok {
			if target == nil {
				target = make([]uint32, tbl.Len())
			}
			target[id-first] = v
			continue
		}
		off := name(t)
		if off == 0 {
			continue
		}
		v := uint32(0)
		if cls == fwdEnum {
			v = enums.to[id]
		} else if c := cand[uint64(off)<<2|fwdStruct]; c != 0 && c != none && d.kindIn(tbl, c) == fwdKind(t) {
			v = c
		}
		if v != 0 {
			if target == nil {
				target = make([]uint32, tbl.Len())
			}
			target[id-first] = v
		}
	}
	return target
}

// kindIn is the kind of a base id or an id of tbl (the table or a view).
func (d *Incremental) kindIn(tbl *btf.Spec, id uint32) btf.Kind {
	if id < uint32(tbl.FirstID()) {
		return d.base.Type(btf.TypeID(id)).Kind()
	}
	return tbl.Type(btf.TypeID(id)).Kind()
}

// fwdKind is the kind a FWD stands for.
func fwdKind(t btf.Type) btf.Kind {
	if t.KindFlag() {
		return btf.KindUnion
	}
	return btf.KindStruct
}

// rebuild replaces the table by the deduplication of itself with every
// resolved forward declaration replaced by its target, and returns where
// each old table id went.
func (d *Incremental) rebuild(target []uint32) (Remap, error) {
	old := d.table
	first := uint32(old.FirstID())
	// Base FWDs resolved to table structs: references to them are
	// substituted like the table's FWDs, and the resolutions carry over
	// (translated) for the rebuild's walks and the next round.
	var baseTo map[uint32]uint32
	for k, v := range d.fwdTo {
		if k < first {
			if baseTo == nil {
				baseTo = make(map[uint32]uint32)
			}
			baseTo[k] = v
		}
	}
	// Base references over those FWDs are copied (basecopy.go), once.
	var copies []uint32
	var cpos map[uint32]uint32
	if !d.baseCopied && !d.pure {
		copies, cpos = d.baseCopies(old, baseTo)
		d.baseCopied = copies != nil
	}
	d.fwdTo = nil // keyed by old ids; all applied in target
	// Forget the table's hashes, keep the base's.
	hf := first - d.hoff // a base indexed on demand keeps its own
	d.hash, d.tag, d.lh, d.fin, d.next = d.hash[:hf], d.tag[:hf], d.lh[:hf], d.fin[:hf], d.next[:hf]
	d.index.reset(0) // the base's are in baseIndex
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
	copyAt := next // the copies follow the old table's types
	var mapID func(c uint32) uint32
	mapID = func(c uint32) uint32 {
		if c < first {
			if v, ok := baseTo[c]; ok {
				return mapID(v)
			}
			if p, ok := cpos[c]; ok {
				return copyAt + p
			}
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
	if d.base == nil {
		return d.rebuildChunked(old, target, mapID)
	}
	st := d.batch(first, old.Strings())
	if d.pure {
		st.fwdOK = false
		d.kept, d.twin = nil, nil
	}
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
	for _, c := range copies {
		t := d.base.Type(btf.TypeID(c))
		w := st.add(t, d.base.Extra(btf.TypeID(c)))
		mapWords(&t, w, mapID, nil)
		st.types[len(st.types)-1] = t
	}
	st.ready()
	if len(d.kept) > 0 {
		// Classes kept apart from the base stay apart.
		st.kept = make([]bool, st.n)
		for id := range d.kept {
			if tg := target[id-first]; tg == 0 {
				st.kept[pos[id-first]-first] = true
			}
		}
		d.kept = nil
	}
	for b, k := range d.twin {
		// Twins stay twins (moduleView), as batch types now.
		if target[k-first] == 0 {
			if st.btwin == nil {
				st.btwin = make(map[uint32]uint32)
			}
			st.btwin[b] = pos[k-first]
			st.markFwdTarget(pos[k-first] - first)
		}
	}
	d.twin, st.twins = nil, len(st.btwin) > 0
	st.run()
	r := Remap{First: btf.TypeID(first), IDs: make([]btf.TypeID, st.n)}
	st.commit(r.IDs)
	for k, v := range baseTo {
		if _, ok := d.fwdTo[k]; !ok {
			if d.fwdTo == nil {
				d.fwdTo = make(map[uint32]uint32)
			}
			d.fwdTo[k] = uint32(r.Map(btf.TypeID(mapID(v))))
		}
	}
	out := Remap{First: btf.TypeID(first), IDs: make([]btf.TypeID, len(target))}
	for i := range target {
		out.IDs[i] = r.Map(btf.TypeID(mapID(first + uint32(i))))
	}
	return out, nil
}

// rebuildChunked is rebuild for a table without base: the old table, its
// resolved declarations dropped and every edge mapped by mapID, is
// deduplicated in the chunks of a plan (see plan), so the working state
// is that of the largest chunk, not of the whole table (a vmlinux's 108k
// types: the longest stretch without a cut is about 38k). The result does
// not depend on the cut, so it is the one batch's. With a base, adjustBase
// would run per chunk, so split tables keep one batch (modules are small).
func (d *Incremental) rebuildChunked(old *btf.Spec, target []uint32, mapID func(uint32) uint32) (Remap, error) {
	first := uint32(old.FirstID())
	strs := old.Strings() // the new table adopts them
	// raw returns a reader of the old table's types in id order: the
	// table itself, or, with a store (SetStore), its copy there, so that
	// the old table is not held while the new one grows.
	raw := func() (Source, *typeReader) { return specSource(old), nil }
	if d.newStore != nil {
		ts, err := d.storeTypes(old)
		if err != nil {
			return Remap{}, err
		}
		defer ts.st.Close()
		old = nil
		raw = func() (Source, *typeReader) {
			tr := ts.reader()
			return tr.next, tr
		}
	}
	var readers []*typeReader
	src := func() Source {
		next, tr := raw()
		if tr != nil {
			readers = append(readers, tr)
		}
		i := 0
		var w []uint32
		return func() (btf.Type, []uint32, bool) {
			for {
				t, tw, ok := next()
				if !ok {
					return btf.Type{}, nil, false
				}
				i++
				if target[i-1] != 0 {
					continue
				}
				w = append(w[:0], tw...)
				mapWords(&t, w, mapID, nil)
				return t, w, true
			}
		}
	}
	readErr := func(err error) error {
		for _, tr := range readers {
			if tr.err != nil {
				return tr.err
			}
		}
		return err
	}
	d.rebuilds++
	size := d.rebuildChunk
	if size <= 0 {
		size = chunkTypes
	}
	p, err := makePlan(first, strs, src(), size, true)
	if err := readErr(err); err != nil {
		return Remap{}, err
	}
	ids, err := d.feed(p, strs, src())
	if err := readErr(err); err != nil {
		return Remap{}, err
	}
	r := Remap{First: btf.TypeID(first), IDs: ids}
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
	d.hash, d.tag, d.lh, d.fin, d.next, d.index, d.baseIndex, d.canon, d.st = nil, nil, nil, nil, nil, hindex{}, hindex{}, nil, nil
	out := d.table
	// The old strings are only read from now on: their lookup set goes
	// before the new table builds its own.
	out.Strings().DropIndex()
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
	// Callers read the output (validate, marshal); an Add on it would
	// index the strings again.
	ost.DropIndex()
	d.table = nil
	return out
}

// refsResolvedBaseFwd reports whether a table type references a base FWD
// that a walk resolved to a table struct.
func (d *Incremental) refsResolvedBaseFwd() bool {
	first := uint32(d.table.FirstID())
	n := 0
	for k := range d.fwdTo {
		if k < first {
			n++
		}
	}
	if n == 0 {
		return false
	}
	if !d.baseCopied {
		if c, _ := d.baseCopies(d.table, d.fwdTo); c != nil {
			return true
		}
	}
	for id := d.table.FirstID(); id < d.table.NextID(); id++ {
		t, w := d.table.Type(id), d.table.Extra(id)
		for j, k := 0, numRefs(t, w); j < k; j++ {
			if c := refAt(t, w, j); c < first {
				if _, ok := d.fwdTo[c]; ok {
					return true
				}
			}
		}
	}
	return false
}
