package dwarfread

import (
	"encoding/binary"

	"github.com/btfstream/btfstream/stream/elffile"
)

// LocLists reads location lists (.debug_loc for DWARF 2-4, .debug_loclists
// for DWARF 5) lazily, one function's parameters at a time, just far
// enough to list each entry's expression. The sections are never held
// whole: they are read through the File's bounded page cache (a section
// that needs relocating or inflating, as in a .ko, is materialized by the
// reader, which is small there).
type LocLists struct {
	loc, loclists *elffile.Paged
	order         binary.ByteOrder
	addr          int
	err           error // first read error (sticky)
}

// NewLocLists returns the location list reader of f (nil readers for
// absent sections: their lists are then empty).
func NewLocLists(f *File) (*LocLists, error) {
	l := &LocLists{order: f.ByteOrder(), addr: 8}
	if !f.Class64() {
		l.addr = 4
	}
	var err error
	if s, ok := f.elf.Section(".debug_loc"); ok {
		if l.loc, err = f.elf.PagedSection(s); err != nil {
			return nil, err
		}
	}
	if s, ok := f.elf.Section(".debug_loclists"); ok {
		if l.loclists, err = f.elf.PagedSection(s); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// locCursor walks a location list through the page cache. Reading past
// the section sets eof and returns zeros.
type locCursor struct {
	r       *elffile.Paged
	memo    *elffile.PageMemo // the caller's (nil: none)
	off     uint64
	pg      []byte
	pgN     uint64
	eof     bool
	scratch []byte
}

func (c *locCursor) byte() byte {
	if c.eof || c.off >= c.r.Size() {
		c.eof = true
		return 0
	}
	if n := c.off / elffile.PageSize; c.pg == nil || n != c.pgN {
		pg, err := c.r.PageVia(c.memo, n)
		if err != nil || uint64(len(pg)) <= c.off%elffile.PageSize {
			c.eof = true
			return 0
		}
		c.pg, c.pgN = pg, n
	}
	b := c.pg[c.off%elffile.PageSize]
	c.off++
	return b
}

// bytes returns the next n bytes (valid until the next call).
func (c *locCursor) bytes(n uint64) []byte {
	if c.eof || n > c.r.Size()-min(c.off, c.r.Size()) {
		c.eof = true
		return nil
	}
	if uint64(cap(c.scratch)) < n {
		c.scratch = make([]byte, n)
	}
	b := c.scratch[:n]
	for i := range b {
		b[i] = c.byte()
	}
	return b
}

func (c *locCursor) uleb() uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		b := c.byte()
		if c.eof {
			return 0
		}
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		if b&0x80 == 0 {
			return v
		}
	}
}

func (c *locCursor) addr(size int, order binary.ByteOrder) uint64 {
	b := c.bytes(uint64(size))
	if c.eof {
		return 0
	}
	if size == 8 {
		return order.Uint64(b)
	}
	return uint64(order.Uint32(b))
}

// Exprs calls fn with each location expression of the list at off, in
// order; fn returns false to stop. v5 selects the .debug_loclists format.
// The expression slice is valid only during the call. m, if not nil, is
// the calling goroutine's memo of the pages it read last.
func (l *LocLists) Exprs(m *elffile.PageMemo, off uint64, v5 bool, fn func(expr []byte) bool) {
	if v5 {
		l.exprs5(m, off, fn)
		return
	}
	if l.loc == nil {
		return
	}
	c := &locCursor{r: l.loc, memo: m, off: off}
	var expr []byte
	for {
		lo := c.addr(l.addr, l.order)
		hi := c.addr(l.addr, l.order)
		if c.eof || lo == 0 && hi == 0 {
			return
		}
		if (l.addr == 8 && lo == ^uint64(0)) || (l.addr == 4 && lo == 0xffffffff) {
			continue // base address selection
		}
		n := c.bytes(2)
		if c.eof {
			return
		}
		e := c.bytes(uint64(l.order.Uint16(n)))
		if c.eof {
			return
		}
		expr = append(expr[:0], e...)
		if !fn(expr) {
			return
		}
	}
}

func (l *LocLists) exprs5(m *elffile.PageMemo, off uint64, fn func(expr []byte) bool) {
	if l.loclists == nil {
		return
	}
	c := &locCursor{r: l.loclists, memo: m, off: off}
	var expr []byte
	for {
		kind := c.byte()
		if c.eof {
			return
		}
		switch kind {
		case 0: // end_of_list
			return
		case 1: // base_addressx
			c.uleb()
			continue
		case 2, 3, 4: // startx_endx, startx_length, offset_pair
			c.uleb()
			c.uleb()
		case 5: // default_location
		case 6: // base_address
			c.bytes(uint64(l.addr))
			continue
		case 7: // start_end
			c.bytes(uint64(2 * l.addr))
		case 8: // start_length
			c.bytes(uint64(l.addr))
			c.uleb()
		default:
			return
		}
		n := c.uleb()
		e := c.bytes(n)
		if c.eof {
			return
		}
		expr = append(expr[:0], e...)
		if !fn(expr) {
			return
		}
	}
}

// LoclistsOffset resolves a DW_FORM_loclistx index through the offsets
// table at base (DW_AT_loclists_base).
func (l *LocLists) LoclistsOffset(base, index uint64) (uint64, bool) {
	if l.loclists == nil {
		return 0, false
	}
	p := base + 4*index
	v, err := l.loclists.Uint(p, 4, l.order)
	if err != nil || p < base {
		return 0, false
	}
	return base + v, true
}

// HasLoc reports whether the file has .debug_loc (DWARF 2-4 lists).
func (l *LocLists) HasLoc() bool { return l.loc != nil }

// HasLoclists reports whether the file has .debug_loclists (DWARF 5).
func (l *LocLists) HasLoclists() bool { return l.loclists != nil }
