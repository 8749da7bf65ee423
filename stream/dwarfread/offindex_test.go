package dwarfread

import "testing"

func TestOffBucketMark(t *testing.T) {
	var b offBucket
	for _, rel := range []uint32{64, 65, 64 + 31, 64 + 32, 64 + 63} {
		b.mark(rel)
	}
	if b.bits != [2]uint32{1<<0 | 1<<1 | 1<<31, 1<<0 | 1<<31} {
		t.Fatalf("bits %#x", b.bits)
	}
}

// TestOffPool: the pool hands back an index large enough, keeps at most
// max, prefers the larger when full, and keeps none above maxKeep bytes.
func TestOffPool(t *testing.T) {
	p := offPool{max: 2, maxKeep: 12 * 100}
	a, b, c := make([]offBucket, 10), make([]offBucket, 50), make([]offBucket, 30)
	p.put(a)
	p.put(b)
	p.put(c) // full: replaces a, the smaller
	p.put(make([]offBucket, 101))
	if len(p.free) != 2 {
		t.Fatalf("%d kept, want 2", len(p.free))
	}
	for _, s := range p.free {
		if cap(s) == 10 || cap(s) > 100 {
			t.Fatalf("kept an index of %d buckets", cap(s))
		}
	}
	if s := p.get(40); cap(s) != 50 || len(s) != 40 {
		t.Fatalf("get(40): len %d cap %d, want 40 of the 50", len(s), cap(s))
	}
	if s := p.get(40); cap(s) != 40 {
		t.Fatalf("get(40) again: cap %d, want a new 40", cap(s))
	}
	p.drain()
	if p.free != nil {
		t.Fatal("drain kept indexes")
	}
}
