package stream

// ELF section writer: puts a .BTF section into an ELF file the way
// `pahole -J` does (pahole hands the raw BTF to `llvm-objcopy
// --add-section .BTF=FILE`, or overwrites an existing .BTF through libelf).
//
// The input is read through an io.ReaderAt and copied range by range, never
// loaded whole. Only the ELF header, the section header table and
// .shstrtab are held in memory. The layout rules:
//
//   - An existing .BTF that lies inside a segment (a linked vmlinux after
//     kbuild's objcopy made it SHF_ALLOC) is never moved: new data that fits
//     is written in place, the rest of the old range zeroed and sh_size
//     updated; data that does not fit is refused.
//   - Otherwise (non-allocated, or absent) the file is copied up to the end
//     of its last fixed byte ("cut"), then .shstrtab (only if the name had to
//     be added), the section data and the section header table are written
//     after it: the same layout llvm-objcopy --add-section gives. An old
//     non-allocated .BTF below the cut is overwritten in place if the new
//     data fits, else left as dead bytes. Running twice gives the same file.
//   - Bytes past the last section, segment and header table (a module
//     signature, say) are not kept: they would not describe the new file.
//   - A new section is appended as the last section header, so no section
//     index (sh_link, sh_info, st_shndx) changes. It is SHT_PROGBITS, flags
//     0, sh_addralign 1, as llvm-objcopy and GNU objcopy make it.

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrSectionFull reports new section data that does not fit where the old
// data must stay (inside a segment).
var ErrSectionFull = errors.New("does not fit in place, and a section inside a segment cannot move")

// Bounds on what the writer loads, so that a crafted header cannot make it
// allocate more than a few hundred megabytes (the file size bounds them as
// well). Real files: a vmlinux has ~60 sections, a -ffunction-sections
// object some 100k, .shstrtab a few MB at most.
const (
	maxOutSections = 1 << 22
	maxOutShstrtab = 256 << 20
)

// elfOutFile is the writer's view of an ELF file: the raw ELF header, the
// program header file ranges and the section headers.
type elfOutFile struct {
	name     string
	size     uint64
	class64  bool
	bo       binary.ByteOrder
	typ      uint16
	ehdr     []byte // the raw ELF header, 52 or 64 bytes
	phoff    uint64
	phsize   uint64 // size of the program header table in bytes
	shoff    uint64
	shstrndx uint32
	phdrs    []elfOutPhdr
	shdrs    []elfOutShdr
	shstrtab []byte
}

type elfOutPhdr struct {
	typ            uint32
	offset, filesz uint64
}

// elfOutShdr is one section header, widened to 64 bits.
type elfOutShdr struct {
	name, typ      uint32
	flags, addr    uint64
	offset, size   uint64
	link, info     uint32
	align, entsize uint64
}

// fileBytes is how many bytes of the file the section occupies.
func (s *elfOutShdr) fileBytes() uint64 {
	if s.typ == uint32(elf.SHT_NOBITS) || s.typ == uint32(elf.SHT_NULL) {
		return 0
	}
	return s.size
}

func (e *elfOutFile) shentsize() uint64 {
	if e.class64 {
		return 64
	}
	return 40
}

func (e *elfOutFile) errAt(section string, off uint64, format string, a ...any) error {
	return &Error{File: e.name, Section: section, Offset: off, Msg: fmt.Sprintf(format, a...), Err: ErrFormat}
}

// readFull reads len(p) bytes at off, naming the section on a short read.
func (e *elfOutFile) readFull(r io.ReaderAt, p []byte, off uint64, section string) error {
	if off > e.size || uint64(len(p)) > e.size-off {
		return e.errAt(section, off, "%d bytes needed past the end of the file (size %#x)", len(p), e.size)
	}
	n, err := r.ReadAt(p, int64(off))
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &Error{File: e.name, Section: section, Offset: off, Msg: "read", Err: err}
}

