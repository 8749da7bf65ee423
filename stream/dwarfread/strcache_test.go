package dwarfread

import (
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// collidingOffsets returns two .debug_str offsets that share a slot of c.
func collidingOffsets(t *testing.T, c *strCache) (a, b uint64) {
	a = 100
	for b = a + 1; b < 1<<24; b++ {
		if c.slot(b) == c.slot(a) {
			return a, b
		}
	}
	t.Fatal("no colliding offset")
	return
}

// TestStrCacheABA replays the interleaving that broke the old protocol
// (load key, load pointer, reload key): between the reader's key load and
// its pointer load, another goroutine caches string B in the slot; between
// the pointer load and the second check, a third caches string A again,
// which restores the key the reader saw first. The reader then holds B's
// pointer with A's length. It must miss instead (or return A).
func TestStrCacheABA(t *testing.T) {
	c := newStrCache(strCacheBits)
	offA, offB := collidingOffsets(t, c)
	strA, strB := strings.Repeat("a", 16), strings.Repeat("b", 16)
	c.put(offA, strA)
	c.hook = func(step int) {
		switch step {
		case 1:
			c.put(offB, strB)
		case 2:
			c.put(offA, strings.Clone(strA))
		}
	}
	s, ok := c.get(offA)
	c.hook = nil
	if ok && s != strA {
		t.Fatalf("get(%d) = %q, want %q or a miss", offA, s, strA)
	}
	// The slot still works afterwards.
	if s, ok := c.get(offA); !ok || s != strA {
		t.Fatalf("after the race: get = %q, %v", s, ok)
	}
}

// TestStrCacheConcurrent hammers a few slots from several goroutines;
// every hit must be the string of its offset (run it with -race too).
func TestStrCacheConcurrent(t *testing.T) {
	c := newStrCache(10)
	offA, offB := collidingOffsets(t, c)
	want := map[uint64]string{offA: strings.Repeat("A", 40), offB: "B"}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20000 {
				off := offA
				if (i+w)%2 == 0 {
					off = offB
				}
				if s, ok := c.get(off); ok && s != want[off] {
					t.Errorf("get(%d) = %q", off, s)
					return
				}
				c.put(off, strings.Clone(want[off]))
			}
		}()
	}
	wg.Wait()
}

func TestStrSlotSize(t *testing.T) {
	if s := unsafe.Sizeof(strSlot{}); s != 24 {
		t.Errorf("sizeof(strSlot) = %d, want 24", s)
	}
}

// TestStrCacheBitsFor: the string cache shrinks with the page cache,
// within 1<<10 and 1<<16 slots.
func TestStrCacheBitsFor(t *testing.T) {
	for _, tc := range []struct {
		cache int64
		bits  uint8
	}{{0, 16}, {4 << 20, 16}, {64 << 20, 16}, {1 << 20, 14}, {256 << 10, 12}, {1, 10}} {
		if got := strCacheBitsFor(tc.cache); got != tc.bits {
			t.Errorf("strCacheBitsFor(%d) = %d, want %d", tc.cache, got, tc.bits)
		}
	}
	var c *strCache // dropped: caches nothing
	c.put(1, "x")
	if _, ok := c.get(1); ok {
		t.Error("nil cache hit")
	}
}
