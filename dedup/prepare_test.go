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
