package btf

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The layout section (Linux 7.2 uapi, libbpf 1.8): with the 32-byte header,
// layout_off/layout_len may point at an array of struct btf_layout, one per
// kind known to the encoder, indexed by kind. Each says how many bytes
// follow a type's 12-byte btf_type record: InfoSize once, plus ElemSize per
// vlen element. A reader that meets a kind it does not know can skip it.
//
// Where it sits: libbpf 1.8 writes types, then the layout, then strings
// (btf__new_empty_opts with add_layout; btf__raw_data), in base BTF only
// when asked (pahole 1.32's --btf_features=layout; split BTF and
// btf__distill_base's outputs get none). libbpf's reader wants it between
// the type and string sections, 4-byte aligned, a multiple of 4 long, and
// falls back to the base's layout for split BTF without one. The 7.2
// kernel counts it in the sections that must tile the data (no gap, no
// overlap, any order); only BPF_BTF_LOAD (btf_parse) also checks its
// alignment and length; vmlinux and module BTF are not checked further,
// and no kernel code reads the entries.

// LayoutEntrySize is sizeof(struct btf_layout).
const LayoutEntrySize = 4

// LayoutEntry is struct btf_layout: the bytes after a type's btf_type
// record are InfoSize + vlen*ElemSize. Flags are unused (zero).
type LayoutEntry struct {
	InfoSize uint8
	ElemSize uint8
	Flags    uint16
}

// KindLayout returns the layout section libbpf 1.8 writes: one entry for
// each kind 0..MaxKind, derived from the record sizes this package reads
// (Kind.ExtraWords), which are the kernel's.
func KindLayout() []LayoutEntry {
	l := make([]LayoutEntry, MaxKind+1)
	for k := KindInt; k <= MaxKind; k++ {
		one, two := k.ExtraWords(1), k.ExtraWords(2)
		elem := two - one
		l[k] = LayoutEntry{InfoSize: uint8(4 * (one - elem)), ElemSize: uint8(4 * elem)}
	}
	return l
}

// decodeLayout reads the entries of a layout section.
func decodeLayout(b []byte, bo binary.ByteOrder) []LayoutEntry {
	l := make([]LayoutEntry, len(b)/LayoutEntrySize)
	for i := range l {
		e := b[i*LayoutEntrySize:]
		l[i] = LayoutEntry{InfoSize: e[0], ElemSize: e[1], Flags: bo.Uint16(e[2:])}
	}
	return l
}

// putLayout writes the entries at b (len(l)*LayoutEntrySize bytes).
func putLayout(b []byte, l []LayoutEntry, bo binary.ByteOrder) {
	for i, e := range l {
		b[i*LayoutEntrySize] = e.InfoSize
		b[i*LayoutEntrySize+1] = e.ElemSize
		bo.PutUint16(b[i*LayoutEntrySize+2:], e.Flags)
	}
}

// HasLayout reports whether the Spec carries a layout section.
func (s *Spec) HasLayout() bool { return len(s.Header.Layout) > 0 }

// SetLayout gives the Spec the layout section l (KindLayout() for what
// libbpf 1.8 writes), or removes it (nil). Marshal then lays the sections
// out afresh, as libbpf does: types, layout, strings. A Spec that gets a
// layout gets the 32-byte header; one that loses it keeps its header
// length, with layout_off and layout_len zero.
func (s *Spec) SetLayout(l []LayoutEntry) {
	h := &s.Header
	if len(l) > 0 && h.HdrLen < HeaderLenLayout {
		h.HdrLen = HeaderLenLayout
		h.Extra = nil
	}
	h.Layout = slices.Clone(l)
	if len(l) == 0 {
		h.Layout = nil
	}
	// Marshal recomputes the offsets (fitsHeader no longer holds).
	h.TypeOff, h.TypeLen, h.StrOff, h.StrLen, h.LayoutOff, h.LayoutLen = 0, 0, 0, 0, 0, 0
}

