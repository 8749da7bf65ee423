package btf

import (
	"fmt"
	"io"
)

// ReadRaw returns the raw BTF held by r, in either byte order: the header,
// then exactly the bytes its sections span. Reading a .BTF section out of
// an ELF file is the ELF reader's job (stream/elffile.ReadBTF, LoadBTF).
func ReadRaw(r io.ReaderAt) ([]byte, error) {
	var head [HeaderLenLayout]byte
	n, err := r.ReadAt(head[:], 0)
	if n < 4 && err != nil {
		return nil, fmt.Errorf("reading header: %w", err)
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

// readAtMost reads exactly n bytes at off, growing its buffer in chunks so
// that an untrusted size cannot make it allocate far more than the input
// really holds.
func readAtMost(r io.ReaderAt, off, n int64) ([]byte, error) {
	const chunk = 8 << 20
	if n <= chunk {
		b := make([]byte, n)
		if _, err := r.ReadAt(b, off); err != nil {
			return nil, err
		}
		return b, nil
	}
	var b []byte
	for int64(len(b)) < n {
		m := min(n-int64(len(b)), chunk)
		b = append(b, make([]byte, m)...)
		if _, err := r.ReadAt(b[int64(len(b))-m:], off+int64(len(b))-m); err != nil {
			return nil, err
		}
	}
	return b, nil
}
