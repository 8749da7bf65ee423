package btf

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadRaw returns the raw BTF held by r: r is either raw BTF (in either
// byte order) or an ELF file, of which only the .BTF section is read.
func ReadRaw(r io.ReaderAt) ([]byte, error) {
	var head [HeaderLenLayout]byte
	n, err := r.ReadAt(head[:], 0)
	if n < 4 && err != nil {
		return nil, fmt.Errorf("reading header: %w", err)
	}
	if IsELF(head[:n]) {
		b, err := ELFSection(r, ".BTF")
		if errors.Is(err, ErrNoSection) {
			return nil, ErrNoBTF
		}
		return b, err
	}
	bo, err := byteOrderOf(head[:n])
	if err != nil {
		return nil, err
	}
	if n < HeaderLen {
		return nil, &FormatError{Off: 0, Msg: fmt.Sprintf("header: %d bytes, need %d", n, HeaderLen), Err: ErrTruncated}
	}
	// The data ends where its last section ends.
	hdrLen := uint64(bo.Uint32(head[4:]))
	end := max(uint64(bo.Uint32(head[8:]))+uint64(bo.Uint32(head[12:])),
		uint64(bo.Uint32(head[16:]))+uint64(bo.Uint32(head[20:])))
	if hdrLen >= HeaderLenLayout && n >= HeaderLenLayout {
		end = max(end, uint64(bo.Uint32(head[24:]))+uint64(bo.Uint32(head[28:])))
	}
	b, err := readAtMost(r, 0, int64(hdrLen+end))
	if err != nil {
		return nil, &FormatError{Off: 0, Msg: fmt.Sprintf("reading %d bytes of BTF: %v", hdrLen+end, err), Err: ErrTruncated}
	}
	return b, nil
}

// Load parses the BTF held by r (raw BTF or an ELF file's .BTF section).
// With a base, the BTF is split BTF on top of it.
func Load(r io.ReaderAt, base *Spec) (*Spec, error) {
	raw, err := ReadRaw(r)
	if err != nil {
		return nil, err
	}
	return Parse(raw, base)
}

// LoadFile is Load for a file name; errors are prefixed with the name.
func LoadFile(path string, base *Spec) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Load(f, base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
