package spill

import (
	"sync"
	"sync/atomic"
)

// Cache is a bounded cache of byte slices keyed by uint64, whose cost is
// their length: the page cache of a large ELF file (stream/elffile) and
// the spilled-chunk cache of a Store. It holds at most maxBytes of values.
//
// Eviction is CLOCK (second chance): entries sit in a ring of slots, a Get
// marks its entry referenced, and a Set that needs room sweeps a hand
// round the ring, clearing the mark of referenced entries and evicting
// the first unreferenced one, until the new value fits. A new entry starts
// unreferenced, so a page read once in a burst and never again is the
// first to go.
//
// Get takes a read lock and allocates nothing, so concurrent readers (the
// decode workers at -j N) do not serialize on it; Set and Close take the
// write lock. What the collector scans is one slice of slots (one pointer
// each); the index is a map of integers.
//
// An evicted value is dropped, never reused: a reader may still hold it
// (a CString slice of a page), and the collector frees it once nobody
// does. Values must not be modified after Set.
type Cache struct {
	mu       sync.RWMutex
	index    map[uint64]int32 // key -> slot
	slots    []cacheSlot
	free     []int32 // empty slots
	hand     int
	used     int64
	maxBytes int64
	closed   bool
}

// cacheSlot is one entry of the ring. Size: 40 bytes on 64-bit hosts, 24
// on 32-bit ones.
type cacheSlot struct {
	val []byte // nil: the slot is empty
	key uint64
	ref atomic.Uint32 // set by Get under the read lock
}

// NewCache returns an empty cache holding up to maxBytes of values.
func NewCache(maxBytes int64) *Cache {
	return &Cache{index: map[uint64]int32{}, maxBytes: maxBytes}
}

// Get returns the value kept under key.
func (c *Cache) Get(key uint64) ([]byte, bool) {
	c.mu.RLock()
	i, ok := c.index[key]
	if !ok {
		c.mu.RUnlock()
		return nil, false
	}
	s := &c.slots[i]
	if s.ref.Load() == 0 {
		s.ref.Store(1)
	}
	v := s.val
	c.mu.RUnlock()
	return v, true
}

// Set keeps val under key, evicting entries until it fits. A value larger
// than the whole cache is not kept, nor is one set after Close; a key
// already present keeps its value (two readers that missed the same page
// read the same bytes).
func (c *Cache) Set(key uint64, val []byte) {
	cost := int64(len(val))
	if cost > c.maxBytes || val == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if _, ok := c.index[key]; ok {
		return
	}
	for c.used+cost > c.maxBytes {
		c.evictOne()
	}
	var i int32
	if n := len(c.free); n > 0 {
		i = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		c.slots = append(c.slots, cacheSlot{})
		i = int32(len(c.slots) - 1)
	}
	s := &c.slots[i]
	s.val, s.key = val, key
	s.ref.Store(0)
	c.index[key] = i
	c.used += cost
}

// evictOne moves the hand until it has evicted one entry. The caller
// holds the write lock and c.used > 0, so some slot is full and a sweep
// ends within two turns of the ring.
func (c *Cache) evictOne() {
	for {
		if c.hand >= len(c.slots) {
			c.hand = 0
		}
		s := &c.slots[c.hand]
		c.hand++
		switch {
		case s.val == nil:
		case s.ref.Load() != 0:
			s.ref.Store(0)
		default:
			delete(c.index, s.key)
			c.used -= int64(len(s.val))
			s.val = nil
			c.free = append(c.free, int32(c.hand-1))
			return
		}
	}
}

// Len returns the number of entries and the bytes they hold.
func (c *Cache) Len() (entries int, bytes int64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.index), c.used
}

// Close drops every entry; later Gets miss and Sets keep nothing, so
// readers that still hold the cache keep working without it.
func (c *Cache) Close() {
	c.mu.Lock()
	c.index, c.slots, c.free, c.used, c.closed = nil, nil, nil, 0, true
	c.mu.Unlock()
}
