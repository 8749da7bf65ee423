package stream

import "sync/atomic"

// strCacheBits sizes the .debug_str string cache: 1<<strCacheBits slots.
const strCacheBits = 16

// strCache memoizes .debug_str strings as Go strings, by section offset.
//
// A kernel's units repeat the same names (member names, base types,
// typedefs) thousands of times, each a DW_FORM_strp to one .debug_str
// offset. Without the cache every Attr.String went through the page cache
// (a ristretto lookup), scanned for the NUL and allocated a Go string. The
// cache is direct-mapped: slot = hash(offset), a hit costs one atomic load
// and a compare; a miss reads through the page cache as before and
// replaces the slot. Entries are immutable, so concurrent readers (the
// decode goroutines with Jobs > 1) never see a torn entry; a lost race only
// costs a later miss.
//
// Memory: 1<<16 slots of one pointer (512 KiB on 64-bit hosts, 256 KiB on
// 32-bit) plus one entry per cached string (its offset, header and bytes).
type strCache struct {
	slots [1 << strCacheBits]atomic.Pointer[strEntry]
}

type strEntry struct {
	off uint64
	s   string
}

func strCacheSlot(off uint64) uint32 {
	return uint32((off * 0x9E3779B97F4A7C15) >> (64 - strCacheBits))
}

// debugString returns the .debug_str string at off, through f's cache.
func (f *File) debugString(off uint64) (string, error) {
	slot := &f.strs.slots[strCacheSlot(off)]
	if e := slot.Load(); e != nil && e.off == off {
		return e.s, nil
	}
	b, err := f.stringBytes(secStr, off)
	if err != nil {
		return "", err
	}
	e := &strEntry{off: off, s: string(b)}
	slot.Store(e)
	return e.s, nil
}
