package dedup

import (
	"errors"
	"math/rand"
	"slices"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestHashBaseMatchesFullRun compares indexBase's two ways on random
// bases: as generated (most have equivalent duplicates, so hashBase must
// give up) and deduplicated (none, so hashBase must take them): the
// hashes, tags, label signatures, finiteness, chains, index and canon
// must be the full run's.
func TestHashBaseMatchesFullRun(t *testing.T) {
	lazyBaseOff = true // the whole base hashed, as the full run has it
	defer func() { lazyBaseOff = false }()
	rng := rand.New(rand.NewSource(18))
	fast, dups, shared := 0, 0, 0
	for i := 0; i < 600; i++ {
		cus, perms := genInput(rng, true)
		raw := concat(cus, perms)
		bases := []*btf.Spec{raw}
		if out, _, err := Dedup(raw); err == nil {
			bases = append(bases, out)
		}
		for _, base := range bases {
			baseFullRun = true
			want, err := NewIncremental(base)
			baseFullRun = false
			if err != nil {
				t.Fatal(err)
			}
			got, err := NewIncremental(base)
			if err != nil {
				t.Fatal(err)
			}
			if want.canon != nil {
				dups++
			} else {
				fast++
				if !got.baseHashed {
					t.Fatalf("input %d (%d types): no duplicates, but hashBase gave up", i, base.Len())
				}
				for id := range want.next {
					if id > 0 && want.next[id] != 0 {
						shared++
						break
					}
				}
			}
			if !slices.Equal(got.hash, want.hash) || !slices.Equal(got.tag, want.tag) || !slices.Equal(got.lh, want.lh) ||
				!slices.Equal(got.fin, want.fin) || !slices.Equal(got.next, want.next) ||
				!slices.Equal(got.baseIndex.slots, want.baseIndex.slots) || !slices.Equal(got.canon, want.canon) {
				t.Fatalf("input %d (%d types, duplicates %v): hashBase's state differs from the full run's", i, base.Len(), want.canon != nil)
			}
		}
	}
	t.Logf("%d bases without duplicates (%d with hashes shared by types that are not equivalent), %d with", fast, shared, dups)
	if fast == 0 || dups == 0 || shared == 0 {
		t.Fatalf("the inputs do not cover both ways and shared hashes: %d without, %d with duplicates, %d sharing", fast, dups, shared)
	}
}

// TestHashBaseBadEdge: an edge of a base type that names no type is
// checkRefs' error, whether the search (a PTR) or the hash pass (a
// struct's member) reads it.
func TestHashBaseBadEdge(t *testing.T) {
	for _, kind := range []btf.Kind{btf.KindPtr, btf.KindStruct} {
		base := btf.NewSpec()
		i := base.Add(btf.Type{NameOff: base.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, 32)
		if kind == btf.KindPtr {
			base.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: 7})
		} else {
			base.Add(btf.Type{NameOff: base.Strings().Add("s"), Info: btf.MakeInfo(btf.KindStruct, 2, false), SizeOrType: 8},
				uint32(base.Strings().Add("a")), uint32(i), 0, uint32(base.Strings().Add("b")), 9, 32)
		}
		_, err := NewIncremental(base)
		var fe *btf.FormatError
		if !errors.As(err, &fe) || fe.ID != 2 {
			t.Errorf("%v: got %v, want checkRefs' error for [2]", kind, err)
		}
	}
}
