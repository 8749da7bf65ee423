package btf

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// Parse decodes raw BTF (header, types, strings) in either byte order. With
// a base, data is split BTF: its ids and string offsets continue after the
// base's. The returned Spec keeps data's string section without copying it,
// so data must not change afterwards.
func Parse(data []byte, base *Spec) (*Spec, error) {
	return parse(source{data: data}, base)
}

// LoadAt is Parse of the size bytes at the start of r, read without a copy
// of them: the string section straight into the buffer the Spec keeps,
// the type section through a small buffer, parsed as it is read. Its
// results and errors are Parse's; a read that fails is an ErrTruncated
// FormatError at the offset it was reading.
func LoadAt(r io.ReaderAt, size int64, base *Spec) (*Spec, error) {
	return parse(source{r: r, size: size}, base)
}

// LoadAtForProcess is LoadAt of a base (no base of its own) whose types,
// strings and string index are kept outside the Go heap until the process
// exits (outside.go): for a base read once and used until the end, such
// as a module encode's --btf_base. The Spec and every slice of it stay
// valid for the life of the process; nothing frees them.
func LoadAtForProcess(r io.ReaderAt, size int64) (*Spec, error) {
	return parse(source{r: r, size: size, outside: true}, nil)
}

func parse(src source, base *Spec) (*Spec, error) {
	h, bo, err := parseHeader(src)
	if err != nil {
		return nil, err
	}
	strs, err := src.bytes(uint64(h.HdrLen)+uint64(h.StrOff), uint64(h.StrLen))
	if err != nil {
		return nil, err
	}

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
	s.strings.outside = src.outside
	s.ByteOrder = bo
	s.Header = h

	if err := parseTypes(s, src.types(h), h, bo == binary.LittleEndian); err != nil {
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
// The records are parsed from the bytes at hand, as many as they hold
// whole (all of them for a section in memory); a record they cut is
// parsed once the stream has read it.
func parseTypes(s *Spec, types *typeStream, h Header, le bool) error {
	// Outside the heap, the arrays are reserved for the most the section
	// can hold (reserveSparse: only the pages written are resident).
	// Else they are sized exactly by a first pass that reads only the
	// headers (a base vmlinux is 108k types: bounding by 12 bytes a type
	// would reserve twice what it takes, for as long as the Spec lives).
	if !types.outside || !s.reserveSparse(types.n) {
		counter := types.again()
		n, words, err := countTypes(counter, le)
		if err != nil {
			return err
		}
		types.buf = counter.buf // one buffer (256 KiB) for both passes
		if types.outside {
			// Sparse: an offset every anchorEvery types, a byte a
			// type (spec.go).
			s.types = outsideSlice[Type](n)[:0]
			s.extraAt = nil
			s.anchors = outsideSlice[uint32](max(1, (n+anchorEvery-1)/anchorEvery))[:0]
			s.deltas = outsideSlice[uint8](max(1, n))[:0]
			s.extra = outsideSlice[uint32](words)[:0]
		} else {
			s.Grow(n, words)
		}
	}
	base0 := int64(h.HdrLen + h.TypeOff)
	need := 12
	for types.left() > 0 {
		if left := types.left(); left < 12 {
			return &FormatError{Off: base0 + types.pos, Msg: fmt.Sprintf("type [%d]: %d bytes left for a 12-byte header", s.NextID(), left), Err: ErrTruncated}
		}
		b, err := types.peek(need)
		if err != nil {
			return err
		}
		off := 0
		need = 12
		for len(b)-off >= 12 {
			t := Type{
				NameOff:    StrOff(word(b[off:], le)),
				Info:       word(b[off+4:], le),
				SizeOrType: word(b[off+8:], le),
			}
			n := t.Kind().ExtraWords(t.Vlen())
			at := base0 + types.pos + int64(off)
			if n < 0 {
				return &FormatError{Off: at, Msg: fmt.Sprintf("type [%d]: unknown kind %d", s.NextID(), t.Kind())}
			}
			if left := types.left() - int64(off) - 12; int64(n) > left/4 {
				return &FormatError{Off: at + 12, Msg: fmt.Sprintf("type [%d] %s: vlen %d needs %d bytes, %d left", s.NextID(), t.Kind(), t.Vlen(), 4*n, left), Err: ErrTruncated}
			}
			if 12+4*n > len(b)-off {
				need = 12 + 4*n // cut: read on
				break
			}
			s.types = append(s.types, t)
			at0 := len(s.extra)
			s.extra = slices.Grow(s.extra, n)[:at0+n] // no-op: countTypes sized it
			dst := s.extra[at0 : at0+n]
			src := b[off+12 : off+12+4*n]
			if le {
				for i := range dst {
					dst[i] = binary.LittleEndian.Uint32(src[4*i:])
				}
			} else {
				for i := range dst {
					dst[i] = binary.BigEndian.Uint32(src[4*i:])
				}
			}
			if s.anchors == nil {
				s.extraAt = append(s.extraAt, uint32(len(s.extra)))
			}
			off += 12 + 4*n
		}
		types.skip(int64(off))
	}
	if s.anchors != nil {
		s.indexSparse()
	}
	return nil
}

// countTypes returns how many types and extra words types holds, up to the
// first one that does not fit or has an unknown kind (parseTypes reports
// it). Only a failed read is an error; only the headers are read.
func countTypes(types *typeStream, le bool) (n, words int, err error) {
	for types.left() >= 12 {
		b, err := types.peek(12)
		if err != nil {
			return 0, 0, err
		}
		off := 0
		for len(b)-off >= 12 {
			t := Type{Info: word(b[off+4:], le)}
			k := t.Kind().ExtraWords(t.Vlen())
			if k < 0 || int64(k) > (types.left()-int64(off)-12)/4 {
				return n, words, nil
			}
			n++
			words += k
			off += 12 + 4*k
		}
		types.skip(int64(off))
	}
	return n, words, nil
}
