package btf

import "encoding/binary"

// Marshal encodes the Spec's local types and strings as raw BTF in
// s.ByteOrder (little endian if unset).
//
// A Spec read by Parse and not changed since is written byte for byte as it
// was read: the same header length (24, or 32 with the layout section),
// section offsets and order. A new or changed Spec gets its sections laid
// out as libbpf 1.8 does: types, then the layout section if it has one
// (SetLayout), then strings; its header stays 24 bytes unless it has or had
// a layout.
func (s *Spec) Marshal() []byte {
	h, bo := s.wireHeader()
	strs := s.strings.Bytes()
	layout := h.Layout
	end := max(h.TypeOff+h.TypeLen, h.StrOff+h.StrLen)
	if layout != nil {
		end = max(end, h.LayoutOff+h.LayoutLen)
	}

	out := make([]byte, int(h.HdrLen)+int(end))
	bo.PutUint16(out[0:], Magic)
	out[2], out[3] = h.Version, h.Flags
	bo.PutUint32(out[4:], h.HdrLen)
	bo.PutUint32(out[8:], h.TypeOff)
	bo.PutUint32(out[12:], h.TypeLen)
	bo.PutUint32(out[16:], h.StrOff)
	bo.PutUint32(out[20:], h.StrLen)
	if h.HdrLen >= HeaderLenLayout {
		bo.PutUint32(out[24:], h.LayoutOff)
		bo.PutUint32(out[28:], h.LayoutLen)
		copy(out[HeaderLenLayout:h.HdrLen], h.Extra)
	} else {
		copy(out[HeaderLen:h.HdrLen], h.Extra)
	}
	body := out[h.HdrLen:]
	w := body[h.TypeOff:]
	for i, t := range s.types {
		bo.PutUint32(w[0:], uint32(t.NameOff))
		bo.PutUint32(w[4:], t.Info)
		bo.PutUint32(w[8:], t.SizeOrType)
		w = w[12:]
		for _, x := range s.LocalExtra(i) {
			bo.PutUint32(w, x)
			w = w[4:]
		}
	}
	copy(body[h.StrOff:], strs)
	if layout != nil {
		putLayout(body[h.LayoutOff:], layout, bo)
	}
	return out
}

// wireHeader returns the header Marshal writes and the byte order: the
// one read, while it still fits, else offsets laid out afresh.
func (s *Spec) wireHeader() (Header, binary.ByteOrder) {
	bo := s.ByteOrder
	if bo == nil {
		bo = binary.LittleEndian
	}
	h := s.Header
	if h.HdrLen == 0 {
		h = Header{HdrLen: HeaderLen}
	}
	h.Magic, h.Version = Magic, 1
	typeLen := uint32(12*len(s.types) + 4*len(s.extra))
	strLen := uint32(len(s.strings.Bytes()))
	if h.HdrLen < HeaderLenLayout {
		h.Layout = nil
	}
	layoutLen := uint32(LayoutEntrySize * len(h.Layout))
	if s.Header.HdrLen == 0 || !s.fitsHeader(typeLen, strLen) {
		h.TypeOff, h.TypeLen = 0, typeLen
		h.LayoutOff, h.LayoutLen = 0, 0
		if h.Layout != nil {
			h.LayoutOff, h.LayoutLen = typeLen, layoutLen
		}
		h.StrOff, h.StrLen = typeLen+layoutLen, strLen
	}
	return h, bo
}

// fitsHeader reports whether the section sizes still match the header the
// Spec was read with, so its offsets can be reused.
func (s *Spec) fitsHeader(typeLen, strLen uint32) bool {
	h := &s.Header
	layoutLen := uint32(0)
	if h.HdrLen >= HeaderLenLayout {
		layoutLen = uint32(LayoutEntrySize * len(h.Layout))
	}
	return h.TypeLen == typeLen && h.StrLen == strLen && h.LayoutLen == layoutLen
}
