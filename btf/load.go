package btf

import (
	"cmp"
	"fmt"
	"io"
)

// ReadRaw returns the raw BTF held by r, in either byte order: the header,
// then exactly the bytes its sections span. Reading a .BTF section out of
// an ELF file is the ELF reader's job (stream/elffile.ReadBTF, LoadBTF).
func ReadRaw(r io.ReaderAt) ([]byte, error) {
	size, err := rawSize(r)
	if err != nil {
		return nil, err
	}
	b, err := readAtMost(r, 0, int64(size))
	if err != nil {
		return nil, &FormatError{Off: 0, Msg: fmt.Sprintf("reading %d bytes of BTF: %v", size, err), Err: ErrTruncated}
	}
	return b, nil
}

// rawSize reads the header of the raw BTF in r and returns how many bytes
// the BTF spans: the header, then up to where its last section ends.
func rawSize(r io.ReaderAt) (uint64, error) {
	var head [HeaderLenLayout]byte
	n, err := r.ReadAt(head[:], 0)
	if n < 4 && err != nil {
		return 0, fmt.Errorf("reading header: %w", err)
	}
	bo, err := byteOrderOf(head[:n])
	if err != nil {
		return 0, err
	}
	if n < HeaderLen {
		return 0, &FormatError{Off: 0, Msg: fmt.Sprintf("header: %d bytes, need %d", n, HeaderLen), Err: ErrTruncated}
	}
	hdrLen := uint64(bo.Uint32(head[4:]))
	end := max(uint64(bo.Uint32(head[8:]))+uint64(bo.Uint32(head[12:])),
		uint64(bo.Uint32(head[16:]))+uint64(bo.Uint32(head[20:])))
	if hdrLen >= HeaderLenLayout && n >= HeaderLenLayout {
		end = max(end, uint64(bo.Uint32(head[24:]))+uint64(bo.Uint32(head[28:])))
	}
	return hdrLen + end, nil
}

// readAtMost reads exactly n bytes at off, growing its buffer in chunks so
// that an untrusted size cannot make it allocate far more than the input
// really holds. A reader may say io.EOF with the last bytes: only a short
// read fails.
func readAtMost(r io.ReaderAt, off, n int64) ([]byte, error) {
	const chunk = 8 << 20
	if n <= chunk {
		b := make([]byte, n)
		if got, err := r.ReadAt(b, off); int64(got) < n {
			return nil, err
		}
		return b, nil
	}
	var b []byte
	for int64(len(b)) < n {
		m := min(n-int64(len(b)), chunk)
		b = append(b, make([]byte, m)...)
		if got, err := r.ReadAt(b[int64(len(b))-m:], off+int64(len(b))-m); int64(got) < m {
			return nil, err
		}
	}
	return b, nil
}

// LoadRaw is Parse(ReadRaw(r), base) without the copy: r holds raw BTF,
// which is read as LoadAt reads it, the header saying how many bytes it
// spans. A short input fails as ReadRaw does.
func LoadRaw(r io.ReaderAt, base *Spec) (*Spec, error) { return loadRaw(r, base, 0, false) }

// LoadRawForProcess is LoadRaw of a base whose memory is outside the Go
// heap until the process exits, as LoadAtForProcess says.
func LoadRawForProcess(r io.ReaderAt) (*Spec, error) { return loadRaw(r, nil, 0, true) }

// loadRaw is LoadRaw with a type buffer of chunk bytes (0: the default),
// outside the heap if outside (LoadAtForProcess).
func loadRaw(r io.ReaderAt, base *Spec, chunk int, outside bool) (*Spec, error) {
	size, err := rawSize(r)
	if err != nil {
		return nil, err
	}
	// ReadRaw reads all of it: the last byte tells whether it is there.
	if size > 0 {
		var last [1]byte
		if n, err := r.ReadAt(last[:], int64(size-1)); n < 1 {
			return nil, &FormatError{Off: 0, Msg: fmt.Sprintf("reading %d bytes of BTF: %v", size, err), Err: ErrTruncated}
		}
	}
	return parse(source{r: r, size: int64(size), chunk: chunk, outside: outside}, base)
}