// parseLayout checks the layout section's header fields as both libbpf 1.8
// and the 7.2 kernel's btf_parse_layout_sec do (4-byte aligned, a
// non-empty multiple of 4 bytes, inside the data) and decodes it from
// src, the raw BTF.
func parseLayout(h *Header, src source, bo binary.ByteOrder) error {
	if h.HdrLen < HeaderLenLayout || h.LayoutLen == 0 {
		return nil
	}
	body := src.len() - uint64(h.HdrLen)
	switch {
	case h.LayoutOff%4 != 0:
		return &FormatError{Off: 24, Msg: fmt.Sprintf("layout_off %#x not 4-byte aligned", h.LayoutOff)}
	case h.LayoutLen%LayoutEntrySize != 0:
		return &FormatError{Off: 28, Msg: fmt.Sprintf("layout_len %d not a multiple of %d", h.LayoutLen, LayoutEntrySize)}
	case uint64(h.LayoutOff)+uint64(h.LayoutLen) > body:
		return &FormatError{Off: 24, Msg: fmt.Sprintf("layout section [%#x, %#x) past end of data (%#x)", h.LayoutOff, uint64(h.LayoutOff)+uint64(h.LayoutLen), body), Err: ErrTruncated}
	}
	b, err := src.bytes(uint64(h.HdrLen)+uint64(h.LayoutOff), uint64(h.LayoutLen))
	if err != nil {
		return err
	}
	h.Layout = decodeLayout(b, bo)
	return nil
}

// checkSections applies the 7.2 kernel's btf_check_sec_info and the
// placement rule of btf_parse_str_sec to the header a Spec was read with:
// the type, string and (when present) layout sections tile the data after
// the header, sorted by offset then length, with no gap and no overlap;
// with a header shorter than 32 bytes the string section must end the data.
func checkSections(h Header) error {
	type sec struct {
		name     string
		off, len uint32
	}
	secs := []sec{{"type", h.TypeOff, h.TypeLen}, {"string", h.StrOff, h.StrLen}}
	if h.HdrLen >= HeaderLenLayout && h.LayoutLen > 0 {
		secs = append(secs, sec{"layout", h.LayoutOff, h.LayoutLen})
	}
	slices.SortStableFunc(secs, func(a, b sec) int {
		if a.off != b.off {
			return cmpU32(a.off, b.off)
		}
		return cmpU32(a.len, b.len)
	})
	total := uint64(0)
	for _, sc := range secs {
		switch {
		case uint64(sc.off) < total:
			return &FormatError{Off: int64(h.HdrLen) + int64(sc.off), Msg: fmt.Sprintf("header: %s section at %#x overlaps the previous section (ends %#x)", sc.name, sc.off, total), Err: ErrInvalid}
		case uint64(sc.off) > total:
			return &FormatError{Off: int64(h.HdrLen) + int64(total), Msg: fmt.Sprintf("header: gap before %s section (%#x..%#x): unsupported section", sc.name, total, sc.off), Err: ErrInvalid}
		}
		total = uint64(sc.off) + uint64(sc.len)
	}
	if h.HdrLen < HeaderLenLayout && uint64(h.StrOff)+uint64(h.StrLen) != total {
		return &FormatError{Off: 16, Msg: fmt.Sprintf("header: string section ends at %#x, not at the end of the data (%#x), which a %d-byte header requires", uint64(h.StrOff)+uint64(h.StrLen), total, h.HdrLen), Err: ErrInvalid}
	}
	return nil
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// DumpHeader writes the header Marshal writes, one field a line as the 7.2
// kernel's verifier log prints it (btf_verifier_log_hdr: layout_off and
// layout_len only with the 32-byte header), then the layout section's
// entries, one a line. bpftool (7.2) prints neither: its dump shows types
// only.
func (s *Spec) DumpHeader(w io.Writer) error {
	h, bo := s.wireHeader()
	end := max(uint64(h.TypeOff)+uint64(h.TypeLen), uint64(h.StrOff)+uint64(h.StrLen))
	var b strings.Builder
	fmt.Fprintf(&b, "magic: %#x\nversion: %d\nflags: %#x\nhdr_len: %d\n", h.Magic, h.Version, h.Flags, h.HdrLen)
	fmt.Fprintf(&b, "type_off: %d\ntype_len: %d\nstr_off: %d\nstr_len: %d\n", h.TypeOff, h.TypeLen, h.StrOff, h.StrLen)
	if h.HdrLen >= HeaderLenLayout {
		fmt.Fprintf(&b, "layout_off: %d\nlayout_len: %d\n", h.LayoutOff, h.LayoutLen)
		if h.LayoutLen > 0 {
			end = max(end, uint64(h.LayoutOff)+uint64(h.LayoutLen))
		}
	}
	order := "little-endian"
	if bo == binary.BigEndian {
		order = "big-endian"
	}
	fmt.Fprintf(&b, "btf_total_size: %d\nbyte_order: %s\n", uint64(h.HdrLen)+end, order)
	for k, e := range h.Layout {
		fmt.Fprintf(&b, "layout[%d] %s: info_sz=%d elem_sz=%d flags=%#x\n", k, Kind(k), e.InfoSize, e.ElemSize, e.Flags)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
