package btf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A minimal ELF section finder. It reads the ELF header, the section
// header table, the section name table and the one wanted section through
// an io.ReaderAt, so a 350 MB vmlinux costs a few kilobytes plus its .BTF.
// It knows ELF32 and ELF64 in both byte orders and the extended numbering
// of files with 65280 sections or more (e_shnum/e_shstrndx in section 0).
// debug/elf is not used: it reads every section header into objects and is
// only the oracle in tests.

const (
	elfClass32  = 1
	elfClass64  = 2
	elfData2LSB = 1
	elfData2MSB = 2

	shtNobits      = 8
	shfCompressed  = 1 << 11
	shnXindex      = 0xffff
	maxELFSections = 1 << 20 // bound on untrusted e_shnum before reading headers
)

// IsELF reports whether data starts with the ELF magic.
func IsELF(data []byte) bool {
	return len(data) >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F'
}

// ELFError describes a malformed ELF file.
type ELFError struct {
	Off int64
	Msg string
}

func (e *ELFError) Error() string { return fmt.Sprintf("ELF+%#x: %s", e.Off, e.Msg) }

// elfSection is one section header, widened to 64 bits.
type elfSection struct {
	name   uint32
	typ    uint32
	flags  uint64
	off    uint64
	size   uint64
	link   uint32
	offset int64 // where this header sits in the file, for errors
}

type elfFile struct {
	r      io.ReaderAt
	bo     binary.ByteOrder
	is64   bool
	shoff  uint64
	shsize uint64 // e_shentsize
	shnum  uint64
	strndx uint64
}

// ELFSection returns the contents of the section called name in the ELF
// file r. The error wraps ErrNoSection if there is no such section.
func ELFSection(r io.ReaderAt, name string) ([]byte, error) {
	f, err := openELF(r)
	if err != nil {
		return nil, err
	}
	strtab, err := f.section(f.strndx)
	if err != nil {
		return nil, err
	}
	names, err := f.contents(strtab, ".shstrtab")
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < f.shnum; i++ {
		sh, err := f.section(i)
		if err != nil {
			return nil, err
		}
		if sectionName(names, sh.name) == name {
			return f.contents(sh, name)
		}
	}
	return nil, fmt.Errorf("%w %s", ErrNoSection, name)
}

// ErrNoSection is returned (wrapped) by ELFSection when the section is
// missing.
var ErrNoSection = errors.New("no ELF section")

func sectionName(tab []byte, off uint32) string {
	if uint64(off) >= uint64(len(tab)) {
		return ""
	}
	s := tab[off:]
	for i, c := range s {
		if c == 0 {
			return string(s[:i])
		}
	}
	return ""
}

func openELF(r io.ReaderAt) (*elfFile, error) {
	var id [64]byte
	n, err := r.ReadAt(id[:], 0)
	if n < 16 && err != nil {
		return nil, &ELFError{0, "reading identification: " + err.Error()}
	}
	if !IsELF(id[:n]) {
		return nil, &ELFError{0, "not an ELF file"}
	}
	f := &elfFile{r: r}
	switch id[5] {
	case elfData2LSB:
		f.bo = binary.LittleEndian
	case elfData2MSB:
		f.bo = binary.BigEndian
	default:
		return nil, &ELFError{5, fmt.Sprintf("unknown data encoding %d", id[5])}
	}
	bo := f.bo
	switch id[4] {
	case elfClass32:
		if n < 52 {
			return nil, &ELFError{0, "ELF32 header truncated"}
		}
		f.shoff = uint64(bo.Uint32(id[32:]))
		f.shsize = uint64(bo.Uint16(id[46:]))
		f.shnum = uint64(bo.Uint16(id[48:]))
		f.strndx = uint64(bo.Uint16(id[50:]))
		if f.shsize < 40 && f.shnum > 0 {
			return nil, &ELFError{46, fmt.Sprintf("e_shentsize %d < 40", f.shsize)}
		}
	case elfClass64:
		if n < 64 {
			return nil, &ELFError{0, "ELF64 header truncated"}
		}
		f.is64 = true
		f.shoff = bo.Uint64(id[40:])
		f.shsize = uint64(bo.Uint16(id[58:]))
		f.shnum = uint64(bo.Uint16(id[60:]))
		f.strndx = uint64(bo.Uint16(id[62:]))
		if f.shsize < 64 && f.shnum > 0 {
			return nil, &ELFError{58, fmt.Sprintf("e_shentsize %d < 64", f.shsize)}
		}
	default:
		return nil, &ELFError{4, fmt.Sprintf("unknown class %d", id[4])}
	}
	if f.shoff == 0 {
		return nil, &ELFError{0, "no section header table"}
	}
	if f.shnum == 0 || f.strndx == shnXindex {
		// Extended numbering: section 0 holds the real values.
		if f.shsize == 0 {
			f.shsize = 64
			if !f.is64 {
				f.shsize = 40
			}
		}
		f.shnum = 1
		s0, err := f.section(0)
		if err != nil {
			return nil, err
		}
		if s0.size != 0 {
			f.shnum = s0.size
		}
		if f.strndx == shnXindex {
			f.strndx = uint64(s0.link)
		}
	}
	if f.shnum > maxELFSections {
		return nil, &ELFError{0, fmt.Sprintf("%d sections", f.shnum)}
	}
	if f.strndx >= f.shnum {
		return nil, &ELFError{0, fmt.Sprintf("e_shstrndx %d >= e_shnum %d", f.strndx, f.shnum)}
	}
	return f, nil
}

// section reads section header i.
func (f *elfFile) section(i uint64) (elfSection, error) {
	off := f.shoff + i*f.shsize
	var b [64]byte
	n := 40
	if f.is64 {
		n = 64
	}
	if off > 1<<62 {
		return elfSection{}, &ELFError{0, fmt.Sprintf("section header %d offset overflows", i)}
	}
	if _, err := f.r.ReadAt(b[:n], int64(off)); err != nil {
		return elfSection{}, &ELFError{int64(off), fmt.Sprintf("reading section header %d: %v", i, err)}
	}
	bo := f.bo
	sh := elfSection{offset: int64(off), name: bo.Uint32(b[0:]), typ: bo.Uint32(b[4:])}
	if f.is64 {
		sh.flags = bo.Uint64(b[8:])
		sh.off = bo.Uint64(b[24:])
		sh.size = bo.Uint64(b[32:])
		sh.link = bo.Uint32(b[40:])
	} else {
		sh.flags = uint64(bo.Uint32(b[8:]))
		sh.off = uint64(bo.Uint32(b[16:]))
		sh.size = uint64(bo.Uint32(b[20:]))
		sh.link = bo.Uint32(b[24:])
	}
	return sh, nil
}

// contents reads a section's bytes.
func (f *elfFile) contents(sh elfSection, name string) ([]byte, error) {
	if sh.typ == shtNobits {
		return nil, &ELFError{sh.offset, fmt.Sprintf("section %s has no data (SHT_NOBITS)", name)}
	}
	if sh.flags&shfCompressed != 0 {
		return nil, &ELFError{sh.offset, fmt.Sprintf("section %s is compressed (SHF_COMPRESSED), not supported", name)}
	}
	if sh.off > 1<<62 || sh.size > 1<<62 {
		return nil, &ELFError{sh.offset, fmt.Sprintf("section %s offset %#x size %#x out of range", name, sh.off, sh.size)}
	}
	b, err := readAtMost(f.r, int64(sh.off), int64(sh.size))
	if err != nil {
		return nil, &ELFError{int64(sh.off), fmt.Sprintf("reading section %s (%d bytes): %v", name, sh.size, err)}
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
