package elffile

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"sync/atomic"

	"github.com/btfstream/btfstream/spill"
)

// ELF constants (System V gABI, "ELF Header" and "Sections").
const (
	ETRel  = 1 // e_type of a relocatable object (.o, .ko)
	ETExec = 2
	ETDyn  = 3

	SHNUndef     = 0
	SHNLoReserve = 0xff00
	SHNXIndex    = 0xffff

	SHTNull        = 0
	SHTProgbits    = 1
	SHTSymtab      = 2
	SHTStrtab      = 3
	SHTRela        = 4
	SHTNobits      = 8
	SHTRel         = 9
	SHTSymtabShndx = 18

	SHFAlloc      = 0x2
	SHFGroup      = 0x200
	SHFCompressed = 0x800

	PTLoad = 1

	elfCompressZlib = 1
	elfCompressZstd = 2
)

// Machines (e_machine) the reader and the encoder know.
const (
	EMSPARC   = 2
	EM386     = 3
	EMMIPS    = 8
	EMPPC     = 20
	EMPPC64   = 21
	EMS390    = 22
	EMARM     = 40
	EMSPARCV9 = 43
	EMARC     = 45
	EMX86_64  = 62
	EMAARCH64 = 183
	EMRISCV   = 243
)

// Limits on what an untrusted header can make the parser allocate. Both
// are also bounded by the file size, checked before anything is read.
const (
	// MaxSections bounds e_shnum (and e_phnum): about 100 bytes each in
	// memory, 400 MiB at the limit. Real files: a vmlinux has ~60, a
	// -ffunction-sections object some 100k.
	MaxSections = 1 << 22
	// MaxShstrtab bounds the section name table, which is read whole.
	MaxShstrtab = 256 << 20
)

// SectionHeader is one ELF section header, widened to 64 bits.
type SectionHeader struct {
	Name      string
	NameOff   uint32 // sh_name: offset of the name in .shstrtab
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
	return s.Flags&SHFCompressed != 0 || strings.HasPrefix(s.Name, ".zdebug")
}

// FileBytes is how many bytes of the file the section occupies (0 for
// SHT_NOBITS and SHT_NULL).
func (s *SectionHeader) FileBytes() uint64 {
	if s.Type == SHTNobits || s.Type == SHTNull {
		return 0
	}
	return s.Size
}

// ProgHeader is the part of a program header that says which file bytes a
// segment holds.
type ProgHeader struct {
	Type   uint32
	Offset uint64
	Filesz uint64
}

// Options configure Open and New.
type Options struct {
	// CacheBytes bounds the page cache shared by the paged section
	// readers (string sections, .strtab, location lists). 0 means 4 MiB;
	// negative means no cache (every page read goes to the file).
	CacheBytes int64
	// Name is used in error messages instead of the path.
	Name string
}

// File is a parsed ELF header with its section and program headers. It
// reads the file through an io.ReaderAt and never maps or loads it whole.
// Its methods may be called concurrently.
type File struct {
	name     string
	r        io.ReaderAt
	size     uint64
	closer   io.Closer
	Class64  bool
	Order    binary.ByteOrder
	Type     uint16
	Machine  uint16
	Sections []SectionHeader
	Progs    []ProgHeader
	// Where the header tables are, as the ELF header says (after
	// extended numbering): the writer rewrites them.
	ShOff     uint64
	ShEntSize uint32
	ShStrNdx  uint32 // 0: no section name table
	PhOff     uint64
	PhEntSize uint32
	// Shstrtab is the section name table, read whole (nil if none).
	Shstrtab []byte
	byName   map[string]uint32
	cache    *pageCache
	table    *pageTable // instead of cache for a file within the budget
	// nextID numbers the paged readers, whose pages share the cache under
	// readerID<<40 | page: readers are made by the producer and by decode
	// and consumer goroutines at once, so it is atomic.
	nextID atomic.Uint64
}

// Open opens the ELF file at path. The file is read through io.ReaderAt,
// never mapped or read whole; Close closes it. Errors name the file as
// opts.Name, or path.
func Open(path string, opts Options) (*File, error) {
	name := opts.Name
	if name == "" {
		name = path
	}
	osf, st, err := OpenInput(path, name)
	if err != nil {
		return nil, err
	}
	f, err := New(name, osf, st.Size(), opts)
	if err != nil {
		osf.Close()
		return nil, err
	}
	f.closer = osf
	return f, nil
}

