package dedup

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// The adversarial input: the shape that made Debian 12's 6.1 kernel never
// finish. Every unit defines two rings of structs that reach each other
// (s0..s(k-1) and t0..t(k-1), each s_i pointing at t_i and t_i back at
// s_i, and each ring at its next two members), so each unit's types form
// one big cyclic component; the s ring also points at a struct 'leaf'
// that comes in V variants. Units of variant v share everything but the
// leaf, so the table holds V near-copies of both rings (in the kernel:
// struct fwnode_operations with a forward-declared or a complete enum
// dev_dma_attr, reached from nearly every struct), and every member of a
// unit has V candidates that differ from it only at the far end.
//
// Forward declarations both ways: in every third round of units, the t
// ring is only declared (the s_i point at FWD t_i), and in the next round
// the s ring is (the t_i point at FWD s_i, and no leaf is reached), so
// the rings meet their complete counterparts through FWDs in both
// directions.
//
// Units of round 0 with a new variant match nothing. Walking each of their
// members against each candidate, as dedup once did, explores both rings
// before the leaf tells the candidates apart: k members times V
// candidates times O(k) pairs per walk, for each of V variants.
func adversary(k, variants, units int) []cu {
	var cus []cu
	for u := 0; u < units; u++ {
		v, round := u%variants, (u/variants)%3
		cus = append(cus, func(b *builder) {
			b.Int("int", "int", 4)
			b.Array("arr", "int", "int", uint32(v+1))
			b.Struct("leaf", "leaf", 4, "x:arr@0")
			b.Ptr("pleaf", "leaf")
			s := func(i int) string { return fmt.Sprintf("s%d", (i+k)%k) }
			t := func(i int) string { return fmt.Sprintf("t%d", (i+k)%k) }
			for i := 0; i < k; i++ {
				b.Ptr("p"+s(i), s(i))
				b.Ptr("p"+t(i), t(i))
			}
			for i := 0; i < k; i++ {
				// The leaf first: a depth-first walk takes the last
				// edge first, so it meets the leaf last.
				if round == 2 {
					b.Fwd(s(i), s(i), false)
				} else {
					b.Struct(s(i), s(i), 32, "l:pleaf@0", "t:p"+t(i)+"@64", "a:p"+s(i+1)+"@128", "b:p"+s(i+2)+"@192")
				}
				if round == 1 {
					b.Fwd(t(i), t(i), false)
				} else {
					b.Struct(t(i), t(i), 24, "s:p"+s(i)+"@0", "a:p"+t(i+1)+"@64", "b:p"+t(i+2)+"@128")
				}
			}
		})
	}
	return cus
}

// TestAdversarial runs the adversarial input unit by unit and as one
// batch. It checks the result (exactly the V variants of both rings, every
// forward declaration resolved, the same bytes both ways) and the work:
// within a batch every member tries each of its candidates at most once,
// and a pair of types is explored at most once per epoch, so the pairs
// explored stay under (1 + epochs) * types * candidates per batch (see the
// package documentation, "Cost"). The code this replaced explored k
// members * V candidates * O(k) pairs per new variant: with k=400, V=16,
// 48 units it took 5.5 minutes; now the same input takes a quarter of a
// second (TestAdversarialLarge, not in -short).
func TestAdversarial(t *testing.T) {
	k, variants, units := 60, 6, 18
	if !testing.Short() {
		k, variants, units = 200, 8, 24
	}
	checkAdversary(t, k, variants, units)
}

func TestAdversarialLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large adversarial input")
	}
	checkAdversary(t, 400, 16, 48)
}

func checkAdversary(t *testing.T, k, variants, units int) {
	cus := adversary(k, variants, units)
	d, err := NewIncremental(nil)
	if err != nil {
		t.Fatal(err)
	}
	bound := 0 // sum over batches of (1 + epochs) * types * longest chain
	checks := 0
	var sizes, epochs []int
	for _, f := range cus {
		b := newBuilder(d.NewBatch(), nil)
		f(b)
		e0 := d.stats.epochs
		batch := b.done()
		if _, err := d.AddBatch(batch); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, batch.Len())
		epochs = append(epochs, d.stats.epochs-e0)
	}
	// The longest hash chain in the table: no type had more candidates.
	chain := 0
	for id := uint32(1); id < uint32(d.table.NextID()); id++ {
		n := 0
		for c := d.index.find(d.hash[id], d.hash, 0); c != 0; c = d.next[c] {
			n++
		}
		chain = max(chain, n)
	}
	for i, n := range sizes {
		bound += (1 + epochs[i]) * n * chain
		checks += n * chain
	}
	stats := d.stats
	out, _, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("k=%d V=%d units=%d: %+v; longest chain %d, bound %d pairs", k, variants, units, stats, chain, bound)
	if chain > variants+1 {
		// The variants, and a pointer to a FWD among the pointers.
		t.Errorf("a hash chain holds %d classes, want at most %d", chain, variants+1)
	}
	if stats.checks > checks {
		t.Errorf("%d checks, more than every type against every candidate (%d)", stats.checks, checks)
	}
	if stats.nodes > bound {
		t.Errorf("%d pairs explored, bound %d", stats.nodes, bound)
	}

	// The result: each ring struct, its pointer, the leaf, its pointer and
	// its array once per variant, and one int.
	if want := variants*(4*k+3) + 1; out.Len() != want {
		t.Errorf("%d types, want %d", out.Len(), want)
	}
	names := map[string]int{}
	for id := out.FirstID(); id < out.NextID(); id++ {
		switch out.Kind(id) {
		case btf.KindFwd:
			t.Errorf("unresolved %s", FormatType(out, id))
		case btf.KindStruct:
			names[out.Name(id)]++
		}
	}
	for _, n := range []string{"leaf", "s0", fmt.Sprintf("t%d", k-1)} {
		if names[n] != variants {
			t.Errorf("%d structs %q, want %d", names[n], n, variants)
		}
	}
	in := btf.NewSpec()
	for _, f := range cus {
		b := newBuilder(in, nil)
		f(b)
		b.done()
	}
	one, _, err := Dedup(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one.Marshal(), out.Marshal()) {
		t.Error("one batch differs from one batch per unit")
	}
}

// BenchmarkAdversarial deduplicates the adversarial input (k=400, V=16,
// 48 units) as one input (Dedup: chunks of 16k types). On a shared 2-core
// host: 0.32 s/op; the union-find walk before (d2a7303) took 381 s.
func BenchmarkAdversarial(b *testing.B) {
	in := btf.NewSpec()
	for _, f := range adversary(400, 16, 48) {
		bb := newBuilder(in, nil)
		f(bb)
		bb.done()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := Dedup(in); err != nil {
			b.Fatal(err)
		}
	}
}
