package arena

import (
	"testing"
	"unsafe"
)

func TestSizes(t *testing.T) {
	if got := unsafe.Sizeof(Tag{}); got != 24 {
		t.Errorf("sizeof(Tag) = %d, want 24", got)
	}
}

func TestPool(t *testing.T) {
	p := &Pool{Max: 1, MaxKeep: 1 << 10}
	a := p.Get()
	a.Tags = append(a.Tags, Tag{Off: 1})
	a.Vals = append(a.Vals, 7)
	p.Put(a)
	b := p.Get()
	if b != a || len(b.Tags) != 0 || len(b.Vals) != 0 || cap(b.Tags) == 0 {
		t.Fatalf("pool did not recycle a reset arena")
	}
	b.Bytes = make([]byte, 2<<10)
	p.Put(b)
	if c := p.Get(); c == b {
		t.Fatalf("arena above MaxKeep was kept")
	}
	p.Put(new(Arena))
	p.Put(new(Arena))
	if len(p.free) != 1 {
		t.Fatalf("pool keeps %d arenas, want at most 1", len(p.free))
	}
}

// TestPoolKeepsIndex: a pooled arena comes back with its Index empty and
// its room kept, like the other slices; Footprint leaves Index out.
func TestPoolKeepsIndex(t *testing.T) {
	var p Pool
	a := p.Get()
	a.Index = make([][3]uint32, 40)
	before := a.Footprint()
	p.Put(a)
	b := p.Get()
	if b != a || len(b.Index) != 0 || cap(b.Index) != 40 {
		t.Fatalf("pooled arena: Index len %d cap %d (same arena %v), want 0 and 40", len(b.Index), cap(b.Index), b == a)
	}
	if before != 0 {
		t.Fatalf("Footprint %d with only an Index, want 0", before)
	}
}
