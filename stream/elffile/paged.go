package elffile

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/btfstream/btfstream/spill"
)

// PageSize is the unit of the page cache.
const PageSize = 4096

// pageCache is the bounded cache of section pages shared by every paged
// reader of one File: string sections, .debug_str_offsets, .debug_addr,
// .debug_rnglists, .strtab. Keys are readerID<<40 | page number.
// It is a spill.Cache (CLOCK eviction, a read-locked Get that allocates
// nothing), bounded by the pages' bytes.
type pageCache = spill.Cache

// Paged gives random access to a section through its pages, which a
// bounded cache shared by the File's readers keeps. A section that had to
// be materialized (decompressed, or relocated in an ET_REL file) is held
// in mem instead. Safe for concurrent use.
type Paged struct {
	r     io.ReaderAt
	size  uint64
	mem   []byte
	cache *pageCache
	table *pageTable // instead of cache (a small file)
	id    uint64
}

func newPaged(r io.ReaderAt, size uint64, cache *pageCache) *Paged {
	return &Paged{r: r, size: size, cache: cache}
}

// MemPaged returns a Paged over bytes in memory.
func MemPaged(b []byte) *Paged { return &Paged{mem: b, size: uint64(len(b))} }

// Size returns the section size.
func (p *Paged) Size() uint64 { return p.size }

// PageMemo keeps the last pages one goroutine read through Paged readers,
// in front of the shared cache. A reader that walks a section in order,
// a few bytes at a time from many places close together (a unit's
// location lists, one function parameter after another), finds its page
// there without the shared cache's lock and map lookup (and, when the
// cache is under pressure, without reading the page anew).
// Not safe for concurrent use.
type PageMemo struct {
	key  [memoPages]uint64 // reader id<<40 | page number, plus 1 (0: empty)
	page [memoPages][]byte
	next int
}

const memoPages = 8

// PageVia returns page n as Page does, looking in m first and keeping the
// page there (m may be nil).
func (p *Paged) PageVia(m *PageMemo, n uint64) ([]byte, error) {
	if m == nil || p.mem != nil {
		return p.Page(n)
	}
	key := (p.id<<40 | n) + 1
	for i := range m.key {
		if m.key[i] == key {
			return m.page[i], nil
		}
	}
	b, err := p.Page(n)
	if err != nil {
		return nil, err
	}
	m.key[m.next], m.page[m.next] = key, b
	m.next = (m.next + 1) % memoPages
	return b, nil
}

// Page returns page n (shorter at the end of the section). The slice is
// shared and must not be modified.
func (p *Paged) Page(n uint64) ([]byte, error) {
	if p.mem != nil {
		lo := n * PageSize
		return p.mem[lo:min(lo+PageSize, p.size)], nil
	}
	key := p.id<<40 | n
	if p.cache != nil {
		if b, ok := p.cache.Get(key); ok {
			return b, nil
		}
	} else if p.table != nil {
		if b, ok := p.table.get(key); ok {
			return b, nil
		}
	}
	lo := n * PageSize
	b := make([]byte, min(PageSize, p.size-lo))
	if _, err := p.r.ReadAt(b, int64(lo)); err != nil && err != io.EOF {
		return nil, err
	}
	if p.cache != nil {
		p.cache.Set(key, b)
	} else if p.table != nil {
		p.table.set(key, b)
	}
	return b, nil
}

// CString returns the NUL-terminated string at off. When the string lies in
// one page the result shares the cached page; treat it as read-only.
func (p *Paged) CString(off uint64) ([]byte, error) { return p.CStringVia(nil, off) }

// CStringVia is CString reading its pages through m (PageVia; m may be
// nil): for a reader whose strings lie close together, as a module
// unit's names do.
func (p *Paged) CStringVia(m *PageMemo, off uint64) ([]byte, error) {
	if off >= p.size {
		return nil, ErrFormat
	}
	if p.mem != nil {
		i := bytes.IndexByte(p.mem[off:], 0)
		if i < 0 {
			return nil, ErrFormat
		}
		return p.mem[off : off+uint64(i)], nil
	}
	var out []byte
	for n := off / PageSize; n*PageSize < p.size; n++ {
		pg, err := p.PageVia(m, n)
		if err != nil {
			return nil, err
		}
		start := uint64(0)
		if n == off/PageSize {
			start = off % PageSize
		}
		if i := bytes.IndexByte(pg[start:], 0); i >= 0 {
			if out == nil {
				return pg[start : start+uint64(i)], nil
			}
			return append(out, pg[start:start+uint64(i)]...), nil
		}
		out = append(out, pg[start:]...)
	}
	return nil, ErrFormat
}

// ReadFull fills dst from off.
func (p *Paged) ReadFull(dst []byte, off uint64) error {
	if off > p.size || p.size-off < uint64(len(dst)) {
		return ErrFormat
	}
	if p.mem != nil {
		copy(dst, p.mem[off:])
		return nil
	}
	for len(dst) > 0 {
		pg, err := p.Page(off / PageSize)
		if err != nil {
			return err
		}
		n := copy(dst, pg[off%PageSize:])
		dst = dst[n:]
		off += uint64(n)
	}
	return nil
}

// Uint reads an unsigned integer of size 1..8 bytes at off.
func (p *Paged) Uint(off uint64, size uint8, order binary.ByteOrder) (uint64, error) {
	var b [8]byte
	if err := p.ReadFull(b[:size], off); err != nil {
		return 0, err
	}
	switch size {
	case 1:
		return uint64(b[0]), nil
	case 2:
		return uint64(order.Uint16(b[:])), nil
	case 3:
		if order == binary.BigEndian {
			return uint64(b[0])<<16 | uint64(b[1])<<8 | uint64(b[2]), nil
		}
		return uint64(b[2])<<16 | uint64(b[1])<<8 | uint64(b[0]), nil
	case 4:
		return uint64(order.Uint32(b[:])), nil
	case 8:
		return order.Uint64(b[:]), nil
	}
	return 0, ErrFormat
}

// Window returns up to n bytes at off, bypassing the page cache: a slice of
// mem, or a fresh read from the file into scratch (grown as needed).
func (p *Paged) Window(off, n uint64, scratch []byte) ([]byte, error) {
	if off > p.size {
		return nil, ErrFormat
	}
	n = min(n, p.size-off)
	if p.mem != nil {
		return p.mem[off : off+n], nil
	}
	if uint64(cap(scratch)) < n {
		scratch = make([]byte, n)
	}
	scratch = scratch[:n]
	if _, err := p.r.ReadAt(scratch, int64(off)); err != nil && err != io.EOF {
		return nil, err
	}
	return scratch, nil
}

// InMemory reports whether the section is held in memory (Window then
// returns slices of it rather than filling the scratch buffer).
func (p *Paged) InMemory() bool { return p.mem != nil }
