package elffile

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// OpenStream returns a sequential reader of the section's uncompressed
// bytes and their size. Compressed sections (SHF_COMPRESSED with zlib or
// zstd, and legacy .zdebug_* with zlib) are inflated on the fly, so a
// compressed .debug_info never has to be held whole.
func (f *File) OpenStream(s *SectionHeader) (io.ReadCloser, uint64, error) {
	rc, n, err := f.openStream(s)
	return rc, n, WithFile(f.name, err)
}

func (f *File) openStream(s *SectionHeader) (io.ReadCloser, uint64, error) {
	if s.Type == SHTNobits {
		return io.NopCloser(strings.NewReader("")), 0, nil
	}
	raw := io.NewSectionReader(f.r, int64(s.Offset), int64(s.Size))
	if !s.Compressed() {
		return io.NopCloser(raw), s.Size, nil
	}
	var typ uint32
	var size, hdr uint64
	if s.Flags&SHFCompressed != 0 {
		var h [24]byte
		hdr = 12
		if f.Class64 {
			hdr = 24
		}
		if s.Size < hdr {
			return nil, 0, FormatErr(s.Name, 0, "compressed section shorter than its header")
		}
		if _, err := raw.ReadAt(h[:hdr], 0); err != nil {
			return nil, 0, &Error{Section: s.Name, Msg: "read compression header", Err: err}
		}
		typ = f.Order.Uint32(h[:])
		if f.Class64 {
			size = f.Order.Uint64(h[8:])
		} else {
			size = uint64(f.Order.Uint32(h[4:]))
		}
	} else {
		var h [12]byte
		hdr = 12
		if s.Size < hdr {
			return nil, 0, FormatErr(s.Name, 0, "compressed section shorter than its header")
		}
		if _, err := raw.ReadAt(h[:], 0); err != nil {
			return nil, 0, &Error{Section: s.Name, Msg: "read compression header", Err: err}
		}
		if string(h[:4]) != "ZLIB" {
			return nil, 0, FormatErr(s.Name, 0, "missing ZLIB magic in .zdebug section")
		}
		typ = elfCompressZlib
		size = binary.BigEndian.Uint64(h[4:])
	}
	body := io.NewSectionReader(raw, int64(hdr), int64(s.Size-hdr))
	switch typ {
	case elfCompressZlib:
		zr, err := zlib.NewReader(body)
		if err != nil {
			return nil, 0, &Error{Section: s.Name, Offset: hdr, Msg: "zlib", Err: ErrFormat}
		}
		return zr, size, nil
	case elfCompressZstd:
		zr, err := zstd.NewReader(body, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(64<<20))
		if err != nil {
			return nil, 0, &Error{Section: s.Name, Offset: hdr, Msg: "zstd", Err: ErrFormat}
		}
		return zstdCloser{zr}, size, nil
	}
	return nil, 0, UnsupportedErr(s.Name, 0, "compression type %d", typ)
}

type zstdCloser struct{ *zstd.Decoder }

func (z zstdCloser) Close() error { z.Decoder.Close(); return nil }

// readAllBounded reads exactly size bytes from r without trusting size for
// the allocation: the buffer grows as data actually arrives.
func readAllBounded(r io.Reader, size uint64) ([]byte, error) {
	const step = 1 << 20
	if size > math.MaxInt32 {
		return nil, fmt.Errorf("section of %d bytes too large to load", size)
	}
	n := int(size)
	out := make([]byte, 0, min(n, step))
	for len(out) < n {
		if len(out) == cap(out) {
			out = slices.Grow(out, min(cap(out), n-len(out)))
		}
		k := min(cap(out), n) - len(out)
		got, err := io.ReadFull(r, out[len(out):len(out)+k])
		out = out[:len(out)+got]
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// ReadSection returns the whole uncompressed contents of s, with
// relocations applied in relocatable objects. Meant for small sections
// (.BTF_ids, a .ko's location lists) and those that need random access and
// cannot be paged from the file as stored; stream large ones.
func (f *File) ReadSection(s *SectionHeader) ([]byte, error) {
	b, err := f.readSection(s)
	return b, WithFile(f.name, err)
}

func (f *File) readSection(s *SectionHeader) ([]byte, error) {
	b, err := f.readSectionRaw(s)
	if err != nil {
		return nil, err
	}
	if f.Relocatable() {
		rl, err := f.newRelocator(s)
		if err != nil {
			return nil, err
		}
		if rl != nil {
			if err := rl.Apply(b, 0); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// PagedSection returns a random-access reader of the uncompressed,
// relocated contents of s: paged from the file when possible, else
// materialized (compressed, or relocated in an ET_REL file).
func (f *File) PagedSection(s *SectionHeader) (*Paged, error) {
	if !s.Compressed() && !(f.Relocatable() && f.HasRelocs(s.Index)) {
		return f.RawPaged(s), nil
	}
	b, err := f.ReadSection(s)
	if err != nil {
		return nil, err
	}
	return MemPaged(b), nil
}
