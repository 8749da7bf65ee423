package spill

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

// TestCacheSlotSize keeps the ring's entries at their documented size.
func TestCacheSlotSize(t *testing.T) {
	want := uintptr(40)
	if unsafe.Sizeof(uintptr(0)) == 4 {
		want = 24
	}
	if got := unsafe.Sizeof(cacheSlot{}); got != want {
		t.Errorf("cacheSlot is %d bytes, want %d", got, want)
	}
}

// TestCache runs sequences of sets and gets against a small cache and
// checks which keys it still holds, its byte count and the bound.
func TestCache(t *testing.T) {
	val := func(n int) []byte { return bytes.Repeat([]byte{byte(n)}, n) }
	type op struct {
		get bool
		key uint64
		n   int // value length for a set
	}
	set := func(k uint64, n int) op { return op{key: k, n: n} }
	get := func(k uint64) op { return op{get: true, key: k} }
	for _, c := range []struct {
		name  string
		max   int64
		ops   []op
		held  []uint64
		gone  []uint64
		bytes int64
	}{
		{"fits", 100, []op{set(1, 10), set(2, 20), set(3, 30)}, []uint64{1, 2, 3}, nil, 60},
		{"oldest unreferenced goes", 30, []op{set(1, 10), set(2, 10), set(3, 10), set(4, 10)},
			[]uint64{2, 3, 4}, []uint64{1}, 30},
		{"referenced gets a second chance", 30, []op{set(1, 10), set(2, 10), set(3, 10), get(1), set(4, 10)},
			[]uint64{1, 3, 4}, []uint64{2}, 30},
		{"a large value evicts several", 30, []op{set(1, 10), set(2, 10), set(3, 10), set(4, 25)},
			[]uint64{4}, []uint64{1, 2, 3}, 25},
		{"larger than the cache is not kept", 30, []op{set(1, 10), set(2, 31)},
			[]uint64{1}, []uint64{2}, 10},
		{"a key set twice keeps its first value", 30, []op{set(1, 10), set(1, 20)},
			[]uint64{1}, nil, 10},
		{"freed slots are reused", 20, []op{set(1, 10), set(2, 10), set(3, 10), set(4, 10), set(5, 10)},
			[]uint64{4, 5}, []uint64{1, 2, 3}, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			cc := NewCache(c.max)
			for _, o := range c.ops {
				if o.get {
					cc.Get(o.key)
				} else {
					cc.Set(o.key, val(o.n))
				}
				if _, b := cc.Len(); b > c.max {
					t.Fatalf("cache holds %d bytes, over its %d", b, c.max)
				}
			}
			for _, k := range c.held {
				v, ok := cc.Get(k)
				if !ok || len(v) == 0 || v[0] != byte(len(v)) {
					t.Errorf("key %d: %v, %d bytes; want held", k, ok, len(v))
				}
			}
			for _, k := range c.gone {
				if _, ok := cc.Get(k); ok {
					t.Errorf("key %d still held", k)
				}
			}
			if n, b := cc.Len(); n != len(c.held) || b != c.bytes {
				t.Errorf("Len = %d entries, %d bytes; want %d, %d", n, b, len(c.held), c.bytes)
			}
			if len(cc.slots) > len(c.held)+len(c.gone) {
				t.Errorf("%d slots for %d keys", len(cc.slots), len(c.held)+len(c.gone))
			}
			cc.Close()
			if _, ok := cc.Get(c.held[0]); ok {
				t.Error("Get after Close hit")
			}
			cc.Set(99, val(1))
			if n, _ := cc.Len(); n != 0 {
				t.Error("Set after Close kept a value")
			}
		})
	}
}

// TestCacheGetAllocates nothing on a hit or a miss.
func TestCacheGetAllocates(t *testing.T) {
	c := NewCache(1 << 16)
	for k := uint64(0); k < 8; k++ {
		c.Set(k, make([]byte, 100))
	}
	if n := testing.AllocsPerRun(100, func() {
		c.Get(3)
		c.Get(1 << 40)
	}); n != 0 {
		t.Errorf("Get allocates %v times", n)
	}
}

// TestCacheConcurrent has readers get and set overlapping keys while the
// cache evicts (run it with -race): every value got is the one set under
// its key, whole, and the cache stays within its bound.
func TestCacheConcurrent(t *testing.T) {
	const keys, size, max = 512, 64, 64 * 100
	c := NewCache(max)
	value := func(k uint64) []byte { return []byte(fmt.Sprintf("%0*d", size, k)) }
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	var hits [8]int
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4000 {
				k := uint64((i*7 + w*131) % keys)
				if i%3 == 0 {
					k %= 64 // a hot set that fits, so some gets hit
				}
				if v, ok := c.Get(k); ok {
					hits[w]++
					if !bytes.Equal(v, value(k)) {
						errs <- fmt.Errorf("key %d: got %q", k, v)
						return
					}
					continue
				}
				c.Set(k, value(k))
				if _, b := c.Len(); b > max {
					errs <- fmt.Errorf("cache holds %d bytes, over %d", b, max)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	total := 0
	for _, h := range hits {
		total += h
	}
	if total == 0 {
		t.Error("no get hit: the test checks nothing of concurrent reads")
	}
}
