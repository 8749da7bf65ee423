package dedup

import (
	"bytes"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// genUnits generates 2 to 24 self-contained CUs drawn from a few
// templates, each emitted in a random order, so that later CUs repeat
// earlier ones and declarations meet definitions of their names.
func genUnits(rng *rand.Rand) (cus [][]absType, perms [][]int) {
	templates := 1 + rng.Intn(8)
	base := rng.Int63()
	for n := 2 + rng.Intn(23); n > 0; n-- {
		cu := genCU(base+int64(rng.Intn(templates)), 0, nil)
		cus = append(cus, cu)
		perms = append(perms, rng.Perm(len(cu)))
	}
	return cus, perms
}

// genFwdCU generates a CU where declarations and definitions of a few
// names meet: structs a, b and c are each a FWD, one of two definitions
// (with an int or a long member) or a struct holding a pointer to itself;
// enum e is a declaration or one of two definitions; containers P and Q
// (pointing at each other when both are there) hold pointers to them.
func genFwdCU(rng *rand.Rand) []absType {
	var cu []absType
	add := func(t absType) int { cu = append(cu, t); return len(cu) - 1 }
	ref := func(i int) absRef { return absRef{local: i, ext: -1} }
	ints := []int{add(absType{k: btf.KindInt, name: "int", size: 4}), add(absType{k: btf.KindInt, name: "long", size: 8})}
	e := add(absType{k: btf.KindEnum, name: "e", size: 4, nvals: rng.Intn(3)})
	ptrs := map[string]int{}
	for _, n := range []string{"a", "b", "c"} {
		var at int
		switch v := rng.Intn(4); v {
		case 0:
			at = add(absType{k: btf.KindFwd, name: n})
		case 1, 2:
			at = add(absType{k: btf.KindStruct, name: n, size: 8, refs: []absRef{ref(ints[v-1])}})
		case 3:
			at = add(absType{k: btf.KindStruct, name: n, size: 8})
			self := add(absType{k: btf.KindPtr, refs: []absRef{ref(at)}})
			cu[at].refs = []absRef{ref(ints[0]), ref(self)}
		}
		ptrs[n] = add(absType{k: btf.KindPtr, refs: []absRef{ref(at)}})
	}
	p, q := -1, -1
	if rng.Intn(4) != 0 {
		p = add(absType{k: btf.KindStruct, name: "P", size: 16, refs: []absRef{ref(ptrs["a"]), ref(ptrs["b"]), ref(e)}})
	}
	if rng.Intn(4) != 0 {
		q = add(absType{k: btf.KindStruct, name: "Q", size: 16, refs: []absRef{ref(ptrs["c"]), ref(ptrs["a"])}})
	}
	if p >= 0 && q >= 0 && rng.Intn(2) == 0 {
		pq := add(absType{k: btf.KindPtr, refs: []absRef{ref(q)}})
		qp := add(absType{k: btf.KindPtr, refs: []absRef{ref(p)}})
		cu[p].refs = append(cu[p].refs, ref(pq))
		cu[q].refs = append(cu[q].refs, ref(qp))
	}
	return cu
}

// genFwdUnits generates 2 to 24 CUs of genFwdCU.
func genFwdUnits(rng *rand.Rand) (cus [][]absType, perms [][]int) {
	for n := 2 + rng.Intn(23); n > 0; n-- {
		cu := genFwdCU(rng)
		cus = append(cus, cu)
		perms = append(perms, rng.Perm(len(cu)))
	}
	return cus, perms
}

// prepared emits cu as a self-contained batch and prepares it.
func prepared(t *testing.T, prep *Preparer, cu []absType, perm []int) (*Prepared, []btf.TypeID) {
	t.Helper()
	b := btf.NewSpec()
	ids := emit(b, cu, perm, nil)
	p, err := prep.Prepare(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, ids
}

// TestPreResolved: batches resolved against snapshots of the table taken
// any number of batches before they are added (each of three Resolvers
// seeing snapshots in order, as workers do), then added with AddPrepared,
// give the same table ids and the same bytes as batches added without.
// The inputs (random CUs, and CUs where declarations meet definitions)
// make later batches meet classes and resolutions that their snapshot
// lacked, so both paths (replayed and resolved again) are taken.
func TestPreResolved(t *testing.T) {
	trials := 400
	if testing.Short() {
		trials = 120
	}
	rng := rand.New(rand.NewSource(11))
	prep := NewPreparer()
	var stats walkStats
	for trial := 0; trial < trials; trial++ {
		cus, perms := genUnits(rng)
		if trial%2 == 1 {
			cus, perms = genFwdUnits(rng)
		}
		serial, _ := NewIncremental(nil)
		d, _ := NewIncremental(nil)
		resolvers := []*Resolver{NewResolver(), NewResolver(), NewResolver()}
		last := make([]int, len(resolvers))
		snaps := []*Snapshot{d.Snapshot()}
		for i, cu := range cus {
			p1, ids1 := prepared(t, prep, cu, perms[i])
			r1, err := serial.AddPrepared(p1)
			if err != nil {
				t.Fatal(err)
			}
			p2, ids2 := prepared(t, prep, cu, perms[i])
			w := rng.Intn(len(resolvers))
			j := last[w] + rng.Intn(len(snaps)-last[w])
			last[w] = j
			resolvers[w].Resolve(p2, snaps[j])
			if !p2.pre.ok {
				t.Fatalf("trial %d CU %d: not resolved against snapshot %d", trial, i, j)
			}
			r2, err := d.AddPrepared(p2)
			if err != nil {
				t.Fatalf("trial %d CU %d: %v", trial, i, err)
			}
			for k := range ids1 {
				if a, b := r1.Map(ids1[k]), r2.Map(ids2[k]); a != b {
					t.Fatalf("trial %d CU %d (snapshot after %d CUs) type %d: table id %d added alone, %d resolved against the snapshot",
						trial, i, j, k, a, b)
				}
			}
			snaps = append(snaps, d.Snapshot())
		}
		stats.replayed += d.stats.replayed
		stats.resolved += d.stats.resolved
		stats.partial += d.stats.partial
		o1, _, err := serial.Finish()
		if err != nil {
			t.Fatal(err)
		}
		o2, _, err := d.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(o1.Marshal(), o2.Marshal()) {
			t.Fatalf("trial %d: output differs:\n\t%v\nvs\n\t%v", trial, dump(o1), dump(o2))
		}
	}
	t.Logf("components replayed %d, resolved again %d; batches with both %d", stats.replayed, stats.resolved, stats.partial)
	if stats.replayed == 0 || stats.resolved == 0 || stats.partial == 0 {
		t.Errorf("a path was not taken: replayed %d, resolved again %d, batches with both %d", stats.replayed, stats.resolved, stats.partial)
	}
}

// TestPreResolvedConcurrent runs Resolvers on their own goroutines, each
// resolving against the newest snapshot the adding goroutine published,
// as the encoder's workers do (for the race detector), and checks the
// output against batches added alone.
func TestPreResolvedConcurrent(t *testing.T) {
	trials := 60
	if testing.Short() {
		trials = 15
	}
	rng := rand.New(rand.NewSource(12))
	for trial := 0; trial < trials; trial++ {
		cus, perms := genUnits(rng)
		if trial%2 == 1 {
			cus, perms = genFwdUnits(rng)
		}
		serial, _ := NewIncremental(nil)
		prep := NewPreparer()
		for i, cu := range cus {
			p, _ := prepared(t, prep, cu, perms[i])
			if _, err := serial.AddPrepared(p); err != nil {
				t.Fatal(err)
			}
		}
		want, _, err := serial.Finish()
		if err != nil {
			t.Fatal(err)
		}

		d, _ := NewIncremental(nil)
		var snap atomic.Pointer[Snapshot]
		snap.Store(d.Snapshot())
		const workers = 3
		done := make([]chan *Prepared, len(cus))
		for i := range done {
			done[i] = make(chan *Prepared, 1)
		}
		next := make(chan int)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				prep, res := NewPreparer(), NewResolver()
				for i := range next {
					b := btf.NewSpec()
					emit(b, cus[i], perms[i], nil)
					p, err := prep.Prepare(b, nil)
					if err != nil {
						t.Error(err)
					}
					res.Resolve(p, snap.Load())
					done[i] <- p
				}
			}()
		}
		go func() {
			for i := range cus {
				next <- i
			}
			close(next)
		}()
		for i := range cus {
			p := <-done[i]
			if _, err := d.AddPrepared(p); err != nil {
				t.Fatal(err)
			}
			snap.Store(d.Snapshot())
		}
		wg.Wait()
		got, _, err := d.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Marshal(), got.Marshal()) {
			t.Fatalf("trial %d: output differs", trial)
		}
	}
}

