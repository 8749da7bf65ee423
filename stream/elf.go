package stream

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
)

// ELF constants used by the reader (see the System V gABI, "Sections").
const (
	etRel = 1

	shnUndef     = 0
	shnLoReserve = 0xff00
	shnXIndex    = 0xffff

	shtSymtab      = 2
	shtRela        = 4
	shtNobits      = 8
	shtRel         = 9
	shtSymtabShndx = 18

	shfGroup      = 0x200
	shfCompressed = 0x800

	elfCompressZlib = 1
	elfCompressZstd = 2
)

// SectionHeader is one ELF section header, widened to 64 bits.
type SectionHeader struct {
	Name      string
	Index     uint32
	Type      uint32
	Flags     uint64
	Addr      uint64
	Offset    uint64
	Size      uint64 // size in the file (compressed size if compressed)
	Link      uint32
	Info      uint32
	Addralign uint64
	Entsize   uint64
}

// Compressed reports whether the section is SHF_COMPRESSED or a legacy
// .zdebug section.
func (s *SectionHeader) Compressed() bool {
	return s.Flags&shfCompressed != 0 || strings.HasPrefix(s.Name, ".zdebug")
}

// ELF is a parsed ELF header with its section headers. It reads the file
// through an io.ReaderAt and never maps or loads it whole.
type ELF struct {
	name     string
	r        io.ReaderAt
	size     uint64
	Class64  bool
	Order    binary.ByteOrder
	Type     uint16
	Machine  uint16
	Sections []SectionHeader
	byName   map[string]uint32
	cache    *pageCache
	nextID   uint64
}

// maxSections bounds the section count taken from an untrusted header; the
// real bound is the file size, checked as well.
const maxSections = 1 << 24

// NewELF parses the ELF and section headers of r, whose size is size. name
// is used in error messages.
//
// cacheBytes bounds the page cache shared by the string sections and the
// symbol string table (0 means 4 MiB). Call Close to release the cache.
func NewELF(name string, r io.ReaderAt, size int64, cacheBytes int64) (*ELF, error) {
	if cacheBytes <= 0 {
		cacheBytes = 4 << 20
	}
	c, err := newPageCache(cacheBytes)
	if err != nil {
		return nil, err
	}
	e := &ELF{name: name, r: r, size: uint64(size), cache: c}
	if err := e.parse(); err != nil {
		c.Close()
		return nil, fileErr(name, err)
	}
	return e, nil
}

// Close releases the page cache.
func (e *ELF) Close() {
	if e.cache != nil {
		e.cache.Close()
		e.cache = nil
	}
}

// rawReader returns a cached random-access reader of the section's bytes as
// stored in the file.
func (e *ELF) rawReader(s *SectionHeader) *pagedReader {
	if s.Type == shtNobits {
		return memReader(nil)
	}
	p := newPagedReader(io.NewSectionReader(e.r, int64(s.Offset), int64(s.Size)), s.Size, e.cache)
	e.nextID++
	p.id = e.nextID
	return p
}

