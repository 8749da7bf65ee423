package dedup

import (
	"bytes"
	"math/rand"
	"slices"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestPairCopy: deduplicating CUs batch by batch gives the same table
// ids after every batch and the same bytes after Finish with pairCopy as
// with check and commit alone, on random CUs and on CUs where
// declarations meet definitions inside cycles; and pairCopy settles some
// components (it could silently never apply).
func TestPairCopy(t *testing.T) {
	run := func(cus [][]absType, perms [][]int) (ids []btf.TypeID, out []byte, copies int) {
		d, err := NewIncremental(nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, cu := range cus {
			b := d.NewBatch()
			local := emit(b, cu, perms[i], nil)
			r, err := d.AddBatch(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range local {
				ids = append(ids, r.Map(id))
			}
			copies += d.st.copies
			d.st.copies = 0
		}
		s, _, err := d.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return ids, s.Marshal(), copies
	}
	trials := 300
	if testing.Short() {
		trials = 60
	}
	copies := 0
	for trial := 0; trial < trials; trial++ {
		rng := rand.New(rand.NewSource(int64(trial)))
		cus, perms := genUnits(rng)
		if trial%2 == 1 {
			cus, perms = genFwdUnits(rng)
		}
		noPairCopy = true
		ids0, out0, _ := run(cus, perms)
		noPairCopy = false
		ids1, out1, n := run(cus, perms)
		copies += n
		if !slices.Equal(ids0, ids1) || !bytes.Equal(out0, out1) {
			t.Fatalf("trial %d: pairCopy changes the result", trial)
		}
	}
	if copies == 0 {
		t.Fatalf("pairCopy settled no component in %d trials", trials)
	}
	t.Logf("pairCopy settled %d components", copies)
}
