package dedup

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestPrepared: deduplicating self-contained CUs through Prepare (on a
// Preparer of its own, as a worker would) and AddPrepared gives the same
// bytes and the same id maps as AddBatch of the same CUs placed after the
// table, with and without a base, for CUs emitted in random orders.
func TestPrepared(t *testing.T) {
	trials := 300
	if testing.Short() {
		trials = 60
	}
	rng := rand.New(rand.NewSource(7))
	prep := NewPreparer()
	for trial := 0; trial < trials; trial++ {
		var base *btf.Spec
		if trial%3 == 2 {
			bc, bp := genInput(rng, false)
			b, _, err := Dedup(concat(bc, bp))
			if err != nil {
				t.Fatal(err)
			}
			base = b
		}
		cus, perms := genInput(rng, false)
		da, err := NewIncremental(base)
		if err != nil {
			t.Fatal(err)
		}
		db, _ := NewIncremental(base)
		var reuse *Prepared
		for i, cu := range cus {
			ba := da.NewBatch()
			idsA := emit(ba, cu, perms[i], nil)
			ra, err := da.AddBatch(ba)
			if err != nil {
				t.Fatal(err)
			}
			bb := btf.NewSpec()
			idsB := emit(bb, cu, perms[i], nil)
			p, err := prep.Prepare(bb, reuse)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := db.AddPrepared(p)
			if err != nil {
				t.Fatal(err)
			}
			reuse = p
			for k := range idsA {
				if a, b := ra.Map(idsA[k]), rb.Map(idsB[k]); a != b {
					t.Fatalf("trial %d CU %d type %d: table id %d via AddBatch, %d via AddPrepared", trial, i, k, a, b)
				}
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
			t.Fatalf("trial %d: AddPrepared's output differs from AddBatch's", trial)
		}
	}
}

func TestPrepareRejects(t *testing.T) {
	p := NewPreparer()
	s := btf.NewSpec()
	s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: 7})
	if _, err := p.Prepare(s, nil); err == nil {
		t.Error("an edge past the batch was accepted")
	}
	base := btf.NewSpec()
	base.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false)})
	if _, err := p.Prepare(btf.NewSplitSpec(base), nil); err == nil {
		t.Error("a split Spec was accepted")
	}
}

// TestPrepareRestore: Prepare moves a batch's edges in place; Restore
// moves them back (the batch marshals as before), after which the batch
// cannot be added; a batch with an edge past its end is left as it was.
func TestPrepareRestore(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	prep := NewPreparer()
	for trial := 0; trial < 50; trial++ {
		cus, perms := genInput(rng, false)
		b := btf.NewSpec()
		emit(b, cus[0], perms[0], nil)
		want := b.Marshal()
		p, err := prep.Prepare(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(b.Marshal(), want) && hasEdges(b) {
			t.Fatalf("trial %d: Prepare did not move the edges", trial)
		}
		p.Restore()
		p.Restore()
		if !bytes.Equal(b.Marshal(), want) {
			t.Fatalf("trial %d: restored batch differs", trial)
		}
		d, _ := NewIncremental(nil)
		if _, err := d.AddPrepared(p); err == nil {
			t.Fatalf("trial %d: a restored batch was added", trial)
		}
	}
	s := btf.NewSpec()
	s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: 2})
	s.Add(btf.Type{Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.MakeIntInfo(0, 0, 32))
	s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: 9})
	want := s.Marshal()
	if _, err := prep.Prepare(s, nil); err == nil {
		t.Fatal("an edge past the batch was accepted")
	}
	if !bytes.Equal(s.Marshal(), want) {
		t.Fatal("a rejected batch was changed")
	}
}

func hasEdges(s *btf.Spec) bool {
	for id := s.FirstID(); id < s.NextID(); id++ {
		t, w := s.Type(id), s.Extra(id)
		for j := 0; j < numRefs(t, w); j++ {
			if refAt(t, w, j) != 0 {
				return true
			}
		}
	}
	return false
}
