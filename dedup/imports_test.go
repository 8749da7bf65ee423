package dedup

import (
	"bytes"
	"math/rand"
	"slices"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestPrepareAgainstImports: a batch whose declaration-free closures
// that an earlier batch put in the table are replaced by import ids of
// their classes (what stream/encode's closure skipping sends) deduplicates
// to the same table as the whole batch: same classes for the types it
// keeps, same bytes at every step and after Finish. Restore gives the
// import ids back.
func TestPrepareAgainstImports(t *testing.T) {
	trials := 300
	if testing.Short() {
		trials = 60
	}
	rng := rand.New(rand.NewSource(18))
	prepA, prepB := NewPreparer(), NewPreparer()
	imported := 0
	for trial := 0; trial < trials; trial++ {
		cus, perms := genInput(rng, false)
		// The CUs again, so that closures repeat.
		for i := range len(cus) {
			cus = append(cus, cus[i])
			perms = append(perms, rng.Perm(len(cus[i])))
		}
		da, _ := NewIncremental(nil)
		db, _ := NewIncremental(nil)
		for i, cu := range cus {
			ba := btf.NewSpec()
			idsA := emit(ba, cu, perms[i], nil)
			before := uint32(da.NextID())
			pa, err := prepA.Prepare(ba, nil)
			if err != nil {
				t.Fatal(err)
			}
			ra, err := da.AddPrepared(pa)
			if err != nil {
				t.Fatal(err)
			}
			pa.Restore()
			skip := importable(ba, ra, before)
			rb, newID := withoutImports(ba, ra, skip)
			for _, s := range skip {
				if s {
					imported++
				}
			}
			var buf bytes.Buffer
			buf.Write(rb.Marshal())
			pb, err := prepB.PrepareAgainst(rb, nil, db.Snapshot())
			if err != nil {
				t.Fatalf("trial %d CU %d: %v", trial, i, err)
			}
			r, err := db.AddPrepared(pb)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range idsA {
				if skip[id-1] {
					continue
				}
				if a, b := ra.Map(id), r.Map(newID[id-1]); a != b {
					t.Fatalf("trial %d CU %d: type %d: class %d whole, %d with imports", trial, i, id, a, b)
				}
			}
			if !bytes.Equal(da.Table().Marshal(), db.Table().Marshal()) {
				t.Fatalf("trial %d CU %d: the tables differ", trial, i)
			}
			pb.Restore()
			if !bytes.Equal(buf.Bytes(), rb.Marshal()) {
				t.Fatalf("trial %d CU %d: Restore did not give the batch back", trial, i)
			}
		}
		oa, _, err := da.Finish()
		if err != nil {
			t.Fatal(err)
		}
		ob, _, err := db.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(oa.Marshal(), ob.Marshal()) {
			t.Fatalf("trial %d: outputs differ", trial)
		}
	}
	if imported == 0 {
		t.Fatal("nothing imported: the test tests nothing")
	}
	t.Logf("%d batch types imported", imported)
}

// importable marks (by id-1) the types of b whose whole closure went
// into classes the table had before b (ids below before) and holds no
// declaration (FWD, enum without enumerators).
func importable(b *btf.Spec, r Remap, before uint32) []bool {
	n := b.Len()
	state := make([]uint8, n) // 0 unknown, 1 visiting, 2 yes, 3 no
	var ok func(id btf.TypeID) bool
	ok = func(id btf.TypeID) bool {
		if id == 0 {
			return true
		}
		switch state[id-1] {
		case 1, 2:
			return true // a cycle: decided by its other members
		case 3:
			return false
		}
		state[id-1] = 1
		t := b.Type(id)
		good := uint32(r.Map(id)) < before && t.Kind() != btf.KindFwd &&
			!((t.Kind() == btf.KindEnum || t.Kind() == btf.KindEnum64) && t.Vlen() == 0)
		b.ForEachRef(id, func(ref *uint32) {
			good = good && ok(btf.TypeID(*ref))
		})
		if good {
			state[id-1] = 2
		} else {
			state[id-1] = 3
		}
		return good
	}
	skip := make([]bool, n)
	for id := btf.TypeID(1); id <= btf.TypeID(n); id++ {
		skip[id-1] = ok(id)
	}
	// A member of a cycle marked yes before another member failed:
	// recheck until stable.
	for changed := true; changed; {
		changed = false
		for id := btf.TypeID(1); id <= btf.TypeID(n); id++ {
			if !skip[id-1] {
				continue
			}
			b.ForEachRef(id, func(ref *uint32) {
				if *ref != 0 && !skip[*ref-1] {
					skip[id-1], changed = false, true
				}
			})
		}
	}
	return skip
}

// withoutImports copies b without the types skip marks, edges to them
// becoming import ids of their classes; newID maps b's ids (by id-1) to
// the copy's.
func withoutImports(b *btf.Spec, r Remap, skip []bool) (*btf.Spec, []btf.TypeID) {
	out := btf.NewSpec()
	out.SetStrings(b.Strings())
	newID := make([]btf.TypeID, b.Len())
	next := btf.TypeID(1)
	for i := range skip {
		if !skip[i] {
			newID[i] = next
			next++
		}
	}
	for id := btf.TypeID(1); id <= btf.TypeID(b.Len()); id++ {
		if skip[id-1] {
			continue
		}
		nid := out.Add(b.Type(id), slices.Clone(b.Extra(id))...)
		out.ForEachRef(nid, func(ref *uint32) {
			switch x := *ref; {
			case x == 0:
			case skip[x-1]:
				*ref = uint32(r.Map(btf.TypeID(x))) | ImportBit
			default:
				*ref = uint32(newID[x-1])
			}
		})
	}
	return out, newID
}

// TestPrepareImportRejects: an import id is an error for Prepare, and for
// PrepareAgainst when the snapshot has no such type.
func TestPrepareImportRejects(t *testing.T) {
	d, _ := NewIncremental(nil)
	b := d.NewBatch()
	b.Add(btf.Type{NameOff: b.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.MakeIntInfo(btf.IntSigned, 0, 32))
	if _, err := d.AddBatch(b); err != nil {
		t.Fatal(err)
	}
	s := d.Snapshot()
	p := NewPreparer()
	for _, tc := range []struct {
		to   uint32
		snap *Snapshot
		ok   bool
	}{
		{ImportBit | 1, s, true},
		{ImportBit | 1, nil, false}, // Prepare
		{ImportBit | 2, s, false},   // past the snapshot
		{ImportBit, s, false},       // void is no import
	} {
		batch := btf.NewSpec()
		batch.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: tc.to})
		var err error
		if tc.snap == nil {
			_, err = p.Prepare(batch, nil)
		} else {
			_, err = p.PrepareAgainst(batch, nil, tc.snap)
		}
		if (err == nil) != tc.ok {
			t.Errorf("PTR to %#x, snapshot %v: error %v", tc.to, tc.snap != nil, err)
		}
	}
}
