package main

import (
	"fmt"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
)

// simulation runs the batch->table reference protocol at the dedup level
// beside the real deduplication: a second table is fed each unit's batch
// without the types whose DIE key (declaration-free) an earlier unit
// already put in it, their parents' edges pointing at that unit's class
// instead (dedup.AddBatch takes edges to table ids). If skipping is
// exact, the two tables are the same, type for type.
type simulation struct {
	d        *dedup.Incremental
	classOf  map[uint64]btf.TypeID // DIE key -> class in d
	withDecl bool                  // skip closures with declarations too, while no declaration was resolved since their class was recorded
	declAt   map[uint64]int        // keys with declarations: the table's resolutions when their class was recorded
	recUnit  map[uint64]int        // the unit that recorded a key's class
	lag      int                   // units the workers' view of the table lags the merger's
	units    int                   // units added
	resAfter []int                 // resolutions after each unit
	fallback int                   // units whose skips the merger found stale (then done whole)
	skipped  int
	kept     int
	mismatch int           // skipped hits whose real class differs from the key's
	cpu      time.Duration // AddBatch of the reduced batches
	build    time.Duration // deciding what skips and building them (the bench's, not the protocol's)
	emitAll  time.Duration // converting every type DIE again (encode.Worker.ReEmit)
	emitKept time.Duration // converting the DIEs not skipped
}

func newSimulation(withDecl bool, lag int) *simulation {
	d, err := dedup.NewIncremental(nil)
	check(err)
	return &simulation{d: d, classOf: map[uint64]btf.TypeID{}, withDecl: withDecl, declAt: map[uint64]int{},
		recUnit: map[uint64]int{}, lag: lag}
}

// usable reports whether a worker, which sees the table as it was lag
// units ago, takes key's class for a new copy: a key without
// declarations, or one whose class was recorded while the table had
// resolved as many declarations as it had then.
func (s *simulation) usable(key uint64) bool {
	if _, ok := s.classOf[key]; !ok || key == 0 {
		return false
	}
	seen := s.units - 1 - s.lag // the last unit the worker sees added
	if seen < 0 || s.recUnit[key] > seen {
		return false
	}
	at, decl := s.declAt[key]
	return !decl || at == s.resAfter[seen]
}

// stale reports whether the merger, adding the unit now, finds a skipped
// key's class no longer stands: a declaration was resolved since.
func (s *simulation) stale(key uint64) bool {
	at, decl := s.declAt[key]
	return decl && at != s.d.Resolutions()
}

// resolutions is how many declarations the simulated table resolved.
func (s *simulation) resolutions() int { return s.d.Resolutions() }

