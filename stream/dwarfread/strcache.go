package dwarfread

import (
	"sync/atomic"
	"unsafe"
)

// strCacheBits sizes the .debug_str string cache: 1<<strCacheBits slots.
const strCacheBits = 16

// strCache memoizes .debug_str strings as Go strings, by section offset.
//
// A kernel's units repeat the same names (member names, base types,
// typedefs) thousands of times, each a DW_FORM_strp to one .debug_str
// offset. Without the cache every Attr.String went through the page cache
// (a ristretto lookup), scanned for the NUL and allocated a Go string. The
// cache is direct-mapped: slot = hash(offset). On a vmlinux 93% of lookups
// hit, so a hit must cost one cache line: a slot holds the key (offset and
// length) beside the string's data pointer, not a pointer to an entry.
//
// Concurrent readers (decode goroutines with Jobs > 1, or callers sharing
// CUs) are safe without locks: a writer takes the slot by swapping its key
// to strLocked (or gives up, the string is simply not cached), stores the
// pointer, then the key; a reader loads key, pointer, key and accepts only
// if both keys are equal and name its offset. Equal keys seen around a
// concurrent rewrite name the same offset and length, hence the same bytes.
// The data pointer keeps the string's memory alive while cached.
//
// Memory: 1<<16 slots of 16 bytes (1 MiB on 64-bit hosts, 768 KiB on
// 32-bit) plus the cached strings' bytes.
type strCache struct {
	slots [1 << strCacheBits]strSlot
}

type strSlot struct {
	key atomic.Uint64 // (offset+1)<<32 | length; 0 empty, strLocked while written
	p   atomic.Pointer[byte]
}

const strLocked = ^uint64(0)

func strCacheSlot(off uint64) uint32 {
	return uint32((off * 0x9E3779B97F4A7C15) >> (64 - strCacheBits))
}

// debugString returns the .debug_str string at off, through f's cache.
func (f *File) debugString(off uint64) (string, error) {
	slot := &f.strs.slots[strCacheSlot(off)]
	if k := slot.key.Load(); k>>32 == off+1 && k != strLocked {
		p := slot.p.Load()
		if slot.key.Load() == k {
			return unsafe.String(p, int(uint32(k))), nil
		}
	}
	b, err := f.stringBytes(secStr, off)
	if err != nil {
		return "", err
	}
	s := string(b)
	// Offsets and lengths that do not fit 32 bits (never in practice) and
	// empty strings are not cached; strLocked's offset is excluded.
	if off >= 1<<32-2 || len(s) == 0 || uint64(len(s)) >= 1<<32 {
		return s, nil
	}
	if k := slot.key.Load(); k != strLocked && slot.key.CompareAndSwap(k, strLocked) {
		slot.p.Store(unsafe.StringData(s))
		slot.key.Store((off+1)<<32 | uint64(len(s)))
	}
	return s, nil
}
