package elfwrite

// ELF section writer: puts a .BTF section into an ELF file the way
// `pahole -J` does (pahole hands the raw BTF to `llvm-objcopy
// --add-section .BTF=FILE`, or overwrites an existing .BTF through libelf).
//
// The input is read through an io.ReaderAt and copied range by range, never
// loaded whole. Only the ELF header, the section header table and
// .shstrtab are held in memory. The layout rules:
//
//   - An existing .BTF that is fixed (inside a segment, or SHF_ALLOC in a
//     linked file) takes new data that fits in place: written there, the
//     rest of the old range zeroed, sh_size updated.
//   - A fixed .BTF too small for the data whose bytes no segment loads
//     (ld.lld's empty .BTF output section in .tmp_vmlinux1) is moved: the
//     data goes to the end as below, the header becomes a new section's
//     (flags 0, address 0, alignment 1; name, type and index kept) and the
//     old slot is left as it was.
//   - A fixed .BTF too small for the data whose bytes a segment loads is
//     refused (ErrSectionFull): moving it would leave the loaded image
//     holding the old data.
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
	"errors"
	"fmt"
	"io"

	"github.com/btfstream/btfstream/stream/elffile"
)

// ErrSectionFull reports new section data that does not fit where the old
// data must stay (inside a segment).
var ErrSectionFull = errors.New("does not fit in place, and a section inside a segment cannot move")

// layout is the writer's view of an ELF file: what elffile parsed, plus
// the raw ELF header it rewrites.
type layout struct {
	*elffile.File
	ehdr []byte // the raw ELF header, 52 or 64 bytes
}

func (e *layout) shentsize() uint64 {
	if e.Class64 {
		return 64
	}
	return 40
}

func (e *layout) errAt(section string, off uint64, format string, a ...any) error {
	return &elffile.Error{File: e.Name(), Section: section, Offset: off, Msg: fmt.Sprintf(format, a...), Err: elffile.ErrFormat}
}

func (e *layout) phsize() uint64 { return uint64(len(e.Progs)) * uint64(e.PhEntSize) }

// readLayout parses what the writer needs from r (size bytes) with
// elffile, and checks what rewriting the file requires beyond reading it:
// a section header table of standard entries, a section name table.
// name is used in errors.
func readLayout(name string, r io.ReaderAt, size int64) (*layout, error) {
	f, err := elffile.New(name, r, size, elffile.Options{CacheBytes: -1})
	if err != nil {
		return nil, err
	}
	e := &layout{File: f}
	if f.ShOff == 0 || len(f.Sections) == 0 {
		return nil, e.errAt("ELF header", 0, "no section header table")
	}
	if uint64(f.ShEntSize) != e.shentsize() {
		return nil, e.errAt("ELF header", 0, "e_shentsize %d, want %d", f.ShEntSize, e.shentsize())
	}
	if f.ShStrNdx == 0 {
		return nil, e.errAt("ELF header", 0, "no section name table")
	}
	if st := &f.Sections[f.ShStrNdx]; st.Type != elffile.SHTStrtab {
		return nil, e.errAt("section headers", f.ShOff+uint64(f.ShStrNdx)*e.shentsize(), "section name table %d has type %d, not SHT_STRTAB", f.ShStrNdx, st.Type)
	}
	e.ehdr = make([]byte, 52)
	if f.Class64 {
		e.ehdr = make([]byte, 64)
	}
	if _, err := r.ReadAt(e.ehdr, 0); err != nil {
		return nil, elffile.WithFile(name, elffile.ReadErr("ELF header", 0, err))
	}
	return e, nil
}

// findSection returns the index of the first section called name, or -1.
func (e *layout) findSection(name string) int {
	if s, ok := e.Section(name); ok && s.Index > 0 {
		return int(s.Index)
	}
	return -1
}

// segmentOf returns the index of a segment whose file bytes overlap
// section s, or -1.
func (e *layout) segmentOf(s *elffile.SectionHeader) int {
	n := s.FileBytes()
	if n == 0 {
		return -1
	}
	for i, p := range e.Progs {
		if p.Filesz > 0 && s.Offset < p.Offset+p.Filesz && p.Offset < s.Offset+n {
			return i
		}
	}
	return -1
}

// fixed reports whether section s must stay where it is: it is in a
// segment, or allocated in a linked (non-relocatable) file.
func (e *layout) fixed(s *elffile.SectionHeader) bool {
	return e.segmentOf(s) >= 0 || (e.Type != elffile.ETRel && s.Flags&elffile.SHFAlloc != 0)
}

