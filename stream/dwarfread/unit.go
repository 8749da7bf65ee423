package dwarfread

import (
	"fmt"
	"io"
	"math"

	"github.com/btfstream/btfstream/arena"
	"github.com/btfstream/btfstream/stream/elffile"
)

// Unit types (DW_UT_*). DWARF 2-4 units of .debug_info report UTCompile and
// those of .debug_types report UTType.
const (
	UTCompile      = 0x01
	UTType         = 0x02
	UTPartial      = 0x03
	UTSkeleton     = 0x04
	UTSplitCompile = 0x05
	UTSplitType    = 0x06
)

// unitHeader is a parsed unit header.
type unitHeader struct {
	off       uint64 // section offset of the unit
	total     uint64 // bytes of the unit, length field included
	hdrSize   uint32 // offset of the first DIE within the unit
	version   uint16
	unitType  uint8
	addrSize  uint8
	is64      bool
	abbrevOff uint64
	signature uint64 // type units; dwo id of skeleton units
	typeOff   uint64 // type units: unit-relative offset of the type DIE
}

// unitReader walks the units of one section in order, reading each whole
// unit into an arena's Bytes.
type unitReader struct {
	f       *File
	sec     *elffile.SectionHeader
	isTypes bool
	size    uint64
	off     uint64
	ra      io.ReaderAt // uncompressed section
	rs      io.Reader   // compressed section, read sequentially
	closer  io.Closer
	rl      *elffile.Relocator
}

func (f *File) newUnitReader(s *elffile.SectionHeader, isTypes bool) (*unitReader, error) {
	u := &unitReader{f: f, sec: s, isTypes: isTypes}
	if s.Compressed() {
		rc, size, err := f.elf.OpenStream(s)
		if err != nil {
			return nil, err
		}
		u.rs, u.closer, u.size = rc, rc, size
	} else {
		u.ra = f.elf.SectionReader(s)
		u.size = s.Size
		if s.Type == elffile.SHTNobits {
			u.size = 0
		}
	}
	if u.size > math.MaxUint32 {
		u.close()
		return nil, unsupportedErr(s.Name, 0, "section of %d bytes exceeds 4 GiB", u.size)
	}
	if f.elf.Relocatable() {
		rl, err := f.elf.NewRelocator(s)
		if err != nil {
			u.close()
			return nil, err
		}
		u.rl = rl
	}
	return u, nil
}

func (u *unitReader) close() {
	if u.closer != nil {
		u.closer.Close()
		u.closer = nil
	}
}

// read fills p with the section bytes at u.off+delta (sequential for a
// compressed section: delta must equal the bytes read so far in the unit).
func (u *unitReader) read(p []byte, at uint64) error {
	var err error
	if u.ra != nil {
		_, err = u.ra.ReadAt(p, int64(at))
	} else {
		_, err = io.ReadFull(u.rs, p)
	}
	if err != nil {
		return &elffile.Error{Section: u.sec.Name, Offset: at, Msg: fmt.Sprintf("read: %v", err), Err: elffile.ErrFormat}
	}
	return nil
}

// skip advances over n bytes already accounted in u.off.
func (u *unitReader) discard(n uint64) error {
	if u.rs == nil || n == 0 {
		return nil
	}
	if _, err := io.CopyN(io.Discard, u.rs, int64(n)); err != nil {
		return &elffile.Error{Section: u.sec.Name, Offset: u.off, Msg: fmt.Sprintf("read: %v", err), Err: elffile.ErrFormat}
	}
	return nil
}

// growBytes returns b resized to n bytes, keeping its first keep bytes.
// The size comes from a unit length already checked against the section
// size, which is itself bounded by the file size (or, for a compressed
// section, the data is produced as it is read, in bounded steps).
func growBytes(b []byte, keep, n uint64) []byte {
	if uint64(cap(b)) >= n {
		return b[:n]
	}
	nb := make([]byte, n)
	copy(nb, b[:keep])
	return nb
}