// New parses the ELF and section headers of r, whose size is size. name
// is used in error messages. Call Close to release the page cache.
func New(name string, r io.ReaderAt, size int64, opts Options) (*File, error) {
	f := &File{name: name, r: r, size: uint64(size)}
	if opts.CacheBytes >= 0 {
		cb := opts.CacheBytes
		if cb == 0 {
			cb = 4 << 20
		}
		if size <= cb {
			// The whole file fits the budget: pages are kept without
			// a policy (pagetable.go).
			f.table = newPageTable()
		} else {
			f.cache = spill.NewCache(cb)
		}
	}
	if err := f.parse(); err != nil {
		f.DropCache()
		return nil, WithFile(name, err)
	}
	return f, nil
}

// Close releases the page cache and closes the file if Open opened it.
func (f *File) Close() error {
	f.DropCache()
	if f.closer != nil {
		c := f.closer
		f.closer = nil
		return c.Close()
	}
	return nil
}

// DropCache releases the page cache; paged readers made before keep
// working, reading pages from the file. Not safe to call while other
// goroutines read through the cache.
func (f *File) DropCache() {
	if f.cache != nil {
		f.cache.Close()
		f.cache = nil
	}
	if f.table != nil {
		f.table.close()
		f.table = nil
	}
}

// Name returns the name used in error messages.
func (f *File) Name() string { return f.name }

// Size returns the file size.
func (f *File) Size() uint64 { return f.size }

// ReaderAt returns the underlying reader.
func (f *File) ReaderAt() io.ReaderAt { return f.r }

// Relocatable reports whether the file is ET_REL (.o, .ko): only there are
// relocations applied to debug sections. A vmlinux linked with
// --emit-relocs keeps .rela.debug_* sections, which must be ignored.
func (f *File) Relocatable() bool { return f.Type == ETRel }

// SectionReader returns a reader of the section's bytes as stored in the
// file (compressed sections are not inflated).
func (f *File) SectionReader(s *SectionHeader) *io.SectionReader {
	return io.NewSectionReader(f.r, int64(s.Offset), int64(s.Size))
}

// RawPaged returns a random-access reader of the section's bytes as stored
// in the file, through the page cache.
func (f *File) RawPaged(s *SectionHeader) *Paged {
	if s.Type == SHTNobits {
		return MemPaged(nil)
	}
	p := newPaged(f.SectionReader(s), s.Size, f.cache)
	p.table = f.table
	p.id = f.nextID.Add(1)
	return p
}

// parse reads the ELF header, the section headers, the section name
// table and the program headers, checking every offset and count against
// the file size before it reads or allocates.
func (f *File) parse() error {
	const where = "ELF header"
	var id [64]byte
	n, _ := f.r.ReadAt(id[:], 0)
	if n < 16 || string(id[:4]) != "\x7fELF" {
		if n >= 4 && string(id[:4]) != "\x7fELF" {
			return FormatErr(where, 0, "not an ELF file (bad magic)")
		}
		return FormatErr(where, 0, "file too short (%d bytes)", f.size)
	}
	switch id[4] {
	case 1:
	case 2:
		f.Class64 = true
	default:
		return FormatErr(where, 4, "unknown ELF class %d", id[4])
	}
	switch id[5] {
	case 1:
		f.Order = binary.LittleEndian
	case 2:
		f.Order = binary.BigEndian
	default:
		return FormatErr(where, 5, "unknown ELF data encoding %d", id[5])
	}
	if (f.Class64 && n < 64) || n < 52 {
		return FormatErr(where, 0, "ELF header truncated (file of %d bytes)", f.size)
	}
	o := f.Order
	f.Type = o.Uint16(id[16:])
	f.Machine = o.Uint16(id[18:])
	var shnum, phnum uint64
	var shstrndx uint32
	if f.Class64 {
		f.PhOff, f.ShOff = o.Uint64(id[32:]), o.Uint64(id[40:])
		f.PhEntSize, phnum = uint32(o.Uint16(id[54:])), uint64(o.Uint16(id[56:]))
		f.ShEntSize, shnum = uint32(o.Uint16(id[58:])), uint64(o.Uint16(id[60:]))
		shstrndx = uint32(o.Uint16(id[62:]))
	} else {
		f.PhOff, f.ShOff = uint64(o.Uint32(id[28:])), uint64(o.Uint32(id[32:]))
		f.PhEntSize, phnum = uint32(o.Uint16(id[42:])), uint64(o.Uint16(id[44:]))
		f.ShEntSize, shnum = uint32(o.Uint16(id[46:])), uint64(o.Uint16(id[48:]))
		shstrndx = uint32(o.Uint16(id[50:]))
	}
	if f.ShOff != 0 {
		if err := f.parseSections(shnum, shstrndx, &phnum); err != nil {
			return err
		}
	}
	return f.parseProgs(phnum)
}

