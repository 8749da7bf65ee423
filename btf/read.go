package btf

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Parse decodes raw BTF (header, types, strings) in either byte order. With
// a base, data is split BTF: its ids and string offsets continue after the
// base's. The returned Spec keeps data's string section without copying it,
// so data must not change afterwards.
func Parse(data []byte, base *Spec) (*Spec, error) {
	h, bo, err := parseHeader(data)
	if err != nil {
		return nil, err
	}
	body := data[h.HdrLen:]
	strs := body[h.StrOff : h.StrOff+h.StrLen]
	types := body[h.TypeOff : h.TypeOff+h.TypeLen]

	var s *Spec
	if base == nil {
		s = NewSpec()
		if len(strs) == 0 || strs[0] != 0 {
			return nil, &FormatError{Off: int64(h.HdrLen + h.StrOff), Msg: "string section does not start with an empty string"}
		}
	} else {
		s = NewSplitSpec(base)
	}
	if len(strs) > 0 && strs[len(strs)-1] != 0 {
		return nil, &FormatError{Off: int64(h.HdrLen+h.StrOff) + int64(len(strs)) - 1, Msg: "string section not NUL-terminated"}
	}
	s.strings = StringsFromBytes(strs, s.strings.base)
	s.ByteOrder = bo
	s.Header = h

	if err := parseTypes(s, types, h, bo == binary.LittleEndian); err != nil {
		return nil, err
	}
	return s, nil
}

// word reads the 32-bit word at b[0:4], little endian if le (big endian
// otherwise); it inlines, where a binary.ByteOrder's method does not.
func word(b []byte, le bool) uint32 {
	if le {
		return binary.LittleEndian.Uint32(b)
	}
	return binary.BigEndian.Uint32(b)
}

// parseTypes appends the type records of the type section to s, in
// little-endian byte order if le. Words are read inline (word), not
// through the binary.ByteOrder interface: a vmlinux has 0.75M of them.
func parseTypes(s *Spec, types []byte, h Header, le bool) error {
	// Sized exactly by a first pass that reads only the headers (a base
	// vmlinux is 108k types: bounding by 12 bytes a type would reserve
	// twice what it takes, for as long as the Spec lives).
	n, words := countTypes(types, le)
	s.Grow(n, words)
	base0 := int64(h.HdrLen + h.TypeOff)
	for off := 0; off < len(types); {
		if len(types)-off < 12 {
			return &FormatError{Off: base0 + int64(off), Msg: fmt.Sprintf("type [%d]: %d bytes left for a 12-byte header", s.NextID(), len(types)-off), Err: ErrTruncated}
		}
		t := Type{
			NameOff:    StrOff(word(types[off:], le)),
			Info:       word(types[off+4:], le),
			SizeOrType: word(types[off+8:], le),
		}
		n := t.Kind().ExtraWords(t.Vlen())
		if n < 0 {
			return &FormatError{Off: base0 + int64(off), Msg: fmt.Sprintf("type [%d]: unknown kind %d", s.NextID(), t.Kind())}
		}
		off += 12
		if n > (len(types)-off)/4 {
			return &FormatError{Off: base0 + int64(off), Msg: fmt.Sprintf("type [%d] %s: vlen %d needs %d bytes, %d left", s.NextID(), t.Kind(), t.Vlen(), 4*n, len(types)-off), Err: ErrTruncated}
		}
		s.types = append(s.types, t)
		at := len(s.extra)
		s.extra = slices.Grow(s.extra, n)[:at+n] // no-op: countTypes sized it
		dst := s.extra[at : at+n]
		src := types[off : off+4*n]
		for i := range dst {
			dst[i] = word(src[4*i:], le)
		}
		off += 4 * n
		s.extraAt = append(s.extraAt, uint32(len(s.extra)))
	}
	return nil
}

// countTypes returns how many types and extra words types holds, up to the
// first one that does not fit or has an unknown kind (Parse reports it).
func countTypes(types []byte, le bool) (n, words int) {
	for off := 0; len(types)-off >= 12; n++ {
		info := word(types[off+4:], le)
		t := Type{Info: info}
		k := t.Kind().ExtraWords(t.Vlen())
		if k < 0 || k > (len(types)-off-12)/4 {
			break
		}
		off += 12 + 4*k
		words += k
	}
	return n, words
}
