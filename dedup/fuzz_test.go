package dedup

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// FuzzDedup: for any raw BTF that parses, Dedup does not panic, its output
// references only valid ids, is a fixed point, and validates whenever the
// input validates.
func FuzzDedup(f *testing.F) {
	for _, c := range dedupCases {
		if c.base == nil {
			_, _, in := buildCase(c)
			f.Add(in.Marshal())
		}
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 20; i++ {
		cus, perms := genInput(rng, i%2 == 0)
		f.Add(concat(cus, perms).Marshal())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := btf.Parse(data, nil)
		if err != nil {
			return
		}
		out, remap, err := Dedup(in)
		if err != nil {
			if checkRefs(in) == nil {
				t.Fatalf("Dedup failed on input with valid references: %v", err)
			}
			return
		}
		if err := checkRefs(out); err != nil {
			t.Fatalf("output: %v", err)
		}
		for id := in.FirstID(); id < in.NextID(); id++ {
			if m := remap.Map(id); m == 0 || !out.Valid(m) {
				t.Fatalf("remap[%d] = %d", id, m)
			}
		}
		if in.Validate() == nil {
			if err := out.Validate(); err != nil {
				t.Fatalf("input validates, output does not: %v", err)
			}
		}
		again, _, err := Dedup(out)
		if err != nil || !bytes.Equal(again.Marshal(), out.Marshal()) {
			t.Fatalf("dedup is not idempotent (%v)", err)
		}
	})
}