// parseSections reads the section header table and the section names.
// Extended numbering: section 0 holds the real e_shnum, e_shstrndx and
// e_phnum when they do not fit in the ELF header.
func (f *File) parseSections(shnum uint64, shstrndx uint32, phnum *uint64) error {
	want := uint32(40)
	if f.Class64 {
		want = 64
	}
	// e_shentsize beyond 1 KiB is legal but unheard of; refusing it keeps
	// the header chunk buffer small whatever the input says.
	if f.ShEntSize < want || f.ShEntSize > 1024 {
		return FormatErr("ELF header", 0, "bad e_shentsize %d", f.ShEntSize)
	}
	ent := uint64(f.ShEntSize)
	if f.ShOff >= f.size || f.size-f.ShOff < ent {
		return FormatErr("section headers", f.ShOff, "section header table (e_shoff %#x) past the end of the file (size %#x)", f.ShOff, f.size)
	}
	first, err := f.readShdr(0)
	if err != nil {
		return err
	}
	if shnum == 0 {
		shnum = first.Size
	}
	if shstrndx == SHNXIndex {
		shstrndx = first.Link
	}
	if *phnum == 0xffff {
		*phnum = uint64(first.Info)
	}
	if shnum == 0 {
		return nil
	}
	if shnum > MaxSections {
		return FormatErr("section headers", f.ShOff, "section count %d too large (at most %d)", shnum, MaxSections)
	}
	if shnum > (f.size-f.ShOff)/ent {
		return FormatErr("section headers", f.ShOff, "%d section headers of %d bytes exceed the file (size %#x)", shnum, ent, f.size)
	}
	f.Sections = make([]SectionHeader, shnum) // bounded by the file size, checked above
	// Read headers in chunks to keep the temporary buffer small.
	chunk := make([]byte, min(shnum, 256)*ent)
	for i := uint64(0); i < shnum; {
		k := min(shnum-i, 256)
		p := chunk[:k*ent]
		off := f.ShOff + i*ent
		if _, err := f.r.ReadAt(p, int64(off)); err != nil {
			return ReadErr("section headers", off, err)
		}
		for j := uint64(0); j < k; j++ {
			s := f.decodeShdr(p[j*ent:], uint32(i+j))
			if n := s.FileBytes(); n > 0 && (s.Offset > f.size || f.size-s.Offset < n) {
				return FormatErr("section headers", off+j*ent, "section %d [%#x, +%#x) exceeds the file (size %#x)", i+j, s.Offset, n, f.size)
			}
			f.Sections[i+j] = s
		}
		i += k
	}
	if shstrndx == 0 || uint64(shstrndx) >= shnum {
		return nil // no names
	}
	strs := &f.Sections[shstrndx]
	if strs.Type == SHTNobits {
		return nil
	}
	if strs.Size > MaxShstrtab {
		return FormatErr("section headers", f.ShOff+uint64(shstrndx)*ent, "section name table of %d bytes, more than the %d this reader handles", strs.Size, MaxShstrtab)
	}
	f.ShStrNdx = shstrndx
	f.Shstrtab = make([]byte, strs.Size) // bounded by the file size, checked above
	if _, err := f.r.ReadAt(f.Shstrtab, int64(strs.Offset)); err != nil && err != io.EOF {
		return ReadErr(".shstrtab", 0, err)
	}
	f.byName = make(map[string]uint32, len(f.Sections))
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.NameOff == 0 && i == 0 {
			continue
		}
		name, ok := f.name0(s.NameOff)
		if !ok {
			return FormatErr(".shstrtab", uint64(s.NameOff), "name of section %d outside the table", i)
		}
		s.Name = name
		if _, dup := f.byName[s.Name]; !dup {
			f.byName[s.Name] = uint32(i)
		}
	}
	return nil
}

// name0 returns the NUL-terminated name at off in .shstrtab.
func (f *File) name0(off uint32) (string, bool) {
	if uint64(off) >= uint64(len(f.Shstrtab)) {
		return "", false
	}
	b := f.Shstrtab[off:]
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", false
	}
	return string(b[:i]), true
}

