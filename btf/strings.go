package btf

import (
	"bytes"
	"errors"
	"hash/maphash"
)

// Strings is a BTF string section: NUL-terminated strings in one byte
// buffer, addressed by offset. It interns: Add returns the offset of an
// existing equal string instead of appending a copy. The lookup set is an
// open-addressing table of offsets into the same buffer, so it holds no
// pointers and costs 4 bytes per slot.
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
	slots []uint32 // 0 = empty, else local offset+1 of the string's start
	used  int      // occupied slots
	seed  maphash.Seed
	// indexed is how many bytes of data are in the lookup set.
	indexed int
}

// ErrBadString is returned for a string offset outside the section or a
// string that is not NUL-terminated.
var ErrBadString = errors.New("invalid string offset")

// NewStrings returns an empty string table, holding only the empty string
// at offset 0 (or, with a base, continuing after the base's strings).
func NewStrings(base *Strings) *Strings {
	s := &Strings{base: base, seed: maphash.MakeSeed()}
	if base == nil {
		s.data = []byte{0}
	}
	return s
}

// StringsFromBytes wraps an existing string section. data is kept, not
// copied. The caller has checked that a base section starts with NUL.
func StringsFromBytes(data []byte, base *Strings) *Strings {
	return &Strings{base: base, data: data, seed: maphash.MakeSeed()}
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
	if s.base != nil {
		if off, ok := s.base.Find(str); ok {
			return off, true
		}
	}
	s.index()
	if i, ok := s.slot(str); ok {
		return StrOff(s.baseLen() + s.slots[i] - 1), true
	}
	return 0, false
}

// Add interns str and returns its offset. str must not contain NUL.
func (s *Strings) Add(str string) StrOff {
	return s.AddBytes([]byte(str))
}

// AddBytes is Add for a byte slice; it does not keep str.
func (s *Strings) AddBytes(str []byte) StrOff {
	if len(str) == 0 {
		return 0
	}
	if s.base != nil {
		if off, ok := s.base.Find(str); ok {
			return off
		}
	}
	s.index()
	i, ok := s.slot(str)
	if ok {
		return StrOff(s.baseLen() + s.slots[i] - 1)
	}
	off := uint32(len(s.data))
	s.data = append(s.data, str...)
	s.data = append(s.data, 0)
	s.indexed = len(s.data)
	s.insertAt(i, off)
	return StrOff(s.baseLen() + off)
}

// index brings every string of data into the lookup set (strings that came
// from StringsFromBytes are indexed on first use).
func (s *Strings) index() {
	for s.indexed < len(s.data) {
		o := s.indexed
		end := bytes.IndexByte(s.data[o:], 0)
		if end < 0 {
			s.indexed = len(s.data)
			return
		}
		if end > 0 {
			if i, ok := s.slot(s.data[o : o+end]); !ok {
				s.insertAt(i, uint32(o))
			}
		}
		s.indexed = o + end + 1
	}
}

// slot finds str's slot (found) or the empty slot where it would go.
func (s *Strings) slot(str []byte) (int, bool) {
	if len(s.slots) == 0 {
		s.grow()
	}
	mask := len(s.slots) - 1
	i := int(maphash.Bytes(s.seed, str)) & mask
	for {
		v := s.slots[i]
		if v == 0 {
			return i, false
		}
		o := int(v - 1)
		if len(s.data)-o > len(str) && s.data[o+len(str)] == 0 && bytes.Equal(s.data[o:o+len(str)], str) {
			return i, true
		}
		i = (i + 1) & mask
	}
}

func (s *Strings) insertAt(i int, off uint32) {
	s.slots[i] = off + 1
	s.used++
	if s.used*4 >= len(s.slots)*3 {
		s.grow()
	}
}

func (s *Strings) grow() {
	n := len(s.slots) * 2
	if n < 64 {
		n = 64
	}
	old := s.slots
	s.slots = make([]uint32, n)
	mask := n - 1
	for _, v := range old {
		if v == 0 {
			continue
		}
		o := int(v - 1)
		end := bytes.IndexByte(s.data[o:], 0)
		i := int(maphash.Bytes(s.seed, s.data[o:o+end])) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = v
	}
}
