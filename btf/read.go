package btf

import (
	"encoding/binary"
	"fmt"
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

	// Sized exactly by a first pass that reads only the headers (a base
	// vmlinux is 108k types: bounding by 12 bytes a type would reserve
	// twice what it takes, for as long as the Spec lives).
	s.Grow(countTypes(types, bo))
	base0 := int64(h.HdrLen + h.TypeOff)
	for off := 0; off < len(types); {
		if len(types)-off < 12 {
			return nil, &FormatError{Off: base0 + int64(off), Msg: fmt.Sprintf("type [%d]: %d bytes left for a 12-byte header", s.NextID(), len(types)-off), Err: ErrTruncated}
		}
		t := Type{
			NameOff:    StrOff(bo.Uint32(types[off:])),
			Info:       bo.Uint32(types[off+4:]),
			SizeOrType: bo.Uint32(types[off+8:]),
		}
		n := t.Kind().ExtraWords(t.Vlen())
		if n < 0 {
			return nil, &FormatError{Off: base0 + int64(off), Msg: fmt.Sprintf("type [%d]: unknown kind %d", s.NextID(), t.Kind())}
		}
		off += 12
		if n > (len(types)-off)/4 {
			return nil, &FormatError{Off: base0 + int64(off), Msg: fmt.Sprintf("type [%d] %s: vlen %d needs %d bytes, %d left", s.NextID(), t.Kind(), t.Vlen(), 4*n, len(types)-off), Err: ErrTruncated}
		}
		s.types = append(s.types, t)
		for i := 0; i < n; i++ {
			s.extra = append(s.extra, bo.Uint32(types[off:]))
			off += 4
		}
		s.extraAt = append(s.extraAt, uint32(len(s.extra)))
	}
	return s, nil
}

// countTypes returns how many types and extra words types holds, up to the
// first one that does not fit or has an unknown kind (Parse reports it).
func countTypes(types []byte, bo binary.ByteOrder) (n, words int) {
	for off := 0; len(types)-off >= 12; n++ {
		info := bo.Uint32(types[off+4:])
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