// fill reads unit bytes [from, to) into a.Bytes. From a file the size is
// bounded by the section, itself checked against the file size; from a
// compressed stream, whose size claim is untrusted, the buffer grows by at
// most 1 MiB beyond the data that actually arrived.
func (u *unitReader) fill(a *arena.Arena, from, to uint64) error {
	if u.ra != nil {
		a.Bytes = growBytes(a.Bytes, from, to)
		return u.read(a.Bytes[from:to], u.off+from)
	}
	for from < to {
		n := min(to-from, 1<<20)
		if uint64(cap(a.Bytes)) < from+n {
			// Grow geometrically, never past the claimed end.
			c := min(to, max(from+n, 2*uint64(cap(a.Bytes))))
			a.Bytes = growBytes(a.Bytes, from, c)
		}
		a.Bytes = a.Bytes[:from+n]
		if err := u.read(a.Bytes[from:from+n], u.off+from); err != nil {
			return err
		}
		from += n
	}
	return nil
}

// head reads the next unit's header and the first bytes of its body into
// a.Bytes. It returns the header and how many bytes of the unit are in
// a.Bytes. done is true at the end of the section.
func (u *unitReader) head(a *arena.Arena) (h unitHeader, have uint64, done bool, err error) {
	if u.off >= u.size {
		return h, 0, true, nil
	}
	h.off = u.off
	rest := u.size - u.off
	if rest < 4 {
		return h, 0, false, formatErr(u.sec.Name, u.off, "truncated unit length")
	}
	var lb [12]byte
	if err := u.read(lb[:4], u.off); err != nil {
		return h, 0, false, err
	}
	order := u.f.elf.Order
	length := uint64(order.Uint32(lb[:]))
	lenSize := uint64(4)
	switch {
	case length == 0xffffffff:
		if rest < 12 {
			return h, 0, false, formatErr(u.sec.Name, u.off, "truncated 64-bit unit length")
		}
		if err := u.read(lb[4:12], u.off+4); err != nil {
			return h, 0, false, err
		}
		length = order.Uint64(lb[4:])
		lenSize = 12
		h.is64 = true
	case length >= 0xfffffff0:
		return h, 0, false, formatErr(u.sec.Name, u.off, "reserved unit length %#x", length)
	}
	if length > rest-lenSize {
		return h, 0, false, formatErr(u.sec.Name, u.off, "unit length %#x exceeds the section (%#x bytes left)", length, rest-lenSize)
	}
	h.total = lenSize + length
	// Read the header and up to 16 KiB of DIEs: enough for the unit DIE,
	// so an excluded language is known before the body is read.
	// With relocations the unit is read whole: a relocated field must not
	// straddle two windows.
	have = min(h.total, 16<<10)
	if u.rl != nil {
		have = h.total
	}
	a.Bytes = growBytes(a.Bytes, 0, lenSize)
	copy(a.Bytes, lb[:lenSize])
	if err := u.fill(a, lenSize, have); err != nil {
		return h, 0, false, err
	}
	if u.rl != nil {
		if err := u.rl.Apply(a.Bytes[:have], u.off); err != nil {
			return h, 0, false, err
		}
	}
	if err := u.parseHeader(&h, a.Bytes[:have], lenSize); err != nil {
		return h, 0, false, err
	}
	return h, have, false, nil
}

// body reads the rest of the unit after head, then advances to the next.
func (u *unitReader) body(a *arena.Arena, h *unitHeader, have uint64) error {
	if have < h.total {
		if err := u.fill(a, have, h.total); err != nil {
			return err
		}
		if u.rl != nil {
			if err := u.rl.Apply(a.Bytes[have:h.total], u.off+have); err != nil {
				return err
			}
		}
	}
	u.off += h.total
	return nil
}

// skipUnit advances past a unit whose body was not read.
func (u *unitReader) skipUnit(h *unitHeader, have uint64) error {
	if u.rl != nil && have < h.total {
		// Keep the sorted relocation cursor in step.
		var scratch [0]byte
		if err := u.rl.Apply(scratch[:], u.off+h.total); err != nil {
			return err
		}
	}
	err := u.discard(h.total - have)
	u.off += h.total
	return err
}

