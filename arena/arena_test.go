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