// TestPreResolvedReadsResolution: a batch resolved against a snapshot in
// which FWD 'a' was not resolved yet, added after a batch that resolved
// it (adding no class, so no hash of the batch meets a new one): the
// batch's P must not take the table's P through the declaration, which
// now stands for a different struct a.
func TestPreResolvedReadsResolution(t *testing.T) {
	unit := func(f func(s *btf.Spec)) *btf.Spec {
		s := btf.NewSpec()
		f(s)
		return s
	}
	str := func(s *btf.Spec, name string) btf.StrOff { return s.Strings().Add(name) }
	base := func(s *btf.Spec, name string, size uint32) btf.TypeID {
		return s.Add(btf.Type{NameOff: str(s, name), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: size}, btf.MakeIntInfo(0, 0, 32))
	}
	structA := func(s *btf.Spec, member btf.TypeID) btf.TypeID {
		return s.Add(btf.Type{NameOff: str(s, "a"), Info: btf.MakeInfo(btf.KindStruct, 1, false), SizeOrType: 8}, uint32(str(s, "x")), uint32(member), 0)
	}
	ptr := func(s *btf.Spec, to btf.TypeID) btf.TypeID {
		return s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(to)})
	}
	structP := func(s *btf.Spec, p btf.TypeID) {
		s.Add(btf.Type{NameOff: str(s, "P"), Info: btf.MakeInfo(btf.KindStruct, 1, false), SizeOrType: 8}, uint32(str(s, "p")), uint32(p), 0)
	}
	units := []*btf.Spec{
		unit(func(s *btf.Spec) { // FWD a; P points to it
			fwd := s.Add(btf.Type{NameOff: str(s, "a"), Info: btf.MakeInfo(btf.KindFwd, 0, false)})
			structP(s, ptr(s, fwd))
		}),
		unit(func(s *btf.Spec) { ptr(s, structA(s, base(s, "int", 4))) }),              // struct a {int}, no P
		unit(func(s *btf.Spec) { structP(s, ptr(s, structA(s, base(s, "int", 4)))) }),  // resolves FWD a to a {int}
		unit(func(s *btf.Spec) { structP(s, ptr(s, structA(s, base(s, "long", 8)))) }), // a different a
	}
	serial, _ := NewIncremental(nil)
	d, _ := NewIncremental(nil)
	prep, res := NewPreparer(), NewResolver()
	var snaps []*Snapshot
	for i, u := range units {
		p, err := prep.Prepare(u, nil)
		if err != nil {
			t.Fatal(err)
		}
		r1, err := serial.AddPrepared(p)
		if err != nil {
			t.Fatal(err)
		}
		ids1 := append([]btf.TypeID(nil), r1.IDs...)
		snaps = append(snaps, d.Snapshot())
		if i == 3 {
			res.Resolve(p, snaps[2]) // the table after units 0 and 1
		}
		r2, err := d.AddPrepared(p)
		if err != nil {
			t.Fatal(err)
		}
		for k := range ids1 {
			if ids1[k] != r2.IDs[k] {
				t.Fatalf("unit %d type %d: table id %d added alone, %d resolved against the snapshot", i, k+1, ids1[k], r2.IDs[k])
			}
		}
	}
	if d.stats.resolved == 0 {
		t.Errorf("no component was resolved again")
	}
}
