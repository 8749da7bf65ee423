package main

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/btfstream/btfstream/btf"
)

// rawHeader is the part of struct btf_header that merge needs.
type rawHeader struct {
	hdrLen, typeOff, typeLen, strOff, strLen uint32
}

var le = binary.LittleEndian

// parseHeader reads a little-endian BTF header (the guest is x86_64) and
// checks that its sections lie inside raw.
func parseHeader(raw []byte) (rawHeader, error) {
	if len(raw) < btf.HeaderLen || le.Uint16(raw) != btf.Magic {
		return rawHeader{}, errors.New("not little-endian BTF")
	}
	h := rawHeader{le.Uint32(raw[4:]), le.Uint32(raw[8:]), le.Uint32(raw[12:]), le.Uint32(raw[16:]), le.Uint32(raw[20:])}
	body := uint64(len(raw)) - uint64(min(h.hdrLen, uint32(len(raw))))
	if uint64(h.hdrLen) > uint64(len(raw)) || uint64(h.typeOff)+uint64(h.typeLen) > body || uint64(h.strOff)+uint64(h.strLen) > body {
		return rawHeader{}, fmt.Errorf("BTF header %+v does not fit in %d bytes", h, len(raw))
	}
	return h, nil
}

// merge returns base and split as one BTF: a 24-byte header, the base's
// types then the split's, the base's strings then the split's. Split ids
// start after the base's last id and split string offsets after the
// base's string section, so nothing inside the types changes.
func merge(base, split []byte) ([]byte, error) {
	bh, err := parseHeader(base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	sh, err := parseHeader(split)
	if err != nil {
		return nil, err
	}
	sec := func(raw []byte, h rawHeader, off, n uint32) []byte {
		return raw[h.hdrLen+off : h.hdrLen+off+n]
	}
	typeLen := bh.typeLen + sh.typeLen
	out := make([]byte, btf.HeaderLen, btf.HeaderLen+int(typeLen+bh.strLen+sh.strLen))
	le.PutUint16(out, btf.Magic)
	out[2] = 1
	le.PutUint32(out[4:], btf.HeaderLen)
	le.PutUint32(out[8:], 0)
	le.PutUint32(out[12:], typeLen)
	le.PutUint32(out[16:], typeLen)
	le.PutUint32(out[20:], bh.strLen+sh.strLen)
	out = append(out, sec(base, bh, bh.typeOff, bh.typeLen)...)
	out = append(out, sec(split, sh, sh.typeOff, sh.typeLen)...)
	out = append(out, sec(base, bh, bh.strOff, bh.strLen)...)
	out = append(out, sec(split, sh, sh.strOff, sh.strLen)...)
	return out, nil
}

// countTypes returns the number of types in raw BTF.
func countTypes(raw []byte) (int, error) {
	s, err := btf.Parse(raw, nil)
	if err != nil {
		return 0, err
	}
	return s.Len(), nil
}

// corruptSplit breaks split BTF (over base) in place so that only the
// full verifier can tell, not the checks a module load runs (each type's
// own fields): the first TYPEDEF of the split is made to point at itself
// (a loop, found when types are resolved); without one, the first FUNC
// is made to point at itself instead of a FUNC_PROTO (checked only once
// all types are resolved). Without either, the first STRUCT with members
// gets its last member moved past the struct's end, which the per-type
// checks catch too. It returns what it did.
func corruptSplit(split, base []byte) (string, error) {
	b, err := btf.Parse(base, nil)
	if err != nil {
		return "", fmt.Errorf("base: %w", err)
	}
	s, err := btf.Parse(split, b)
	if err != nil {
		return "", err
	}
	h, err := parseHeader(split)
	if err != nil {
		return "", err
	}
	// first returns the first split type for which ok holds and the byte
	// offset of its record in split.
	first := func(ok func(t btf.Type) bool) (btf.TypeID, uint32) {
		off := h.hdrLen + h.typeOff
		for id := s.FirstID(); id < s.NextID(); id++ {
			if ok(s.Type(id)) {
				return id, off
			}
			off += uint32(s.TypeBytes(id))
		}
		return 0, 0
	}
	if id, off := first(func(t btf.Type) bool { return t.Kind() == btf.KindTypedef }); id != 0 {
		le.PutUint32(split[off+8:], uint32(id))
		return fmt.Sprintf("TYPEDEF [%d] '%s' now points at itself", id, s.Name(id)), nil
	}
	if id, off := first(func(t btf.Type) bool { return t.Kind() == btf.KindFunc }); id != 0 {
		le.PutUint32(split[off+8:], uint32(id))
		return fmt.Sprintf("FUNC [%d] '%s' now points at itself, not at a FUNC_PROTO", id, s.Name(id)), nil
	}
	if id, off := first(func(t btf.Type) bool {
		return t.Kind() == btf.KindStruct && t.Vlen() > 0 && !t.KindFlag()
	}); id != 0 {
		t := s.Type(id)
		m := off + 12 + 12*(t.Vlen()-1)
		le.PutUint32(split[m+8:], 8*t.Size()+8)
		return fmt.Sprintf("STRUCT [%d] '%s': last member moved past the end", id, s.Name(id)), nil
	}
	return "", errors.New("no TYPEDEF, FUNC or STRUCT with members to corrupt")
}