func (e *ELF) parse() error {
	var id [64]byte
	n, err := e.r.ReadAt(id[:], 0)
	if n < 52 {
		_ = err
		return &DecodeError{Section: "ELF header", Msg: "file too short", Err: ErrFormat}
	}
	if string(id[:4]) != "\x7fELF" {
		return &DecodeError{Section: "ELF header", Msg: "bad magic", Err: ErrFormat}
	}
	switch id[4] {
	case 1:
	case 2:
		e.Class64 = true
	default:
		return &DecodeError{Section: "ELF header", Offset: 4, Msg: fmt.Sprintf("unknown ELF class %d", id[4]), Err: ErrFormat}
	}
	switch id[5] {
	case 1:
		e.Order = binary.LittleEndian
	case 2:
		e.Order = binary.BigEndian
	default:
		return &DecodeError{Section: "ELF header", Offset: 5, Msg: fmt.Sprintf("unknown ELF data encoding %d", id[5]), Err: ErrFormat}
	}
	o := e.Order
	e.Type = o.Uint16(id[16:])
	e.Machine = o.Uint16(id[18:])
	var shoff uint64
	var shentsize, shnum, shstrndx uint32
	if e.Class64 {
		if n < 64 {
			return &DecodeError{Section: "ELF header", Msg: "file too short", Err: ErrFormat}
		}
		shoff = o.Uint64(id[40:])
		shentsize = uint32(o.Uint16(id[58:]))
		shnum = uint32(o.Uint16(id[60:]))
		shstrndx = uint32(o.Uint16(id[62:]))
	} else {
		shoff = uint64(o.Uint32(id[32:]))
		shentsize = uint32(o.Uint16(id[46:]))
		shnum = uint32(o.Uint16(id[48:]))
		shstrndx = uint32(o.Uint16(id[50:]))
	}
	if shoff == 0 {
		return nil // no section headers
	}
	want := uint32(40)
	if e.Class64 {
		want = 64
	}
	// e_shentsize beyond 1 KiB is legal but unheard of; refusing it keeps
	// the header chunk buffer small whatever the input says.
	if shentsize < want || shentsize > 1024 {
		return &DecodeError{Section: "ELF header", Msg: fmt.Sprintf("bad e_shentsize %d", shentsize), Err: ErrFormat}
	}
	if shoff >= e.size || e.size-shoff < uint64(shentsize) {
		return &DecodeError{Section: "ELF header", Msg: fmt.Sprintf("e_shoff %#x out of file", shoff), Err: ErrFormat}
	}
	// Extended numbering: section 0 holds the real count and string
	// table index when they do not fit in the ELF header.
	first, _, err := e.readShdr(shoff, shentsize, 0)
	if err != nil {
		return err
	}
	if shnum == 0 {
		shnum64 := first.Size
		if shnum64 > maxSections {
			return &DecodeError{Section: "section headers", Offset: shoff, Msg: fmt.Sprintf("section count %d too large", shnum64), Err: ErrFormat}
		}
		shnum = uint32(shnum64)
	}
	if shstrndx == shnXIndex {
		shstrndx = first.Link
	}
	if shnum == 0 {
		return nil
	}
	if uint64(shnum)*uint64(shentsize) > e.size-shoff {
		return &DecodeError{Section: "section headers", Offset: shoff, Msg: fmt.Sprintf("%d section headers exceed the file", shnum), Err: ErrFormat}
	}
	e.Sections = make([]SectionHeader, shnum)
	nameOffs := make([]uint32, shnum)
	// Read headers in chunks to keep the temporary buffer small.
	chunk := make([]byte, uint64(min(shnum, 256))*uint64(shentsize))
	for i := uint32(0); i < shnum; {
		k := min(shnum-i, 256)
		p := chunk[:k*shentsize]
		off := shoff + uint64(i)*uint64(shentsize)
		if _, err := e.r.ReadAt(p, int64(off)); err != nil {
			return &DecodeError{Section: "section headers", Offset: off, Msg: "read", Err: err}
		}
		for j := uint32(0); j < k; j++ {
			e.Sections[i+j], nameOffs[i+j] = e.decodeShdr(p[j*shentsize:], i+j)
		}
		i += k
	}
	for i := range e.Sections {
		s := &e.Sections[i]
		if s.Type != shtNobits && s.Size > 0 && (s.Offset > e.size || e.size-s.Offset < s.Size) {
			return &DecodeError{Section: "section headers", Offset: shoff + uint64(i)*uint64(shentsize),
				Msg: fmt.Sprintf("section %d [%#x, +%#x) exceeds the file", i, s.Offset, s.Size), Err: ErrFormat}
		}
	}
	if shstrndx == 0 || shstrndx >= shnum {
		return nil // no names
	}
	strs := &e.Sections[shstrndx]
	if strs.Type == shtNobits {
		return nil
	}
	names := e.rawReader(strs)
	e.byName = make(map[string]uint32, len(e.Sections))
	for i := range e.Sections {
		s := &e.Sections[i]
		nameOff := uint64(nameOffs[i])
		if nameOff == 0 && i == 0 {
			continue
		}
		str, err := names.cstring(nameOff)
		if err != nil {
			return &DecodeError{Section: ".shstrtab", Offset: nameOff, Msg: "section name", Err: ErrFormat}
		}
		s.Name = string(str)
		if _, dup := e.byName[s.Name]; !dup {
			e.byName[s.Name] = uint32(i)
		}
	}
	return nil
}

func (e *ELF) readShdr(shoff uint64, shentsize, i uint32) (SectionHeader, uint32, error) {
	p := make([]byte, shentsize)
	off := shoff + uint64(i)*uint64(shentsize)
	if _, err := e.r.ReadAt(p, int64(off)); err != nil {
		return SectionHeader{}, 0, &DecodeError{Section: "section headers", Offset: off, Msg: "read", Err: err}
	}
	s, name := e.decodeShdr(p, i)
	return s, name, nil
}

// decodeShdr decodes one section header and returns it with its sh_name.
func (e *ELF) decodeShdr(p []byte, i uint32) (SectionHeader, uint32) {
	o := e.Order
	name := o.Uint32(p)
	if e.Class64 {
		return SectionHeader{
			Index: i, Type: o.Uint32(p[4:]), Flags: o.Uint64(p[8:]), Addr: o.Uint64(p[16:]),
			Offset: o.Uint64(p[24:]), Size: o.Uint64(p[32:]), Link: o.Uint32(p[40:]), Info: o.Uint32(p[44:]),
			Addralign: o.Uint64(p[48:]), Entsize: o.Uint64(p[56:]),
		}, name
	}
	return SectionHeader{
		Index: i, Type: o.Uint32(p[4:]), Flags: uint64(o.Uint32(p[8:])), Addr: uint64(o.Uint32(p[12:])),
		Offset: uint64(o.Uint32(p[16:])), Size: uint64(o.Uint32(p[20:])), Link: o.Uint32(p[24:]), Info: o.Uint32(p[28:]),
		Addralign: uint64(o.Uint32(p[32:])), Entsize: uint64(o.Uint32(p[36:])),
	}, name
}

// Section returns the first section header with the given name.
func (e *ELF) Section(name string) (*SectionHeader, bool) {
	i, ok := e.byName[name]
	if !ok {
		return nil, false
	}
	return &e.Sections[i], true
}

// open returns an os.File and its size.
func openFile(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}
