package dedup

import (
	"maps"
	"math/rand"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestGrowths checks growths and capacityAfter against libbpfTable's
// insertions one by one.
func TestGrowths(t *testing.T) {
	lt := libbpfTable{chains: map[string][]uint32{}}
	g, last := 0, 0
	for n := 0; n < 5000; n++ {
		if got := growths(n); got != g {
			t.Fatalf("growths(%d) = %d, want %d", n, got, g)
		}
		if got := capacityAfter(n); got != lt.capacity {
			t.Fatalf("capacityAfter(%d) = %d, want %d", n, got, lt.capacity)
		}
		last = lt.capacity
		lt.insert()
		if lt.capacity != last {
			g++
		}
	}
}

// TestPlanEnumsLookups compares planEnums reading only the base types the
// local ones look up with planEnums over every base type, on random
// enums, enum declarations, ints and FWDs of a few names, split over
// bases of random sizes (so that libbpf's table grows between and after
// a name's base enums).
func TestPlanEnumsLookups(t *testing.T) {
	rng := rand.New(rand.NewSource(18))
	names := []string{"", "a", "b", "c", "d"}
	fill := func(s *btf.Spec, n int) {
		for i := 0; i < n; i++ {
			name := s.Strings().Add(names[rng.Intn(len(names))])
			switch rng.Intn(6) {
			case 0, 1:
				vlen := rng.Intn(3)
				var w []uint32
				for j := 0; j < vlen; j++ {
					w = append(w, uint32(s.Strings().Add(names[1+rng.Intn(4)])), uint32(rng.Intn(3)))
				}
				s.Add(btf.Type{NameOff: name, Info: btf.MakeInfo(btf.KindEnum, uint32(vlen), false), SizeOrType: 4}, w...)
			case 2:
				s.Add(btf.Type{NameOff: name, Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, uint32(32))
			case 3:
				s.Add(btf.Type{NameOff: name, Info: btf.MakeInfo(btf.KindFwd, 0, rng.Intn(2) == 0)})
			case 4:
				s.Add(btf.Type{NameOff: name, Info: btf.MakeInfo(btf.KindVar, 0, false), SizeOrType: 1}, 0)
			default:
				s.Add(btf.Type{NameOff: name, Info: btf.MakeInfo(btf.KindPtr, 0, false)})
			}
		}
	}
	moved := 0
	for i := 0; i < 400; i++ {
		base := btf.NewSpec()
		fill(base, rng.Intn(200))
		local := btf.NewSplitSpec(base)
		fill(local, 1+rng.Intn(40))
		src := func() Source { return specSource(local) }
		enumsSeeAllBase = true
		want := planEnums(base, uint32(local.FirstID()), local.Strings(), src)
		enumsSeeAllBase = false
		got := planEnums(base, uint32(local.FirstID()), local.Strings(), src)
		if !maps.Equal(got.to, want.to) {
			t.Fatalf("input %d: got %v, want %v", i, got.to, want.to)
		}
		moved += len(want.to)
	}
	if moved == 0 {
		t.Fatal("no declaration moved: the inputs test nothing")
	}
}