// parseProgs reads the program headers' types and file ranges.
func (f *File) parseProgs(phnum uint64) error {
	if f.PhOff == 0 || phnum == 0 {
		return nil
	}
	const where = "program headers"
	if f.PhEntSize < 32 || (f.Class64 && f.PhEntSize < 56) || f.PhEntSize > 1024 {
		return FormatErr("ELF header", 0, "bad e_phentsize %d", f.PhEntSize)
	}
	ent := uint64(f.PhEntSize)
	if phnum > MaxSections {
		return FormatErr(where, f.PhOff, "program header count %d too large (at most %d)", phnum, MaxSections)
	}
	if f.PhOff > f.size || phnum > (f.size-f.PhOff)/ent {
		return FormatErr(where, f.PhOff, "%d program headers of %d bytes exceed the file (size %#x)", phnum, ent, f.size)
	}
	f.Progs = make([]ProgHeader, 0, phnum) // bounded by the file size
	p := make([]byte, ent)
	o := f.Order
	for i := uint64(0); i < phnum; i++ {
		off := f.PhOff + i*ent
		if _, err := f.r.ReadAt(p, int64(off)); err != nil {
			return ReadErr(where, off, err)
		}
		ph := ProgHeader{Type: o.Uint32(p)}
		if f.Class64 {
			ph.Offset, ph.Filesz = o.Uint64(p[8:]), o.Uint64(p[32:])
		} else {
			ph.Offset, ph.Filesz = uint64(o.Uint32(p[4:])), uint64(o.Uint32(p[16:]))
		}
		if ph.Filesz > 0 && (ph.Offset > f.size || ph.Filesz > f.size-ph.Offset) {
			return FormatErr(where, off, "segment %d [%#x, +%#x) exceeds the file (size %#x)", i, ph.Offset, ph.Filesz, f.size)
		}
		f.Progs = append(f.Progs, ph)
	}
	return nil
}

func (f *File) readShdr(i uint32) (SectionHeader, error) {
	p := make([]byte, f.ShEntSize)
	off := f.ShOff + uint64(i)*uint64(f.ShEntSize)
	if _, err := f.r.ReadAt(p, int64(off)); err != nil {
		return SectionHeader{}, ReadErr("section headers", off, err)
	}
	return f.decodeShdr(p, i), nil
}

// decodeShdr decodes section header i.
func (f *File) decodeShdr(p []byte, i uint32) SectionHeader {
	o := f.Order
	if f.Class64 {
		return SectionHeader{
			NameOff: o.Uint32(p), Index: i, Type: o.Uint32(p[4:]), Flags: o.Uint64(p[8:]), Addr: o.Uint64(p[16:]),
			Offset: o.Uint64(p[24:]), Size: o.Uint64(p[32:]), Link: o.Uint32(p[40:]), Info: o.Uint32(p[44:]),
			Addralign: o.Uint64(p[48:]), Entsize: o.Uint64(p[56:]),
		}
	}
	return SectionHeader{
		NameOff: o.Uint32(p), Index: i, Type: o.Uint32(p[4:]), Flags: uint64(o.Uint32(p[8:])), Addr: uint64(o.Uint32(p[12:])),
		Offset: uint64(o.Uint32(p[16:])), Size: uint64(o.Uint32(p[20:])), Link: o.Uint32(p[24:]), Info: o.Uint32(p[28:]),
		Addralign: uint64(o.Uint32(p[32:])), Entsize: uint64(o.Uint32(p[36:])),
	}
}

// EncodeShdr writes s into p (40 or 64 bytes) in the file's class and
// byte order, the inverse of what the parser read.
func (f *File) EncodeShdr(p []byte, s *SectionHeader) {
	o := f.Order
	o.PutUint32(p, s.NameOff)
	o.PutUint32(p[4:], s.Type)
	if f.Class64 {
		o.PutUint64(p[8:], s.Flags)
		o.PutUint64(p[16:], s.Addr)
		o.PutUint64(p[24:], s.Offset)
		o.PutUint64(p[32:], s.Size)
		o.PutUint32(p[40:], s.Link)
		o.PutUint32(p[44:], s.Info)
		o.PutUint64(p[48:], s.Addralign)
		o.PutUint64(p[56:], s.Entsize)
		return
	}
	o.PutUint32(p[8:], uint32(s.Flags))
	o.PutUint32(p[12:], uint32(s.Addr))
	o.PutUint32(p[16:], uint32(s.Offset))
	o.PutUint32(p[20:], uint32(s.Size))
	o.PutUint32(p[24:], s.Link)
	o.PutUint32(p[28:], s.Info)
	o.PutUint32(p[32:], uint32(s.Addralign))
	o.PutUint32(p[36:], uint32(s.Entsize))
}

// Section returns the first section header with the given name.
func (f *File) Section(name string) (*SectionHeader, bool) {
	i, ok := f.byName[name]
	if !ok {
		return nil, false
	}
	return &f.Sections[i], true
}

// HasRelocs reports whether a SHT_REL or SHT_RELA section applies to
// section target.
func (f *File) HasRelocs(target uint32) bool {
	for i := range f.Sections {
		s := &f.Sections[i]
		if (s.Type == SHTRela || s.Type == SHTRel) && s.Info == target {
			return true
		}
	}
	return false
}
