package dedup

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// lazyOrNot runs cus over base through AddBatch (or Prepare and
// AddPrepared) with the base indexed on demand or hashed whole, and
// returns the output and whether the index was on demand.
func lazyOrNot(t *testing.T, base *btf.Spec, cus [][]absType, perms [][]int, lazy, prepared bool) ([]byte, bool) {
	t.Helper()
	lazyBaseOff = !lazy
	defer func() { lazyBaseOff = false }()
	d, err := NewIncremental(base)
	if err != nil {
		t.Fatal(err)
	}
	onDemand := d.lz != nil
	prep := NewPreparer()
	for i, cu := range cus {
		if prepared {
			b := btf.NewSpec()
			emit(b, cu, perms[i], nil)
			p, err := prep.Prepare(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.AddPrepared(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b := d.NewBatch()
		emit(b, cu, perms[i], nil)
		if _, err := d.AddBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return out.Marshal(), onDemand
}

// TestLazyBaseMatchesWhole: modules deduplicated over a base indexed on
// demand give the bytes they give over the base hashed whole, through
// AddBatch and AddPrepared; a base with duplicates is never indexed on
// demand.
func TestLazyBaseMatchesWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	trials := 400
	if testing.Short() {
		trials = 100
	}
	onDemand, whole := 0, 0
	for trial := 0; trial < trials; trial++ {
		bc, bp := genInput(rng, trial%2 == 0)
		base := concat(bc, bp)
		if trial%4 != 3 {
			if b, _, err := Dedup(base); err == nil {
				base = b
			}
		}
		baseFullRun = true
		full, err := NewIncremental(base)
		baseFullRun = false
		if err != nil {
			t.Fatal(err)
		}
		cus, perms := genInput(rng, false)
		for _, prepared := range []bool{false, true} {
			want, _ := lazyOrNot(t, base, cus, perms, false, prepared)
			lazyByContent = trial%3 == 1
			got, lazy := lazyOrNot(t, base, cus, perms, true, prepared)
			lazyByContent = false
			if lazy && full.canon != nil {
				t.Fatalf("trial %d: a base with duplicates was indexed on demand", trial)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("trial %d (prepared %v, on demand %v): output differs from the whole base's", trial, prepared, lazy)
			}
			if !prepared {
				if lazy {
					onDemand++
				} else {
					whole++
				}
			}
		}
	}
	t.Logf("%d bases indexed on demand, %d hashed whole", onDemand, whole)
	if onDemand == 0 || whole == 0 {
		t.Fatalf("the inputs do not cover both ways: %d on demand, %d whole", onDemand, whole)
	}
}

// TestLazyChainComplete: for every type x of a base without duplicates,
// linking the candidates of a lookup of x (as a batch type equal to x
// asks, by its exact edges or checked) puts in the chain of x's hash
// every base type of that hash whose label equals x's (those a lookup
// can match), the chain holds only types of that hash, newest first,
// and the hashes are those of the base hashed whole.
func TestLazyChainComplete(t *testing.T) {
	rng := rand.New(rand.NewSource(32))
	checkedAll, byOff := 0, 0
	for trial := 0; trial < 300; trial++ {
		bc, bp := genInput(rng, trial%2 == 0)
		base, _, err := Dedup(concat(bc, bp))
		if err != nil {
			t.Fatal(err)
		}
		lazyBaseOff = true
		whole, err := NewIncremental(base)
		lazyBaseOff = false
		if err != nil {
			t.Fatal(err)
		}
		n := uint32(base.Len())
		for _, checked := range []bool{false, true} {
			d, err := NewIncremental(base)
			if err != nil {
				t.Fatal(err)
			}
			if d.lz == nil {
				continue
			}
			if d.lz.byOff {
				byOff++
			}
			for x := uint32(1); x <= n; x++ {
				nx := d.baseNode(x)
				if d.neverMerged(nx.t.Kind()) {
					continue
				}
				d.linkCandidates(nx, checked, func(c uint32) uint32 { return c })
				h := d.exHash(x)
				if h != whole.hash[x] || d.exTag(x) != whole.tag[x] || d.exLHReady(x) != whole.lh[x] || d.exFin(x) != whole.fin[x] {
					t.Fatalf("trial %d: base type %d's hashes differ from the whole base's", trial, x)
				}
				in := map[uint32]bool{}
				prev := n + 1
				for c := d.chain(h); c != 0; c = d.nextOf(c) {
					if c >= prev || d.exHash(c) != h {
						t.Fatalf("trial %d: chain of %d's hash has %d after %d (hash %x, want %x)", trial, x, c, prev, d.exHash(c), h)
					}
					in[c], prev = true, c
				}
				// By its exact edges, an unnamed non-aggregate or a tag
				// can match only a type with the same edges.
				_, isNamed := named(nx.s, uint32(nx.t.NameOff))
				byEdges := !checked && (isTagKind(nx.t.Kind()) || !isNamed && !isAggKind(nx.t.Kind()))
				for y := uint32(1); y <= n; y++ {
					ny := d.baseNode(y)
					if byEdges && !sameEdges(nx, ny) {
						continue
					}
					if whole.hash[y] == h && !in[y] && !d.neverMerged(ny.t.Kind()) && labelEq(nx, ny) {
						t.Fatalf("trial %d (checked %v): lookup of %d misses candidate %d", trial, checked, x, y)
					}
				}
				checkedAll++
			}
		}
	}
	t.Logf("%d lookups checked, %d bases keyed by name offsets", checkedAll, byOff)
	if checkedAll == 0 || byOff == 0 {
		t.Fatal("no base was indexed on demand, or none by name offsets")
	}
}

// TestLazyBaseRefuses: a cycle through unnamed non-aggregates, two
// equivalent types, or an edge to no type make indexBase hash the whole
// base (or fail, for the edge).
func TestLazyBaseRefuses(t *testing.T) {
	ptr := func(to uint32) btf.Type { return btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: to} }
	cycle := btf.NewSpec()
	cycle.Add(ptr(2))
	cycle.Add(ptr(1))
	dup := btf.NewSpec()
	i := dup.Add(btf.Type{NameOff: dup.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, 32)
	dup.Add(ptr(uint32(i)))
	dup.Add(btf.Type{NameOff: dup.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, 32)
	dup.Add(ptr(3))
	fine := btf.NewSpec()
	i = fine.Add(btf.Type{NameOff: fine.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, 32)
	fine.Add(ptr(3))
	fine.Add(ptr(uint32(i)))
	for _, c := range []struct {
		name string
		base *btf.Spec
		lazy bool
	}{{"anonymous cycle", cycle, false}, {"duplicates", dup, false}, {"forward edge", fine, true}} {
		d, err := NewIncremental(c.base)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (d.lz != nil) != c.lazy {
			t.Errorf("%s: indexed on demand %v, want %v", c.name, d.lz != nil, c.lazy)
		}
	}
}

// TestLazyBaseNameKeys: a base whose strings are unique is keyed by
// name offsets; one with a type named by the tail of another string (not
// at a string's start) by content; either way a batch type named like a
// base type, in its own strings, finds it.
func TestLazyBaseNameKeys(t *testing.T) {
	intOf := func(s *btf.Spec, off btf.StrOff) btf.Type {
		return btf.Type{NameOff: off, Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}
	}
	for _, c := range []struct {
		name  string
		tail  bool
		byOff bool
	}{{"unique", false, true}, {"tail", true, false}} {
		base := btf.NewSpec()
		off := base.Strings().Add("xint")
		if !c.tail {
			off = base.Strings().Add("int")
		} else {
			off++
		}
		base.Add(intOf(base, off), 32)
		d, err := NewIncremental(base)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d.lz == nil || d.lz.byOff != c.byOff {
			t.Fatalf("%s: on demand %v, want keyed by offsets %v", c.name, d.lz != nil, c.byOff)
		}
		// Each name twice: looked up, then remembered (nameHash).
		var long btf.TypeID
		for i, name := range []string{"long", "int", "long", "int"} {
			b := d.NewBatch()
			// The batch's own copy, not the base's offset.
			off := b.Strings().Append(name)
			id := b.Add(intOf(b, off), 32)
			if got := b.Name(id); got != name {
				t.Fatalf("%s: batch type named %q", c.name, got)
			}
			remap, err := d.AddBatch(b)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got := remap.Map(id)
			switch {
			case name == "int" && got != 1:
				t.Errorf("%s: batch %d's int maps to [%d], want the base's [1]", c.name, i, got)
			case name == "long" && i == 0:
				long = got
			case name == "long" && got != long:
				t.Errorf("%s: batch %d's long maps to [%d], want the table's [%d]", c.name, i, got, long)
			}
		}
		if long <= 1 {
			t.Errorf("%s: long maps to [%d], in the base", c.name, long)
		}
	}
}

// TestLazyBaseBytes checks the per-base-type figure of baselazy.go: 1
// byte a type, 4 a grouped type, at most 1 of group starts, and 8 to 16
// of slots a type reached.
func TestLazyBaseBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	for trial := 0; trial < 50; trial++ {
		bc, bp := genInput(rng, false)
		base, _, err := Dedup(concat(bc, bp))
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewIncremental(base)
		if err != nil || d.lz == nil {
			continue
		}
		lz, n := d.lz, int(lz0(d))
		perType := len(lz.state) + 4*len(lz.groups) + 4*len(lz.gstart)
		if perType > 6*(n+1)+72 || len(lz.groups) > n || cap(d.next) > splitTableStart {
			t.Fatalf("%d base types: %d bytes of per-type tables, %d grouped", n, perType, len(lz.groups))
		}
		// The types reached: a slot of 4 bytes each, at most half full.
		for x := uint32(1); x <= uint32(n); x++ {
			d.exHash(x)
			if reached := len(lz.ids); len(lz.slot.slots) > max(64, 4*reached) || len(lz.slot.slots) < 2*reached {
				t.Fatalf("%d base types reached: %d slots", reached, len(lz.slot.slots))
			}
		}
		return
	}
	t.Fatal("no base was indexed on demand")
}

func lz0(d *Incremental) uint32 { return d.lz.n }

func sameEdges(a, b node) bool {
	if numRefs(a.t, a.w) != numRefs(b.t, b.w) {
		return false
	}
	for j := 0; j < numRefs(a.t, a.w); j++ {
		if refAt(a.t, a.w, j) != refAt(b.t, b.w, j) {
			return false
		}
	}
	return true
}
