package dedup

import (
	"bytes"
	"math/rand"
	"slices"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// addNode adds `struct NAME { int val; struct NAME *next; }` and returns the
// struct's id.
func addNode(s *btf.Spec, name string) btf.TypeID {
	str := s.Strings()
	intID := s.Add(btf.Type{NameOff: str.Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4},
		btf.MakeIntInfo(btf.IntSigned, 0, 32))
	ptr := s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false)})
	node := s.Add(btf.Type{NameOff: str.Add(name), Info: btf.MakeInfo(btf.KindStruct, 2, false), SizeOrType: 16},
		uint32(str.Add("val")), uint32(intID), 0, uint32(str.Add("next")), uint32(ptr), 64)
	s.SetType(ptr, btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(node)})
	return node
}

func TestSplitOnto(t *testing.T) {
	base := btf.NewSpec()
	addNode(base, "list")
	baseBytes := string(base.Marshal())

	mod := btf.NewSpec() // a module encoded on its own: repeats "list", adds "item"
	addNode(mod, "list")
	addNode(mod, "item")

	out, err := SplitOnto(base, mod)
	if err != nil {
		t.Fatal(err)
	}
	if out.Base() != base || out.FirstID() != base.NextID() {
		t.Fatalf("not split over base: first id %d", out.FirstID())
	}
	// Only item's struct and pointer are new; int and list come from base.
	if out.Len() != 2 {
		t.Fatalf("split has %d types, want 2:\n%s", out.Len(), dumpAll(out))
	}
	for id := out.FirstID(); id < out.NextID(); id++ {
		if out.Kind(id) == btf.KindStruct {
			if m := out.Member(id, 0); m.Type >= base.NextID() {
				t.Errorf("item.val points at module type %d, not base int", m.Type)
			}
		}
	}
	if string(base.Marshal()) != baseBytes {
		t.Error("SplitOnto changed the base")
	}
	for id := out.FirstID(); id < out.NextID(); id++ {
		if out.Name(id) == "list" {
			t.Error("module kept its own copy of base struct list")
		}
	}
	if _, err := SplitOnto(base, out); err == nil {
		t.Error("SplitOnto accepted split input")
	}
}

func dumpAll(s *btf.Spec) string {
	var b string
	for id := s.FirstID(); id < s.NextID(); id++ {
		b += s.DumpType(id)
	}
	return b
}

// An input with no types (a valid BTF: header and an empty string) must
// dedup to an empty result, not an error (found by FuzzDedup).
func TestDedupEmpty(t *testing.T) {
	out, _, err := Dedup(btf.NewSpec())
	if err != nil || out.Len() != 0 {
		t.Fatalf("Dedup(empty) = %d types, %v", out.Len(), err)
	}
}

// TestAdjustKey: keying adjustBase's index by label and edge signatures
// (aggKey) instead of labels alone skips only checks that FAIL: modules
// deduplicated against a base, where declarations and two definitions of
// one label meet, come out with the same ids and bytes, with fewer checks.
// AddPrepared checks as many pairs as AddBatch when it checks every type
// (adjustCheckAll), and no more when it checks only the types that reach
// a struct named like a base FWD (mayAdjust), with the same output.
func TestAdjustKey(t *testing.T) {
	trials := 200
	if testing.Short() {
		trials = 40
	}
	rng := rand.New(rand.NewSource(11))
	fewer, kept, pruned := 0, 0, 0
	prep := NewPreparer()
	for trial := 0; trial < trials; trial++ {
		bc, bp := genFwdUnits(rng)
		base, _, err := Dedup(concat(bc, bp))
		if err != nil {
			t.Fatal(err)
		}
		cus, perms := genFwdUnits(rng)
		// Modes: AddBatch, AddBatch keyed by labels only, AddPrepared
		// (whose keys read Prepare's label hashes), checking every type
		// or (mode 3) only those mayAdjust marks.
		var outs [4][]byte
		var maps [4][]btf.TypeID
		var checks [4]int
		for mode := 0; mode < 4; mode++ {
			adjustLabelsOnly = mode == 1
			adjustCheckAll = mode == 2
			d, err := NewIncremental(base)
			if err != nil {
				t.Fatal(err)
			}
			for i, cu := range cus {
				var r Remap
				var ids []btf.TypeID
				if mode >= 2 {
					b := btf.NewSpec()
					ids = emit(b, cu, perms[i], nil)
					p, err := prep.Prepare(b, nil)
					if err != nil {
						t.Fatal(err)
					}
					r, err = d.AddPrepared(p)
					if err != nil {
						t.Fatal(err)
					}
				} else {
					b := d.NewBatch()
					ids = emit(b, cu, perms[i], nil)
					if r, err = d.AddBatch(b); err != nil {
						t.Fatal(err)
					}
				}
				for _, id := range ids {
					maps[mode] = append(maps[mode], r.Map(id))
				}
			}
			checks[mode] = d.stats.checks
			if mode == 0 && len(d.kept) > 0 {
				kept++
			}
			out, _, err := d.Finish()
			if err != nil {
				t.Fatal(err)
			}
			outs[mode] = out.Marshal()
		}
		adjustLabelsOnly, adjustCheckAll = false, false
		if !bytes.Equal(outs[0], outs[1]) || !slices.Equal(maps[0], maps[1]) {
			t.Fatalf("trial %d: output differs with the index keyed by labels only", trial)
		}
		if !bytes.Equal(outs[0], outs[2]) || !slices.Equal(maps[0], maps[2]) {
			t.Fatalf("trial %d: AddPrepared's output differs from AddBatch's", trial)
		}
		if checks[2] != checks[0] {
			t.Fatalf("trial %d: %d checks via AddPrepared, %d via AddBatch", trial, checks[2], checks[0])
		}
		if !bytes.Equal(outs[0], outs[3]) || !slices.Equal(maps[0], maps[3]) {
			t.Fatalf("trial %d: AddPrepared's output differs when it checks only the types mayAdjust marks", trial)
		}
		if checks[3] > checks[2] {
			t.Fatalf("trial %d: %d checks of the marked types, %d of all", trial, checks[3], checks[2])
		}
		if checks[3] < checks[2] {
			pruned++
		}
		if checks[0] > checks[1] {
			t.Fatalf("trial %d: %d checks with edge signatures, %d with labels only", trial, checks[0], checks[1])
		}
		if checks[0] < checks[1] {
			fewer++
		}
	}
	if fewer == 0 || kept == 0 || pruned == 0 {
		t.Fatalf("no trial skipped a check (%d, %d by mayAdjust) or kept a module type (%d): the test proves nothing", fewer, pruned, kept)
	}
	t.Logf("%d of %d trials skipped checks (%d by mayAdjust), %d kept module types", fewer, trials, pruned, kept)
}