// unit feeds one unit's batch b (ids from 1; remap: its real classes).
func (s *simulation) unit(b *btf.Spec, remap dedup.Remap, dieType []btf.TypeID, dkeys []uint64, ddecl []bool) {
	n := b.Len()
	first := b.FirstID()
	// Batch type -> its DIE key (declaration-free, keyed DIE types only).
	keyOf := make([]uint64, n)
	for i, x := range dieType {
		if x != 0 && dkeys[i] != 0 && (s.withDecl || !ddecl[i]) {
			keyOf[x-first] = dkeys[i]
		}
	}
	t0 := threadCPU()
	// skip: a DIE type whose key has a class; a type that is no DIE's
	// (inner ARRAYs, TYPE_TAGs) goes with its parents when all skip.
	skip := make([]bool, n)
	isDIE := make([]bool, n)
	for _, x := range dieType {
		if x != 0 {
			isDIE[x-first] = true
		}
	}
	declOf := make([]bool, n)
	for i, x := range dieType {
		if x != 0 {
			declOf[x-first] = ddecl[i]
		}
	}
	res0 := s.d.Resolutions()
	staleUnit := false
	for i := range n {
		if s.usable(keyOf[i]) {
			skip[i] = true
			staleUnit = staleUnit || s.stale(keyOf[i])
		}
	}
	if staleUnit {
		// The merger found a declaration resolved since the worker
		// looked: the unit's closures with declarations are converted
		// after all (what a pipeline would redo), the others stay
		// skipped (their classes never change).
		s.fallback++
		for i := range n {
			if declOf[i] {
				skip[i] = false
			}
		}
	}
	// Non-DIE types pointed at by other types (inner ARRAYs, TYPE_TAGs)
	// skip unless a kept type points at them (fixpoint: chains of inner
	// arrays are short).
	hasParent := make([]bool, n)
	for x := first; x < b.NextID(); x++ {
		edges(b, x, func(y btf.TypeID) { hasParent[y-first] = true })
	}
	for i := range n {
		k := b.Kind(first + btf.TypeID(i))
		if !isDIE[i] && hasParent[i] && (k == btf.KindArray || k == btf.KindTypeTag) {
			skip[i] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for x := first; x < b.NextID(); x++ {
			if skip[x-first] {
				continue
			}
			edges(b, x, func(y btf.TypeID) {
				if skip[y-first] && !isDIE[y-first] {
					skip[y-first] = false
					changed = true
				}
			})
		}
	}
	nb := s.d.NewBatch()
	newID := make([]btf.TypeID, n)
	next := nb.FirstID()
	for i := range n {
		if !skip[i] {
			newID[i] = next
			next++
		}
	}
	mapRef := func(y uint32) uint32 {
		if y == 0 || !b.Local(btf.TypeID(y)) {
			return y
		}
		i := btf.TypeID(y) - first
		if !skip[i] {
			return uint32(newID[i])
		}
		c, ok := s.classOf[keyOf[i]]
		if !ok {
			panic(fmt.Sprintf("a kept type points at skipped type %d, which has no class", y))
		}
		return uint32(c)
	}
	strs := nb.Strings()
	for x := first; x < b.NextID(); x++ {
		if skip[x-first] {
			s.skipped++
			continue
		}
		s.kept++
		t := b.Type(x)
		k := t.Kind()
		name, _ := b.Strings().Lookup(t.NameOff)
		t.NameOff = strs.Append(name)
		if k.HasType() {
			t.SizeOrType = mapRef(t.SizeOrType)
		}
		w := append([]uint32(nil), b.Extra(x)...)
		refs, strOff := wordKinds(k, len(w))
		for j := range w {
			switch {
			case refs(j):
				w[j] = mapRef(w[j])
			case strOff(j):
				sv, _ := b.Strings().Lookup(btf.StrOff(w[j]))
				w[j] = uint32(strs.Append(sv))
			}
		}
		nb.Add(t, w...)
	}
	t1 := threadCPU()
	r, err := s.d.AddBatch(nb)
	check(err)
	t2 := threadCPU()
	s.build += t1 - t0
	s.cpu += t2 - t1
	for i := range n {
		if keyOf[i] == 0 {
			continue
		}
		if skip[i] {
			if s.classOf[keyOf[i]] != remap.Map(first+btf.TypeID(i)) {
				s.mismatch++
			}
			continue
		}
		if declOf[i] {
			// The last copy's class, valid until a resolution.
			s.classOf[keyOf[i]] = r.Map(newID[i])
			s.declAt[keyOf[i]] = res0
			s.recUnit[keyOf[i]] = s.units
		} else if _, ok := s.classOf[keyOf[i]]; !ok {
			s.classOf[keyOf[i]] = r.Map(newID[i])
			s.recUnit[keyOf[i]] = s.units
		}
	}
}

// done closes a unit.
func (s *simulation) done() {
	s.resAfter = append(s.resAfter, s.d.Resolutions())
	s.units++
}

// compare reports whether the simulated table equals the real one.
func (s *simulation) compare(real *btf.Spec) string {
	sim := s.d.Table()
	if sim.Len() != real.Len() {
		return fmt.Sprintf("DIFFERENT: %d types, real %d", sim.Len(), real.Len())
	}
	for x := real.FirstID(); x < real.NextID(); x++ {
		if sim.DumpType(x) != real.DumpType(x) {
			return fmt.Sprintf("DIFFERENT at [%d]: %s vs real %s", x, sim.DumpType(x), real.DumpType(x))
		}
	}
	return fmt.Sprintf("the same %d types", real.Len())
}

// skipDIEs says which DIEs of a unit the protocol would not convert: the
// type DIEs whose declaration-free key already has a class.
func (s *simulation) skipDIEs(dieType []btf.TypeID, dkeys []uint64, ddecl []bool) []bool {
	skip := make([]bool, len(dieType))
	stale := false
	for i, x := range dieType {
		if x != 0 && dkeys[i] != 0 && (s.withDecl || !ddecl[i]) {
			skip[i] = s.usable(dkeys[i])
			stale = stale || skip[i] && s.stale(dkeys[i])
		}
	}
	if stale { // as unit does
		for i := range skip {
			skip[i] = skip[i] && !ddecl[i]
		}
	}
	return skip
}