func (u *unitReader) parseHeader(h *unitHeader, data []byte, lenSize uint64) error {
	b := makeBuf(u.sec.Name, u.off, u.f.elf.Order, data)
	b.pos = uint32(lenSize)
	h.version = b.u16()
	if b.err != nil {
		return b.err
	}
	if h.version < 2 || h.version > 5 {
		return unsupportedErr(u.sec.Name, u.off+lenSize, "DWARF version %d", h.version)
	}
	off := func() uint64 {
		if h.is64 {
			return b.u64()
		}
		return uint64(b.u32())
	}
	if h.version >= 5 {
		h.unitType = b.u8()
		h.addrSize = b.u8()
		h.abbrevOff = off()
		switch h.unitType {
		case UTSkeleton, UTSplitCompile:
			h.signature = b.u64()
		case UTType, UTSplitType:
			h.signature = b.u64()
			h.typeOff = off()
		case UTCompile, UTPartial:
		default:
			if b.err == nil {
				return unsupportedErr(u.sec.Name, u.off+lenSize+2, "unit type %#x", h.unitType)
			}
		}
	} else {
		h.unitType = UTCompile
		h.abbrevOff = off()
		h.addrSize = b.u8()
		if u.isTypes {
			h.unitType = UTType
			h.signature = b.u64()
			h.typeOff = off()
		}
	}
	if b.err != nil {
		return formatErr(u.sec.Name, u.off, "truncated unit header")
	}
	switch h.addrSize {
	case 1, 2, 4, 8:
	default:
		return formatErr(u.sec.Name, u.off, "bad address size %d", h.addrSize)
	}
	h.hdrSize = b.pos
	if uint64(h.hdrSize) > h.total {
		return formatErr(u.sec.Name, u.off, "unit header longer than the unit")
	}
	return nil
}

// LargestUnit returns the length of the largest unit of .debug_info,
// reading only the unit headers (0 if there is none, or if the section is
// compressed: its units are only known once inflated).
func (f *File) LargestUnit() (uint64, error) {
	var largest uint64
	err := f.scanUnitHeaders(func(_, total uint64) { largest = max(largest, total) })
	return largest, err
}

// UnitStarts returns the section offsets of the units of .debug_info in
// file order, reading only the unit headers (nil if the section is
// compressed). Progress reports count units with it.
func (f *File) UnitStarts() ([]uint64, error) {
	var starts []uint64
	err := f.scanUnitHeaders(func(off, _ uint64) { starts = append(starts, off) })
	return starts, err
}

// scanUnitHeaders calls fn with the offset and the length (header
// included) of each unit of .debug_info, up to the first malformed one
// (the reader reports those itself).
func (f *File) scanUnitHeaders(fn func(off, total uint64)) error {
	s := f.info
	if s == nil || s.Compressed() {
		return nil
	}
	r := f.elf.SectionReader(s)
	var hdr [12]byte
	order := f.ByteOrder()
	for off := uint64(0); off+4 <= s.Size; {
		if _, err := r.ReadAt(hdr[:4], int64(off)); err != nil {
			return &elffile.Error{File: f.name, Section: s.Name, Offset: off, Msg: "unit header", Err: elffile.ErrFormat}
		}
		n, hs := uint64(order.Uint32(hdr[:4])), uint64(4)
		if n == 0xffffffff {
			if off+12 > s.Size {
				break
			}
			if _, err := r.ReadAt(hdr[:12], int64(off)); err != nil {
				return &elffile.Error{File: f.name, Section: s.Name, Offset: off, Msg: "unit header", Err: elffile.ErrFormat}
			}
			n, hs = order.Uint64(hdr[4:]), 12
		}
		if n == 0 || n > s.Size-off-hs {
			break // the reader reports malformed units itself
		}
		fn(off, n+hs)
		off += n + hs
	}
	return nil
}
