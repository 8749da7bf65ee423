package dwarfread

import (
	"sync/atomic"
	"unsafe"
)

// strCacheBits sizes the .debug_str string cache: 1<<strCacheBits slots
// with the default page cache; smaller caches get fewer (strCacheBitsFor).
const strCacheBits = 16

// strCacheBitsFor sizes the string cache from the page cache's bytes: a
// 64th of them in slots, 1<<10 to 1<<16 (a 4 MiB page cache gets 1<<16;
// 1 MiB, as a 32 MiB --mem-limit gives, 1<<14: 384 KiB of slots).
func strCacheBitsFor(cacheBytes int64) uint8 {
	if cacheBytes <= 0 {
		return strCacheBits
	}
	bits := uint8(10)
	for bits < strCacheBits && int64(1)<<(bits+1)*64 <= cacheBytes {
		bits++
	}
	return bits
}

// strCache memoizes .debug_str strings as Go strings, by section offset.
//
// A kernel's units repeat the same names (member names, base types,
// typedefs) thousands of times, each a DW_FORM_strp to one .debug_str
// offset. Without the cache every Attr.String went through the page cache
// (a locked map lookup), scanned for the NUL and allocated a Go string. The
// cache is direct-mapped: slot = hash(offset). On a vmlinux 93% of lookups
// hit, so a hit must cost one cache line: a slot holds the key (offset and
// length) beside the string's data pointer, not a pointer to an entry.
//
// Concurrent readers (decode goroutines with Jobs > 1, or callers sharing
// CUs) are safe without locks. The key and the pointer are two words, so
// a reader could see the key of one write and the pointer of another; a
// sequence number (a seqlock) rules that out. A writer takes the slot by
// moving its sequence from even to odd (or gives up: the string is simply
// not cached), stores key and pointer, then moves the sequence to the next
// even value. A reader loads sequence, key, pointer, sequence, and accepts
// only if both sequences are equal and even, and the key names its offset:
// then no write overlapped its loads. (Comparing the key twice is not
// enough: two writes between the reader's loads can restore the key while
// the pointer it loaded belongs to the other string, an ABA; see
// TestStrCacheABA.) The data pointer keeps the string's memory alive while
// cached.
//
// Memory: 1<<bits slots of 24 bytes (1.5 MiB at the default 1<<16) plus
// the cached strings' bytes. A nil *strCache caches nothing.
type strCache struct {
	slots []strSlot
	shift uint8 // 64 - bits
	// hook, in tests only, runs between a reader's loads (step 1: after
	// the key, step 2: after the pointer), so a test can interleave writes
	// deterministically.
	hook func(step int)
}

// strSlot is one cache entry. Size: 24 bytes on 32- and 64-bit hosts.
type strSlot struct {
	seq atomic.Uint32 // even: stable; odd: being written
	key atomic.Uint64 // (offset+1)<<32 | length; 0 empty
	p   atomic.Pointer[byte]
}

func newStrCache(bits uint8) *strCache {
	return &strCache{slots: make([]strSlot, 1<<bits), shift: 64 - bits}
}

func (c *strCache) slot(off uint64) uint32 {
	return uint32((off * 0x9E3779B97F4A7C15) >> c.shift)
}

// get returns the cached string at off, if any.
func (c *strCache) get(off uint64) (string, bool) {
	if c == nil {
		return "", false
	}
	slot := &c.slots[c.slot(off)]
	s1 := slot.seq.Load()
	if s1&1 != 0 {
		return "", false
	}
	k := slot.key.Load()
	if k>>32 != off+1 {
		return "", false
	}
	if c.hook != nil {
		c.hook(1)
	}
	p := slot.p.Load()
	if c.hook != nil {
		c.hook(2)
	}
	if slot.seq.Load() != s1 {
		return "", false
	}
	return unsafe.String(p, int(uint32(k))), true
}

// put caches s as the string at off, unless another goroutine is writing
// the slot. Offsets and lengths that do not fit 32 bits (never in
// practice) and empty strings are not cached.
func (c *strCache) put(off uint64, s string) {
	if c == nil || off >= 1<<32-1 || len(s) == 0 || uint64(len(s)) >= 1<<32 {
		return
	}
	slot := &c.slots[c.slot(off)]
	seq := slot.seq.Load()
	if seq&1 != 0 || !slot.seq.CompareAndSwap(seq, seq+1) {
		return
	}
	slot.key.Store((off+1)<<32 | uint64(len(s)))
	slot.p.Store(unsafe.StringData(s))
	slot.seq.Store(seq + 2)
}

// debugString returns the .debug_str string at off, through f's cache.
func (f *File) debugString(off uint64) (string, error) {
	if s, ok := f.strs.get(off); ok {
		return s, nil
	}
	b, err := f.stringBytes(secStr, off)
	if err != nil {
		return "", err
	}
	s := string(b)
	f.strs.put(off, s)
	return s, nil
}
