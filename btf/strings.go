package btf

import (
	"bytes"
	"errors"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// Strings is a BTF string section: NUL-terminated strings in one byte
// buffer, addressed by offset. It interns: Add returns the offset of an
// existing equal string instead of appending a copy. The lookup set is an
// open-addressing table of 32-bit slots, at most half full (three
// quarters for a table read from BTF, see dense), no pointers:
// each holds the offset of a string in the same buffer (offBits bits, as
// many as the buffer needs) and, above it, the top bits of the string's
// hash as a tag, so a probe compares bytes only on a tag match. Growing
// hashes the strings again (the slots do not hold the bits of the hash
// that place them). A split table shares its base's hash seed, so Add
// hashes a string once for both.
//
// A Strings read from existing BTF keeps its bytes exactly (duplicates
// included) so that writing it back is byte-identical; Add finds the first
// occurrence of a string.
//
// For split BTF, a Strings has a base: offsets below base.Len() belong to
// the base and new strings are appended after it.
type Strings struct {
	base  *Strings
	data  []byte   // local bytes; offset o maps to data[o-baseLen]
	slots []uint32 // 0 = empty, else tag<<offBits | local offset+1 of the string's start
	used  int      // occupied slots
	// offBits is how many low bits of a slot hold the offset; the tag
	// is the top 32-offBits bits of the hash.
	offBits uint8
	seed    maphash.Seed
	// indexed is how many bytes of data are in the lookup set.
	indexed int
	// dups: indexing met a string equal to one before it, or an empty
	// string other than a table's first (Unique).
	dups bool
	// memo remembers recent Add(string) results by the string's identity
	// (see Add); allocated on first use, unless noMemo.
	memo   []memoEntry
	noMemo bool
	// dense: a table read from existing BTF (StringsFromBytes), looked up
	// far more than added to, whose lookup set is sized for its strings at
	// a load of up to 3/4 instead of 1/2 in any number of slots (not only
	// powers of two): a vmlinux base's 119k strings take 636 KiB of slots
	// instead of 1 MiB. Probes stay within a cache line or two.
	dense bool
	// outside: the bytes and the lookup set are outside the Go heap
	// (LoadAtForProcess).
	outside bool
}

// memoBits sizes Add's memo: 1<<memoBits entries (768 KiB on 64-bit hosts).
const memoBits = 15

// memoEntry is one Add result: the very string passed (its data pointer
// and length, kept alive by the entry) and its offset.
type memoEntry struct {
	s   string
	off StrOff
}

// ErrBadString is returned for a string offset outside the section or a
// string that is not NUL-terminated.
var ErrBadString = errors.New("invalid string offset")

// NewStrings returns an empty string table, holding only the empty string
// at offset 0 (or, with a base, continuing after the base's strings).
func NewStrings(base *Strings) *Strings {
	s := &Strings{base: base, seed: seedOf(base)}
	if base == nil {
		s.data = []byte{0}
	}
	return s
}

// StringsFromBytes wraps an existing string section. data is kept, not
// copied. The caller has checked that a base section starts with NUL.
//
// Such a table has no Add memo (NoMemo), nor do tables split over it:
// read BTF is looked up more than added to, and what a module's encoder
// adds over its base are strings made for the call (Name's copies), not
// the same Go string again. The base's memo took 768 KiB of a small
// module's heap, with a pointer a slot for the collector to scan at each
// cycle; with it off, tcp_bbr's encode runs as many instructions.
func StringsFromBytes(data []byte, base *Strings) *Strings {
	return &Strings{base: base, data: data, seed: seedOf(base), noMemo: true, dense: true}
}

// Own copies the table's local bytes into a buffer of their own: a table
// from StringsFromBytes (Parse) otherwise keeps the whole buffer they are
// part of alive, types and all. Offsets and the lookup set are unchanged.
func (s *Strings) Own() { s.data = bytes.Clone(s.data) }

// seedOf returns base's seed (a new one without base), so a split table
// hashes like its base.
func seedOf(base *Strings) maphash.Seed {
	if base == nil {
		return maphash.MakeSeed()
	}
	return base.seed
}

// NoMemo turns off Add's identity memo (768 KiB, allocated on first use)
// for a short-lived table whose callers cache their lookups themselves,
// such as a unit's batch strings in the encoder. It returns s.
func (s *Strings) NoMemo() *Strings {
	s.noMemo, s.memo = true, nil
	return s
}

// Reset empties a table without base back to the empty string alone,
// keeping its memory for reuse. Offsets handed out before are invalid.
func (s *Strings) Reset() {
	s.data = append(s.data[:0], 0)
	clear(s.slots)
	s.used, s.indexed, s.dups = 0, 0, false
	clear(s.memo)
}

// GrowIndex sizes the lookup set for n more strings at once (it grows by
// doubling as strings are added otherwise, each step holding the old
// slots and the new).
func (s *Strings) GrowIndex(n int) {
	s.index()
	size := max(len(s.slots), 64)
	for !s.roomFor(s.used+n, size) {
		size *= 2
	}
	if size > len(s.slots) {
		s.growTo(size)
	}
}

// DropIndex frees the lookup set and Add's memo, for a table that is
// only read from now on (or rarely added to): the next Add or AddBytes
// indexes the strings again, finding the first of equal ones as before.
// On a vmlinux's 2 MB of strings the set takes another 1 MiB.
func (s *Strings) DropIndex() {
	s.slots, s.used, s.indexed, s.dups = nil, 0, 0, false
	s.memo = nil
}

// Unique reports whether no two strings of the table's local bytes are
// equal: every offset just after a NUL (and the first) holds a string of
// its own, the empty string only at offset 0 of a table without base. The
// keys of a lookup by name can then be offsets (of string starts) instead
// of contents. It indexes the strings first, which Add and Find do too.
func (s *Strings) Unique() bool {
	s.index()
	return !s.dups
}

// View returns a read-only view of the strings so far, sharing their
// bytes: it can be read (Bytes, Len, LookupBytes) on another goroutine
// while s appends, since appending writes only past the view's end. It
// must not be added to.
func (s *Strings) View() *Strings {
	return &Strings{base: s.base, data: s.data[:len(s.data):len(s.data)], seed: s.seed, noMemo: true}
}

// Base returns the base table of a split table, or nil.
func (s *Strings) Base() *Strings { return s.base }

func (s *Strings) baseLen() uint32 {
	if s.base == nil {
		return 0
	}
	return s.base.Len()
}

// Len returns the total size in bytes, base included.
func (s *Strings) Len() uint32 { return s.baseLen() + uint32(len(s.data)) }

// Bytes returns the local section bytes (without the base's).
func (s *Strings) Bytes() []byte { return s.data }

// LookupBytes returns the string at off without its NUL, as a slice of the
// table (no copy).
func (s *Strings) LookupBytes(off StrOff) ([]byte, error) {
	bl := s.baseLen()
	if uint32(off) < bl {
		return s.base.LookupBytes(off)
	}
	o := uint32(off) - bl
	if o >= uint32(len(s.data)) {
		return nil, ErrBadString
	}
	end := bytes.IndexByte(s.data[o:], 0)
	if end < 0 {
		return nil, ErrBadString
	}
	return s.data[o : int(o)+end], nil
}

// Lookup returns the string at off.
func (s *Strings) Lookup(off StrOff) (string, error) {
	b, err := s.LookupBytes(off)
	return string(b), err
}

// Name returns the string at off, or "" if off is invalid.
func (s *Strings) Name(off StrOff) string {
	b, _ := s.LookupBytes(off)
	return string(b)
}

// Find returns the offset of str if the table (or its base) holds it.
func (s *Strings) Find(str []byte) (StrOff, bool) {
	if len(str) == 0 {
		return 0, true
	}
	return s.find(str, maphash.Bytes(s.seed, str))
}

// find is Find with str's hash under s.seed.
func (s *Strings) find(str []byte, h uint64) (StrOff, bool) {
	if s.base != nil {
		if off, ok := s.base.find(str, s.baseHash(str, h)); ok {
			return off, true
		}
	}
	s.index()
	if i, ok := s.slot(str, h); ok {
		return StrOff(s.baseLen() + s.slotOff(s.slots[i])), true
	}
	return 0, false
}

// baseHash returns str's hash under the base's seed, given h under s's.
func (s *Strings) baseHash(str []byte, h uint64) uint64 {
	if s.base.seed != s.seed {
		return maphash.Bytes(s.base.seed, str)
	}
	return h
}

// Add interns str and returns its offset. str must not contain NUL.
//
// Add first looks str up in a direct-mapped memo keyed by the string's
// identity: its data pointer and length. The entry holds the string, so
// its memory cannot be reused while the entry exists, and Go strings are
// immutable: the same pointer and length are the same bytes. A reader that
// hands out one Go string per distinct name (stream's .debug_str cache)
// thus skips hashing and probing for names it has seen. A split table
// keeps the memo in its base, and only for offsets in the base, so the
// memo outlives the per-unit tables that share one base.
func (s *Strings) Add(str string) StrOff {
	if len(str) == 0 {
		return 0
	}
	owner := s
	if s.base != nil {
		owner = s.base
	}
	p := unsafe.StringData(str)
	i := (uint64(uintptr(unsafe.Pointer(p)))*0x9E3779B97F4A7C15 + uint64(len(str))) >> (64 - memoBits)
	if owner.memo != nil {
		if e := &owner.memo[i]; unsafe.StringData(e.s) == p && len(e.s) == len(str) {
			return e.off
		}
	}
	// AddBytes neither modifies nor keeps its argument.
	off := s.AddBytes(unsafe.Slice(p, len(str)))
	if !owner.noMemo && (owner == s || uint32(off) < owner.Len()) {
		if owner.memo == nil {
			owner.memo = make([]memoEntry, 1<<memoBits)
		}
		owner.memo[i] = memoEntry{str, off}
	}
	return off
}

// Append appends str and returns its offset without looking for an equal
// string: for scratch tables whose offsets are only read back (a unit's
// batch strings in the encoder), where interning costs more than the
// duplicates it saves. A later Add or AddBytes indexes the appended
// strings first, finding the first of equal ones. str must not contain
// NUL.
func (s *Strings) Append(str string) StrOff {
	if len(str) == 0 {
		return 0
	}
	off := s.baseLen() + uint32(len(s.data))
	s.data = append(s.data, str...)
	s.data = append(s.data, 0)
	return StrOff(off)
}

// AddBytes is Add for a byte slice; it does not keep str.
func (s *Strings) AddBytes(str []byte) StrOff {
	if len(str) == 0 {
		return 0
	}
	h := maphash.Bytes(s.seed, str)
	if s.base != nil {
		if off, ok := s.base.find(str, s.baseHash(str, h)); ok {
			return off
		}
	}
	s.index()
	i, ok := s.slot(str, h)
	if ok {
		return StrOff(s.baseLen() + s.slotOff(s.slots[i]))
	}
	off := uint32(len(s.data))
	s.data = append(s.data, str...)
	s.data = append(s.data, 0)
	s.indexed = len(s.data)
	if !s.fits(off) {
		s.rebuild(len(s.slots)) // wider offsets; str's slot moves
		i, _ = s.slot(str, h)
	}
	s.insertAt(i, h, off)
	return StrOff(s.baseLen() + off)
}

// index brings every string of data into the lookup set (strings that came
// from StringsFromBytes are indexed on first use).
func (s *Strings) index() {
	if rest := s.data[min(s.indexed, len(s.data)):]; len(rest) >= 4096 {
		// Sized once for the strings to come (at most one per NUL; a
		// base vmlinux's 2 MB hold 100k), not doubled step by step.
		n := bytes.Count(rest, []byte{0})
		size := max(len(s.slots), 64)
		if s.dense && s.used == 0 {
			size = denseSlots(n)
		}
		for !s.roomFor(s.used+n, size) {
			size *= 2
		}
		if size > len(s.slots) || !s.fits(uint32(len(s.data))) {
			s.rebuild(max(size, len(s.slots)))
		}
	}
	for s.indexed < len(s.data) {
		o := s.indexed
		end := bytes.IndexByte(s.data[o:], 0)
		if end < 0 {
			s.indexed = len(s.data)
			return
		}
		if end > 0 {
			str := s.data[o : o+end]
			h := maphash.Bytes(s.seed, str)
			if !s.fits(uint32(o)) {
				s.rebuild(len(s.slots))
			}
			if i, ok := s.slot(str, h); !ok {
				s.insertAt(i, h, uint32(o))
			} else {
				s.dups = true
			}
		} else if o > 0 || s.base != nil {
			s.dups = true
		}
		s.indexed = o + end + 1
	}
}

// slot finds str's slot (found) or the empty slot where it would go; h is
// str's hash.
func (s *Strings) slot(str []byte, h uint64) (int, bool) {
	if len(s.slots) == 0 {
		s.grow()
	}
	tag := s.tag(h)
	i := slotOf(h, len(s.slots))
	for {
		v := s.slots[i]
		if v == 0 {
			return i, false
		}
		if v>>s.offBits == tag {
			o := int(s.slotOff(v))
			if len(s.data)-o > len(str) && s.data[o+len(str)] == 0 && bytes.Equal(s.data[o:o+len(str)], str) {
				return i, true
			}
		}
		if i++; i == len(s.slots) {
			i = 0
		}
	}
}

// tag is what a slot keeps of hash h: its top 32-offBits bits.
func (s *Strings) tag(h uint64) uint32 { return uint32(h >> (32 + s.offBits)) }

// slotOff is the local offset of the string in occupied slot v.
func (s *Strings) slotOff(v uint32) uint32 { return v&(1<<s.offBits-1) - 1 }

// fits reports whether a slot can hold local offset off.
func (s *Strings) fits(off uint32) bool { return uint64(off)+1 < 1<<s.offBits }

func (s *Strings) insertAt(i int, h uint64, off uint32) {
	s.slots[i] = s.tag(h)<<s.offBits | (off + 1)
	s.used++
	if !s.roomFor(s.used, len(s.slots)) {
		s.grow()
	}
}

func (s *Strings) grow() { s.growTo(max(len(s.slots)*2, 64)) }

// roomFor reports whether a lookup set of size slots may hold used strings:
// fewer than half of the slots, or 3/4 for a dense table.
func (s *Strings) roomFor(used, size int) bool {
	if s.dense {
		return 4*used < 3*size
	}
	return 2*used < size
}

// denseSlots is the size of a dense table's lookup set for n strings: a
// load just under 3/4, in whole cache lines.
func denseSlots(n int) int { return max((4*n/3+16)&^15, 64) }

// slotOf is the first slot of hash h in a set of n slots: the low 32 bits
// of h scaled to n (the tag is the top bits).
func slotOf(h uint64, n int) int { return int(uint64(uint32(h)) * uint64(n) >> 32) }

// growTo rebuilds the lookup set in n slots.
func (s *Strings) growTo(n int) { s.rebuild(n) }

// rebuild makes the lookup set n slots with offsets wide
// enough for the whole buffer and some growth, hashing the strings it
// held again.
func (s *Strings) rebuild(n int) {
	old, oldBits := s.slots, s.offBits
	s.offBits = uint8(min(bits.Len(uint(len(s.data)+1))+1, 32))
	if len(s.data) < 1<<16 {
		s.offBits = max(s.offBits, 17)
	}
	if s.outside {
		s.slots = outsideSlice[uint32](n)
	} else {
		s.slots = make([]uint32, n)
	}
	for _, v := range old {
		if v == 0 {
			continue
		}
		o := v&(1<<oldBits-1) - 1
		str := s.data[o:]
		str = str[:bytes.IndexByte(str, 0)]
		h := maphash.Bytes(s.seed, str)
		i := slotOf(h, n)
		for s.slots[i] != 0 {
			if i++; i == n {
				i = 0
			}
		}
		s.slots[i] = s.tag(h)<<s.offBits | (o + 1)
	}
}