// readELFLayout parses what the writer needs from r (size bytes). name is
// used in errors.
func readELFLayout(name string, r io.ReaderAt, size int64) (*elfOutFile, error) {
	e := &elfOutFile{name: name, size: uint64(size)}
	var id [elf.EI_NIDENT]byte
	if err := e.readFull(r, id[:], 0, "ELF header"); err != nil {
		return nil, err
	}
	if string(id[:4]) != elf.ELFMAG {
		return nil, e.errAt("ELF header", 0, "not an ELF file (bad magic)")
	}
	switch elf.Class(id[elf.EI_CLASS]) {
	case elf.ELFCLASS32:
	case elf.ELFCLASS64:
		e.class64 = true
	default:
		return nil, e.errAt("ELF header", elf.EI_CLASS, "unknown ELF class %d", id[elf.EI_CLASS])
	}
	switch elf.Data(id[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		e.bo = binary.LittleEndian
	case elf.ELFDATA2MSB:
		e.bo = binary.BigEndian
	default:
		return nil, e.errAt("ELF header", elf.EI_DATA, "unknown ELF data encoding %d", id[elf.EI_DATA])
	}
	ehsize := 52
	if e.class64 {
		ehsize = 64
	}
	e.ehdr = make([]byte, ehsize)
	if err := e.readFull(r, e.ehdr, 0, "ELF header"); err != nil {
		return nil, err
	}
	o, h := e.bo, e.ehdr
	e.typ = o.Uint16(h[16:])
	var phentsize, phnum, shentsize, shnum uint64
	if e.class64 {
		e.phoff, e.shoff = o.Uint64(h[32:]), o.Uint64(h[40:])
		phentsize, phnum = uint64(o.Uint16(h[54:])), uint64(o.Uint16(h[56:]))
		shentsize, shnum = uint64(o.Uint16(h[58:])), uint64(o.Uint16(h[60:]))
		e.shstrndx = uint32(o.Uint16(h[62:]))
	} else {
		e.phoff, e.shoff = uint64(o.Uint32(h[28:])), uint64(o.Uint32(h[32:]))
		phentsize, phnum = uint64(o.Uint16(h[42:])), uint64(o.Uint16(h[44:]))
		shentsize, shnum = uint64(o.Uint16(h[46:])), uint64(o.Uint16(h[48:]))
		e.shstrndx = uint32(o.Uint16(h[50:]))
	}
	if e.shoff == 0 {
		return nil, e.errAt("ELF header", 0, "no section header table")
	}
	if shentsize != e.shentsize() {
		return nil, e.errAt("ELF header", 0, "e_shentsize %d, want %d", shentsize, e.shentsize())
	}

	// Section 0 carries the real counts under extended numbering.
	var first [64]byte
	if err := e.readFull(r, first[:shentsize], e.shoff, "section headers"); err != nil {
		return nil, err
	}
	s0 := e.decodeShdr(first[:])
	if shnum == 0 {
		shnum = s0.size
	}
	if e.shstrndx == uint32(elf.SHN_XINDEX) {
		e.shstrndx = s0.link
	}
	if phnum == 0xffff {
		phnum = uint64(s0.info)
	}
	if shnum > maxOutSections {
		return nil, e.errAt("section headers", e.shoff, "%d section headers, more than the %d this writer handles", shnum, maxOutSections)
	}
	if shnum == 0 || e.shoff > e.size || shnum > (e.size-e.shoff)/shentsize {
		return nil, e.errAt("section headers", e.shoff, "%d section headers of %d bytes do not fit in the file (size %#x)", shnum, shentsize, e.size)
	}
	if e.shstrndx == 0 || uint64(e.shstrndx) >= shnum {
		return nil, e.errAt("ELF header", 0, "section name table index %d outside [1, %d)", e.shstrndx, shnum)
	}

	// Section headers, read in chunks; the count is bounded by the file
	// size checked above.
	e.shdrs = make([]elfOutShdr, 0, min(shnum, 1<<16))
	chunk := make([]byte, 256*shentsize)
	for i := uint64(0); i < shnum; {
		k := min(shnum-i, 256)
		p := chunk[:k*shentsize]
		off := e.shoff + i*shentsize
		if err := e.readFull(r, p, off, "section headers"); err != nil {
			return nil, err
		}
		for j := uint64(0); j < k; j++ {
			s := e.decodeShdr(p[j*shentsize:])
			if n := s.fileBytes(); n > 0 && (s.offset > e.size || n > e.size-s.offset) {
				return nil, e.errAt("section headers", off+j*shentsize, "section %d [%#x, +%#x) exceeds the file (size %#x)", i+j, s.offset, n, e.size)
			}
			e.shdrs = append(e.shdrs, s)
		}
		i += k
	}

	if e.phoff != 0 && phnum > 0 {
		if phentsize < 32 || (e.class64 && phentsize < 56) {
			return nil, e.errAt("ELF header", 0, "e_phentsize %d too small", phentsize)
		}
		if e.phoff > e.size || phnum > (e.size-e.phoff)/phentsize {
			return nil, e.errAt("program headers", e.phoff, "%d program headers of %d bytes do not fit in the file (size %#x)", phnum, phentsize, e.size)
		}
		if phnum > maxOutSections {
			return nil, e.errAt("program headers", e.phoff, "%d program headers, more than the %d this writer handles", phnum, maxOutSections)
		}
		e.phsize = phnum * phentsize
		p := make([]byte, e.phsize)
		if err := e.readFull(r, p, e.phoff, "program headers"); err != nil {
			return nil, err
		}
		for i := uint64(0); i < phnum; i++ {
			q := p[i*phentsize:]
			var ph elfOutPhdr
			ph.typ = o.Uint32(q)
			if e.class64 {
				ph.offset, ph.filesz = o.Uint64(q[8:]), o.Uint64(q[32:])
			} else {
				ph.offset, ph.filesz = uint64(o.Uint32(q[4:])), uint64(o.Uint32(q[16:]))
			}
			if ph.filesz > 0 && (ph.offset > e.size || ph.filesz > e.size-ph.offset) {
				return nil, e.errAt("program headers", e.phoff+i*phentsize, "segment %d [%#x, +%#x) exceeds the file (size %#x)", i, ph.offset, ph.filesz, e.size)
			}
			e.phdrs = append(e.phdrs, ph)
		}
	}

	st := &e.shdrs[e.shstrndx]
	if st.typ != uint32(elf.SHT_STRTAB) {
		return nil, e.errAt("section headers", e.shoff+uint64(e.shstrndx)*shentsize, "section name table %d has type %d, not SHT_STRTAB", e.shstrndx, st.typ)
	}
	if st.size > maxOutShstrtab {
		return nil, e.errAt("section headers", e.shoff+uint64(e.shstrndx)*shentsize, "section name table of %d bytes, more than the %d this writer handles", st.size, maxOutShstrtab)
	}
	e.shstrtab = make([]byte, st.size) // bounded by the file size, checked above
	if err := e.readFull(r, e.shstrtab, st.offset, ".shstrtab"); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *elfOutFile) decodeShdr(p []byte) elfOutShdr {
	o := e.bo
	if e.class64 {
		return elfOutShdr{
			name: o.Uint32(p), typ: o.Uint32(p[4:]), flags: o.Uint64(p[8:]), addr: o.Uint64(p[16:]),
			offset: o.Uint64(p[24:]), size: o.Uint64(p[32:]), link: o.Uint32(p[40:]), info: o.Uint32(p[44:]),
			align: o.Uint64(p[48:]), entsize: o.Uint64(p[56:]),
		}
	}
	return elfOutShdr{
		name: o.Uint32(p), typ: o.Uint32(p[4:]), flags: uint64(o.Uint32(p[8:])), addr: uint64(o.Uint32(p[12:])),
		offset: uint64(o.Uint32(p[16:])), size: uint64(o.Uint32(p[20:])), link: o.Uint32(p[24:]), info: o.Uint32(p[28:]),
		align: uint64(o.Uint32(p[32:])), entsize: uint64(o.Uint32(p[36:])),
	}
}

func (e *elfOutFile) encodeShdr(p []byte, s *elfOutShdr) {
	o := e.bo
	o.PutUint32(p, s.name)
	o.PutUint32(p[4:], s.typ)
	if e.class64 {
		o.PutUint64(p[8:], s.flags)
		o.PutUint64(p[16:], s.addr)
		o.PutUint64(p[24:], s.offset)
		o.PutUint64(p[32:], s.size)
		o.PutUint32(p[40:], s.link)
		o.PutUint32(p[44:], s.info)
		o.PutUint64(p[48:], s.align)
		o.PutUint64(p[56:], s.entsize)
		return
	}
	o.PutUint32(p[8:], uint32(s.flags))
	o.PutUint32(p[12:], uint32(s.addr))
	o.PutUint32(p[16:], uint32(s.offset))
	o.PutUint32(p[20:], uint32(s.size))
	o.PutUint32(p[24:], s.link)
	o.PutUint32(p[28:], s.info)
	o.PutUint32(p[32:], uint32(s.align))
	o.PutUint32(p[36:], uint32(s.entsize))
}

// sectionName returns the name of section i ("" if out of the table).
func (e *elfOutFile) sectionName(i int) string {
	off := uint64(e.shdrs[i].name)
	if off >= uint64(len(e.shstrtab)) {
		return ""
	}
	s := e.shstrtab[off:]
	if n := bytes.IndexByte(s, 0); n >= 0 {
		s = s[:n]
	}
	return string(s)
}

// findSection returns the index of the first section called name, or -1.
func (e *elfOutFile) findSection(name string) int {
	for i := 1; i < len(e.shdrs); i++ {
		if e.sectionName(i) == name {
			return i
		}
	}
	return -1
}

// segmentOf returns the index of a segment whose file bytes overlap
// section s, or -1.
func (e *elfOutFile) segmentOf(s *elfOutShdr) int {
	n := s.fileBytes()
	if n == 0 {
		return -1
	}
	for i, p := range e.phdrs {
		if p.filesz > 0 && s.offset < p.offset+p.filesz && p.offset < s.offset+n {
			return i
		}
	}
	return -1
}

// fixed reports whether section s must stay where it is: it is in a
// segment, or allocated in a linked (non-relocatable) file.
func (e *elfOutFile) fixed(s *elfOutShdr) bool {
	return e.segmentOf(s) >= 0 || (e.typ != uint16(elf.ET_REL) && s.flags&uint64(elf.SHF_ALLOC) != 0)
}

// room returns how many bytes fixed section i can hold without moving: up
// to the next section in the file or in memory and the end of its segment
// (a shrunk section can grow back), or its own size outside a segment.
func (e *elfOutFile) room(i int) uint64 {
	sec := &e.shdrs[i]
	seg := e.segmentOf(sec)
	if seg < 0 {
		return sec.size
	}
	room := e.phdrs[seg].offset + e.phdrs[seg].filesz - sec.offset
	alloc := sec.flags&uint64(elf.SHF_ALLOC) != 0
	for j := 1; j < len(e.shdrs); j++ {
		s := &e.shdrs[j]
		if j == i {
			continue
		}
		if s.fileBytes() > 0 && s.offset >= sec.offset {
			room = min(room, s.offset-sec.offset)
		}
		if alloc && s.flags&uint64(elf.SHF_ALLOC) != 0 && s.addr >= sec.addr {
			room = min(room, s.addr-sec.addr)
		}
	}
	for _, t := range [][2]uint64{{0, uint64(len(e.ehdr))}, {e.phoff, e.phsize}, {e.shoff, uint64(len(e.shdrs)) * e.shentsize()}} {
		if t[1] > 0 && t[0] >= sec.offset {
			room = min(room, t[0]-sec.offset)
		}
	}
	return max(room, sec.size)
}

// elfPiece is bytes to write at a file offset of the output. A nil data
// with zeros > 0 writes that many zero bytes.
type elfPiece struct {
	off   uint64
	data  []byte
	zeros uint64
}

// elfPlan says how to build the output: copy the input's [0, cut), then
// write the pieces.
type elfPlan struct {
	cut    uint64
	pieces []elfPiece
	size   uint64 // final file size
	moved  bool   // the section's data was placed at the end
}

func alignUp(x, a uint64) uint64 { return (x + a - 1) &^ (a - 1) }

// planSection computes how to put data into section name of e.
func (e *elfOutFile) planSection(name string, data []byte) (*elfPlan, error) {
	shentsize := e.shentsize()
	idx := e.findSection(name)
	existing := idx >= 0
	p := &elfPlan{}
	var sec elfOutShdr
	if existing {
		sec = e.shdrs[idx]
		if sec.typ == uint32(elf.SHT_NOBITS) {
			return nil, &Error{File: e.name, Msg: fmt.Sprintf("section %s (%d) is SHT_NOBITS and cannot hold data", name, idx), Err: ErrFormat}
		}
	}

	if idx >= 0 && e.fixed(&sec) {
		// In place or not at all: moving it would break the segment.
		seg := e.segmentOf(&sec)
		where := "allocated (SHF_ALLOC)"
		if seg >= 0 {
			where = fmt.Sprintf("inside segment %d [%#x, +%#x)", seg, e.phdrs[seg].offset, e.phdrs[seg].filesz)
		}
		room := e.room(idx)
		if uint64(len(data)) > room {
			return nil, &Error{File: e.name, Err: ErrSectionFull, Msg: fmt.Sprintf(
				"section %s (%d) at file offset %#x is %s and has room for %d bytes, the new data has %d (write a detached file with --btf_encode_detached instead)",
				name, idx, sec.offset, where, room, len(data))}
		}
		p.cut = e.size
		p.size = e.size
		p.pieces = append(p.pieces, elfPiece{off: sec.offset, data: data})
		if sec.size > uint64(len(data)) {
			p.pieces = append(p.pieces, elfPiece{off: sec.offset + uint64(len(data)), zeros: sec.size - uint64(len(data))})
		}
		sec.size = uint64(len(data))
		sec.flags &^= uint64(elf.SHF_COMPRESSED)
		hdr := make([]byte, shentsize)
		e.encodeShdr(hdr, &sec)
		p.pieces = append(p.pieces, elfPiece{off: e.shoff + uint64(idx)*shentsize, data: hdr})
		return p, nil
	}

	shdrs := append([]elfOutShdr(nil), e.shdrs...)
	strndx := e.shstrndx
	strtab := e.shstrtab
	growStr := false
	if idx < 0 {
		// Any "name\0" in the table serves, even as the tail of a longer
		// name (".rel.BTF\0").
		at := bytes.Index(strtab, append([]byte(name), 0))
		if at < 0 {
			at = len(strtab)
			strtab = append(append(append([]byte(nil), strtab...), name...), 0)
			growStr = true
			if e.fixed(&e.shdrs[strndx]) {
				return nil, &Error{File: e.name, Msg: fmt.Sprintf("section name table (%d) is allocated and cannot grow to add %q", strndx, name), Err: ErrFormat}
			}
		}
		sec = elfOutShdr{name: uint32(at), typ: uint32(elf.SHT_PROGBITS), align: 1}
		idx = len(shdrs)
		shdrs = append(shdrs, sec)
	}

	// cut: the end of everything that stays where it is.
	cut := uint64(len(e.ehdr))
	if e.phsize > 0 {
		cut = max(cut, e.phoff+e.phsize)
	}
	for _, ph := range e.phdrs {
		cut = max(cut, ph.offset+ph.filesz)
	}
	for i := 1; i < len(e.shdrs); i++ {
		s := &e.shdrs[i]
		if i == idx || (growStr && uint32(i) == strndx) || s.typ == uint32(elf.SHT_NOBITS) {
			continue
		}
		cut = max(cut, s.offset+s.fileBytes())
	}
	// An old section header table below the cut is left as dead bytes.
	p.cut = cut
	end := cut

	if growStr {
		s := &shdrs[strndx]
		end = alignUp(end, max(1, min(s.align, 64)))
		p.pieces = append(p.pieces, elfPiece{off: end, data: strtab})
		s.offset, s.size = end, uint64(len(strtab))
		end += s.size
	}
	s := &shdrs[idx]
	s.flags &^= uint64(elf.SHF_COMPRESSED)
	if old := sec; existing && old.size > 0 && old.offset+old.size <= cut && uint64(len(data)) <= old.size {
		// An old non-allocated section below the cut: overwrite in place.
		p.pieces = append(p.pieces, elfPiece{off: old.offset, data: data})
		if rest := old.size - uint64(len(data)); rest > 0 {
			p.pieces = append(p.pieces, elfPiece{off: old.offset + uint64(len(data)), zeros: rest})
		}
		s.size = uint64(len(data))
	} else {
		end = alignUp(end, 4)
		p.pieces = append(p.pieces, elfPiece{off: end, data: data})
		s.offset, s.size = end, uint64(len(data))
		end += s.size
		p.moved = true
	}

	// The section header table, with extended numbering if needed.
	shnum := uint64(len(shdrs))
	if shnum >= uint64(elf.SHN_LORESERVE) {
		shdrs[0].size = shnum
	} else {
		shdrs[0].size = 0
	}
	if strndx >= uint32(elf.SHN_LORESERVE) {
		shdrs[0].link = strndx
	} else {
		shdrs[0].link = 0
	}
	if e.class64 {
		end = alignUp(end, 8)
	} else {
		end = alignUp(end, 4)
	}
	shoff := end
	table := make([]byte, shnum*shentsize)
	for i := range shdrs {
		e.encodeShdr(table[uint64(i)*shentsize:], &shdrs[i])
	}
	p.pieces = append(p.pieces, elfPiece{off: shoff, data: table})
	end += uint64(len(table))

	// The ELF header: e_shoff, e_shnum, e_shstrndx.
	h := append([]byte(nil), e.ehdr...)
	o := e.bo
	eShnum, eStrndx := uint16(shnum), uint16(strndx)
	if shnum >= uint64(elf.SHN_LORESERVE) {
		eShnum = 0
	}
	if strndx >= uint32(elf.SHN_LORESERVE) {
		eStrndx = uint16(elf.SHN_XINDEX)
	}
	if e.class64 {
		o.PutUint64(h[40:], shoff)
		o.PutUint16(h[60:], eShnum)
		o.PutUint16(h[62:], eStrndx)
	} else {
		if end > 1<<32-1 {
			return nil, &Error{File: e.name, Msg: fmt.Sprintf("ELF32 output with %s would be %d bytes, past 4 GiB", name, end), Err: ErrFormat}
		}
		o.PutUint32(h[32:], uint32(shoff))
		o.PutUint16(h[48:], eShnum)
		o.PutUint16(h[50:], eStrndx)
	}
	p.pieces = append(p.pieces, elfPiece{off: 0, data: h})
	p.size = end
	return p, nil
}