// source is raw BTF: in memory (data), or size bytes read through r on
// demand.
type source struct {
	data  []byte
	r     io.ReaderAt
	size  int64
	chunk int // the type stream's buffer (0: typeStreamBuf; tests make it small)
	// outside: the Spec's types and strings go outside the Go heap
	// (LoadAtForProcess); only with r.
	outside bool
}

func (s source) len() uint64 {
	if s.r == nil {
		return uint64(len(s.data))
	}
	return uint64(s.size)
}

// bytes returns the n bytes at off, which the caller has checked are
// inside the source: a slice of data, or a buffer of their own.
func (s source) bytes(off, n uint64) ([]byte, error) {
	if s.r == nil {
		return s.data[off : off+n], nil
	}
	if s.outside {
		// n is within the source, whose last byte was read.
		b := outsideSlice[byte](int(n))
		if got, err := s.r.ReadAt(b, int64(off)); uint64(got) < n {
			return nil, &FormatError{Off: int64(off), Msg: fmt.Sprintf("reading %d bytes: %v", n, err), Err: ErrTruncated}
		}
		return b, nil
	}
	b, err := readAtMost(s.r, int64(off), int64(n))
	if err != nil {
		return nil, &FormatError{Off: int64(off), Msg: fmt.Sprintf("reading %d bytes: %v", n, err), Err: ErrTruncated}
	}
	return b, nil
}

// types returns a stream of the type section that header h describes.
func (s source) types(h Header) *typeStream {
	at := int64(h.HdrLen) + int64(h.TypeOff)
	if s.r == nil {
		b := s.data[at : at+int64(h.TypeLen)]
		return &typeStream{mem: b, b: b, n: int64(len(b))}
	}
	return &typeStream{r: s.r, at: at, n: int64(h.TypeLen), chunk: cmp.Or(s.chunk, typeStreamBuf), outside: s.outside}
}

// typeStreamBuf is what a typeStream over a reader reads at a time.
const typeStreamBuf = 256 << 10

// typeStream reads a type section front to back: from memory (b is all
// of it), or through a buffer of typeStreamBuf bytes refilled from r.
type typeStream struct {
	r   io.ReaderAt // nil: mem holds the whole section
	mem []byte      // the section in memory
	at  int64       // r's offset of the section
	n   int64       // the section's length
	pos int64       // section offset of b[0]
	b   []byte      // bytes from pos on that are at hand
	buf []byte      // b's backing array (reader)
	// chunk is buf's size, at least 12 (a type's header)
	chunk int
	// outside: the types parsed go outside the Go heap (source.outside)
	outside bool
}

// again returns a stream of the same section from its start.
func (t *typeStream) again() *typeStream {
	if t.r == nil {
		return &typeStream{mem: t.mem, b: t.mem, n: t.n}
	}
	return &typeStream{r: t.r, at: t.at, n: t.n, chunk: t.chunk, outside: t.outside}
}

// left is how many bytes of the section are after pos.
func (t *typeStream) left() int64 { return t.n - t.pos }

// peek returns the bytes at hand from pos on, at least k of them (k at
// most left()), reading more when fewer are at hand.
func (t *typeStream) peek(k int) ([]byte, error) {
	if len(t.b) >= k || t.r == nil {
		return t.b, nil
	}
	if len(t.buf) < k {
		// A record larger than the buffer (the caller checked that
		// the section holds it).
		t.buf = make([]byte, max(k, t.chunk))
	}
	have := copy(t.buf, t.b)
	m := int(min(int64(len(t.buf)), t.left()))
	if n, err := t.r.ReadAt(t.buf[have:m], t.at+t.pos+int64(have)); n < m-have {
		return nil, &FormatError{Off: t.at + t.pos + int64(have), Msg: fmt.Sprintf("reading the type section: %v", err), Err: ErrTruncated}
	}
	t.b = t.buf[:m]
	return t.b, nil
}

// skip moves pos on by k bytes (at most left()), reading none of them.
func (t *typeStream) skip(k int64) {
	t.pos += k
	if k <= int64(len(t.b)) {
		t.b = t.b[k:]
	} else {
		t.b = nil
	}
}
