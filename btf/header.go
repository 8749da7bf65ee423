package btf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// Magic is BTF's magic number, which also tells the byte order.
const Magic = 0xeB9F

// Header sizes: the classic header and the newest one with a layout section.
const (
	HeaderLen       = 24
	HeaderLenLayout = 32
)

// Header is struct btf_header. Offsets are relative to the end of the header.
// LayoutOff/LayoutLen exist only when HdrLen >= 32 (Linux 7.2's optional
// layout section, which describes each kind's record sizes: layout.go).
type Header struct {
	Magic     uint16
	Version   uint8
	Flags     uint8
	HdrLen    uint32
	TypeOff   uint32
	TypeLen   uint32
	StrOff    uint32
	StrLen    uint32
	LayoutOff uint32
	LayoutLen uint32

	// Layout holds the layout section's entries (nil if absent); see
	// layout.go.
	Layout []LayoutEntry
	// Extra holds header bytes past the fields this package knows (HdrLen >
	// 32), verbatim; the kernel requires them to be zero.
	Extra []byte
}

// Errors callers may branch on.
var (
	ErrNotBTF    = errors.New("not BTF: bad magic")
	ErrTruncated = errors.New("truncated")
	ErrNoBTF     = errors.New("no .BTF section")
)

// FormatError describes malformed BTF at a byte offset of the raw data, or
// at a type id.
type FormatError struct {
	Off  int64  // byte offset into the raw BTF, or -1
	ID   TypeID // type id, or 0
	Kind Kind
	Name string // the type's name when ID is set ("" for anonymous)
	Msg  string
	Err  error // wrapped sentinel, if any
}

// Error prints `type [42] STRUCT 'foo': msg` for an error at a type (the
// form of bpftool and pahole), `BTF+0x18: msg` at a byte offset, and
// `BTF+0x18: type [42] STRUCT 'foo': msg` when it has both (the offset of
// the type's record in the raw BTF).
func (e *FormatError) Error() string {
	switch {
	case e.ID != 0:
		name := printable(e.Name)
		if name == "" {
			name = "(anon)"
		}
		s := fmt.Sprintf("type [%d] %s '%s': %s", e.ID, e.Kind, name, e.Msg)
		if e.Off >= 0 {
			s = fmt.Sprintf("BTF+%#x: %s", e.Off, s)
		}
		return s
	case e.Off >= 0:
		return fmt.Sprintf("BTF+%#x: %s", e.Off, e.Msg)
	}
	return e.Msg
}

func (e *FormatError) Unwrap() error { return e.Err }

// printable returns s for messages: as is when it is printable ASCII, else
// with Go escapes (\n, \x89, \u01af), so that an error stays one line
// whatever bytes a corrupt string section holds.
func printable(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			q := strconv.QuoteToASCII(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// byteOrderOf returns the byte order the magic at data[0:2] is written in.
func byteOrderOf(data []byte) (binary.ByteOrder, error) {
	if len(data) < 2 {
		return nil, &FormatError{Off: 0, Msg: "header: " + ErrTruncated.Error(), Err: ErrTruncated}
	}
	switch {
	case binary.LittleEndian.Uint16(data) == Magic:
		return binary.LittleEndian, nil
	case binary.BigEndian.Uint16(data) == Magic:
		return binary.BigEndian, nil
	}
	return nil, &FormatError{Off: 0, Msg: fmt.Sprintf("magic %#04x", binary.LittleEndian.Uint16(data)), Err: ErrNotBTF}
}

// parseHeader reads and checks the header of raw BTF.
func parseHeader(src source) (Header, binary.ByteOrder, error) {
	var h Header
	size := src.len()
	data, err := src.bytes(0, min(size, HeaderLenLayout))
	if err != nil {
		return h, nil, err
	}
	bo, err := byteOrderOf(data)
	if err != nil {
		return h, nil, err
	}
	if len(data) < HeaderLen {
		return h, nil, &FormatError{Off: 0, Msg: fmt.Sprintf("header: %d bytes, need %d", len(data), HeaderLen), Err: ErrTruncated}
	}
	h.Magic = Magic
	h.Version = data[2]
	h.Flags = data[3]
	h.HdrLen = bo.Uint32(data[4:])
	if h.Version != 1 {
		return h, nil, &FormatError{Off: 2, Msg: fmt.Sprintf("version %d, want 1", h.Version)}
	}
	if h.HdrLen < HeaderLen || uint64(h.HdrLen) > size {
		return h, nil, &FormatError{Off: 4, Msg: fmt.Sprintf("hdr_len %d outside [%d, %d]", h.HdrLen, HeaderLen, size), Err: ErrTruncated}
	}
	h.TypeOff = bo.Uint32(data[8:])
	h.TypeLen = bo.Uint32(data[12:])
	h.StrOff = bo.Uint32(data[16:])
	h.StrLen = bo.Uint32(data[20:])
	extraAt := uint32(HeaderLen)
	if h.HdrLen >= HeaderLenLayout {
		h.LayoutOff = bo.Uint32(data[24:])
		h.LayoutLen = bo.Uint32(data[28:])
		extraAt = HeaderLenLayout
	}
	if h.HdrLen > extraAt {
		if h.Extra, err = src.bytes(uint64(extraAt), uint64(h.HdrLen-extraAt)); err != nil {
			return h, nil, err
		}
	}
	body := size - uint64(h.HdrLen)
	check := func(name string, field int64, off, n uint32) error {
		if uint64(off)+uint64(n) > body {
			return &FormatError{Off: field, Msg: fmt.Sprintf("%s section [%#x, %#x) past end of data (%#x)", name, off, uint64(off)+uint64(n), body), Err: ErrTruncated}
		}
		return nil
	}
	if err := check("type", 8, h.TypeOff, h.TypeLen); err != nil {
		return h, nil, err
	}
	if err := check("string", 16, h.StrOff, h.StrLen); err != nil {
		return h, nil, err
	}
	if h.TypeOff%4 != 0 {
		return h, nil, &FormatError{Off: 8, Msg: fmt.Sprintf("type_off %#x not 4-byte aligned", h.TypeOff)}
	}
	if err := parseLayout(&h, src, bo); err != nil {
		return h, nil, err
	}
	return h, bo, nil
}