// room returns how many bytes fixed section i can hold without moving: up
// to the next section in the file or in memory and the end of its segment
// (a shrunk section can grow back), or its own size outside a segment.
func (e *layout) room(i int) uint64 {
	sec := &e.Sections[i]
	seg := e.segmentOf(sec)
	if seg < 0 {
		return sec.Size
	}
	room := e.Progs[seg].Offset + e.Progs[seg].Filesz - sec.Offset
	alloc := sec.Flags&elffile.SHFAlloc != 0
	for j := 1; j < len(e.Sections); j++ {
		s := &e.Sections[j]
		if j == i {
			continue
		}
		if s.FileBytes() > 0 && s.Offset >= sec.Offset {
			room = min(room, s.Offset-sec.Offset)
		}
		if alloc && s.Flags&elffile.SHFAlloc != 0 && s.Addr >= sec.Addr {
			room = min(room, s.Addr-sec.Addr)
		}
	}
	for _, t := range [][2]uint64{{0, uint64(len(e.ehdr))}, {e.PhOff, e.phsize()}, {e.ShOff, uint64(len(e.Sections)) * e.shentsize()}} {
		if t[1] > 0 && t[0] >= sec.Offset {
			room = min(room, t[0]-sec.Offset)
		}
	}
	return max(room, sec.Size)
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

// planInPlace writes data over fixed section idx (whose header is sec):
// the file keeps its size, the rest of the old data is zeroed.
func (e *layout) planInPlace(idx int, sec elffile.SectionHeader, data []byte) *elfPlan {
	shentsize := e.shentsize()
	p := &elfPlan{cut: e.Size(), size: e.Size()}
	p.pieces = append(p.pieces, elfPiece{off: sec.Offset, data: data})
	if sec.Size > uint64(len(data)) {
		p.pieces = append(p.pieces, elfPiece{off: sec.Offset + uint64(len(data)), zeros: sec.Size - uint64(len(data))})
	}
	sec.Size = uint64(len(data))
	sec.Flags &^= elffile.SHFCompressed
	hdr := make([]byte, shentsize)
	e.EncodeShdr(hdr, &sec)
	p.pieces = append(p.pieces, elfPiece{off: e.ShOff + uint64(idx)*shentsize, data: hdr})
	return p
}

func alignUp(x, a uint64) uint64 { return (x + a - 1) &^ (a - 1) }

// planSection computes how to put data into section name of e.
func (e *layout) planSection(name string, data []byte) (*elfPlan, error) {
	shentsize := e.shentsize()
	idx := e.findSection(name)
	existing := idx >= 0
	p := &elfPlan{}
	var sec elffile.SectionHeader
	if existing {
		sec = e.Sections[idx]
		if sec.Type == elffile.SHTNobits {
			return nil, &elffile.Error{File: e.Name(), Msg: fmt.Sprintf("section %s (%d) is SHT_NOBITS and cannot hold data", name, idx), Err: elffile.ErrFormat}
		}
	}

	moving := false
	if idx >= 0 && e.fixed(&sec) {
		room := e.room(idx)
		if uint64(len(data)) <= room {
			return e.planInPlace(idx, sec, data), nil
		}
		if seg := e.segmentOf(&sec); seg >= 0 {
			// Its bytes are part of what the segment loads: moving the
			// section would leave the loaded image with the old data
			// under the section's symbols.
			return nil, &elffile.Error{File: e.Name(), Err: ErrSectionFull, Msg: fmt.Sprintf(
				"section %s (%d) at file offset %#x holds %d bytes of segment %d [%#x, +%#x) and has room for %d, the new data has %d "+
					"(encode the file before %s is made allocated, e.g. the linked file whose %s is empty, or write a detached file with --btf_encode_detached and link it in)",
				name, idx, sec.Offset, sec.Size, seg, e.Progs[seg].Offset, e.Progs[seg].Filesz, room, len(data), name, name)}
		}
		// Allocated but holding no byte of any segment (ld.lld keeps an
		// empty .BTF output section in the text segment): nothing loaded
		// depends on it, so it is moved to the end as a plain section.
		moving = true
	}

	shdrs := append([]elffile.SectionHeader(nil), e.Sections...)
	strndx := e.ShStrNdx
	strtab := e.Shstrtab
	growStr := false
	if idx < 0 {
		// Any "name\0" in the table serves, even as the tail of a longer
		// name (".rel.BTF\0").
		at := bytes.Index(strtab, append([]byte(name), 0))
		if at < 0 {
			at = len(strtab)
			strtab = append(append(append([]byte(nil), strtab...), name...), 0)
			growStr = true
			if e.fixed(&e.Sections[strndx]) {
				return nil, &elffile.Error{File: e.Name(), Msg: fmt.Sprintf("section name table (%d) is allocated and cannot grow to add %q", strndx, name), Err: elffile.ErrFormat}
			}
		}
		sec = elffile.SectionHeader{Name: name, NameOff: uint32(at), Index: uint32(len(shdrs)), Type: elffile.SHTProgbits, Addralign: 1}
		idx = len(shdrs)
		shdrs = append(shdrs, sec)
	}

	// cut: the end of everything that stays where it is.
	cut := uint64(len(e.ehdr))
	if e.phsize() > 0 {
		cut = max(cut, e.PhOff+e.phsize())
	}
	for _, ph := range e.Progs {
		cut = max(cut, ph.Offset+ph.Filesz)
	}
	for i := 1; i < len(e.Sections); i++ {
		s := &e.Sections[i]
		if i == idx || (growStr && uint32(i) == strndx) || s.Type == elffile.SHTNobits {
			continue
		}
		cut = max(cut, s.Offset+s.FileBytes())
	}
	// An old section header table below the cut is left as dead bytes.
	p.cut = cut
	end := cut

	if growStr {
		s := &shdrs[strndx]
		end = alignUp(end, max(1, min(s.Addralign, 64)))
		p.pieces = append(p.pieces, elfPiece{off: end, data: strtab})
		s.Offset, s.Size = end, uint64(len(strtab))
		end += s.Size
	}
	s := &shdrs[idx]
	s.Flags &^= elffile.SHFCompressed
	if moving {
		// The header a new section gets; name, type and index stay. With
		// no SHF_ALLOC and no address no segment claims its bytes; the
		// old slot (empty, or bytes outside every segment) is left as it
		// was.
		s.Flags, s.Addr, s.Addralign, s.Entsize = 0, 0, 1, 0
	}
	if old := sec; existing && old.Size > 0 && old.Offset+old.Size <= cut && uint64(len(data)) <= old.Size {
		// An old non-allocated section below the cut: overwrite in place.
		p.pieces = append(p.pieces, elfPiece{off: old.Offset, data: data})
		if rest := old.Size - uint64(len(data)); rest > 0 {
			p.pieces = append(p.pieces, elfPiece{off: old.Offset + uint64(len(data)), zeros: rest})
		}
		s.Size = uint64(len(data))
	} else {
		end = alignUp(end, 4)
		p.pieces = append(p.pieces, elfPiece{off: end, data: data})
		s.Offset, s.Size = end, uint64(len(data))
		end += s.Size
		p.moved = true
	}

	// The section header table, with extended numbering if needed.
	shnum := uint64(len(shdrs))
	if shnum >= elffile.SHNLoReserve {
		shdrs[0].Size = shnum
	} else {
		shdrs[0].Size = 0
	}
	if strndx >= elffile.SHNLoReserve {
		shdrs[0].Link = strndx
	} else {
		shdrs[0].Link = 0
	}
	if e.Class64 {
		end = alignUp(end, 8)
	} else {
		end = alignUp(end, 4)
	}
	shoff := end
	table := make([]byte, shnum*shentsize)
	for i := range shdrs {
		e.EncodeShdr(table[uint64(i)*shentsize:], &shdrs[i])
	}
	p.pieces = append(p.pieces, elfPiece{off: shoff, data: table})
	end += uint64(len(table))

	// The ELF header: e_shoff, e_shnum, e_shstrndx.
	h := append([]byte(nil), e.ehdr...)
	o := e.Order
	eShnum, eStrndx := uint16(shnum), uint16(strndx)
	if shnum >= elffile.SHNLoReserve {
		eShnum = 0
	}
	if strndx >= elffile.SHNLoReserve {
		eStrndx = elffile.SHNXIndex
	}
	if e.Class64 {
		o.PutUint64(h[40:], shoff)
		o.PutUint16(h[60:], eShnum)
		o.PutUint16(h[62:], eStrndx)
	} else {
		if end > 1<<32-1 {
			return nil, &elffile.Error{File: e.Name(), Msg: fmt.Sprintf("ELF32 output with %s would be %d bytes, past 4 GiB", name, end), Err: elffile.ErrFormat}
		}
		o.PutUint32(h[32:], uint32(shoff))
		o.PutUint16(h[48:], eShnum)
		o.PutUint16(h[50:], eStrndx)
	}
	p.pieces = append(p.pieces, elfPiece{off: 0, data: h})
	p.size = end
	return p, nil
}
