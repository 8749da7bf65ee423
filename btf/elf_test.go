package btf

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// elfSec is one section for makeELF.
type elfSec struct {
	name  string
	typ   uint32
	flags uint64
	data  []byte
}

// makeELF writes a minimal relocatable ELF file (class 32 or 64, either
// byte order) holding secs, a .shstrtab, and the section header table at
// the end. With extended, it uses the extended numbering of section 0
// (e_shnum = 0, e_shstrndx = SHN_XINDEX).
func makeELF(is64 bool, bo binary.ByteOrder, extended bool, secs ...elfSec) []byte {
	ehsize, shentsize := 52, 40
	if is64 {
		ehsize, shentsize = 64, 64
	}
	shstr := []byte{0}
	nameOff := make([]uint32, len(secs)+1)
	for i, s := range secs {
		nameOff[i] = uint32(len(shstr))
		shstr = append(append(shstr, s.name...), 0)
	}
	nameOff[len(secs)] = uint32(len(shstr))
	shstr = append(append(shstr, ".shstrtab"...), 0)
	secs = append(secs, elfSec{name: ".shstrtab", typ: 3, data: shstr})

	out := make([]byte, ehsize)
	offs := make([]int, len(secs))
	for i, s := range secs {
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		offs[i] = len(out)
		if s.typ != uint32(elf.SHT_NOBITS) {
			out = append(out, s.data...)
		}
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := len(out)
	nsec := len(secs) + 1 // with the null section
	strndx := len(secs)   // .shstrtab is last
	sh := func(name, typ uint32, flags uint64, off, size uint64, link uint32) {
		b := make([]byte, shentsize)
		bo.PutUint32(b[0:], name)
		bo.PutUint32(b[4:], typ)
		if is64 {
			bo.PutUint64(b[8:], flags)
			bo.PutUint64(b[24:], off)
			bo.PutUint64(b[32:], size)
			bo.PutUint32(b[40:], link)
			bo.PutUint64(b[48:], 1)
		} else {
			bo.PutUint32(b[8:], uint32(flags))
			bo.PutUint32(b[16:], uint32(off))
			bo.PutUint32(b[20:], uint32(size))
			bo.PutUint32(b[24:], link)
			bo.PutUint32(b[32:], 1)
		}
		out = append(out, b...)
	}
	if extended {
		sh(0, 0, 0, 0, uint64(nsec), uint32(strndx))
	} else {
		sh(0, 0, 0, 0, 0, 0)
	}
	for i, s := range secs {
		sh(nameOff[i], s.typ, s.flags, uint64(offs[i]), uint64(len(s.data)), 0)
	}

	copy(out, "\x7fELF")
	out[4] = elfClass32
	if is64 {
		out[4] = elfClass64
	}
	out[5] = elfData2LSB
	if bo == binary.BigEndian {
		out[5] = elfData2MSB
	}
	out[6] = 1 // EV_CURRENT
	bo.PutUint16(out[16:], uint16(elf.ET_REL))
	bo.PutUint16(out[18:], uint16(elf.EM_BPF))
	bo.PutUint32(out[20:], 1)
	shnum, shstrndx := uint16(nsec), uint16(strndx)
	if extended {
		shnum, shstrndx = 0, shnXindex
	}
	if is64 {
		bo.PutUint64(out[40:], uint64(shoff))
		bo.PutUint16(out[52:], uint16(ehsize))
		bo.PutUint16(out[58:], uint16(shentsize))
		bo.PutUint16(out[60:], shnum)
		bo.PutUint16(out[62:], shstrndx)
	} else {
		bo.PutUint32(out[32:], uint32(shoff))
		bo.PutUint16(out[40:], uint16(ehsize))
		bo.PutUint16(out[46:], uint16(shentsize))
		bo.PutUint16(out[48:], shnum)
		bo.PutUint16(out[50:], shstrndx)
	}
	return out
}

// countingReader records how many bytes were read, to show that only the
// headers and the wanted section are.
type countingReader struct {
	r io.ReaderAt
	n int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += n
	return n, err
}

func TestELFSection(t *testing.T) {
	raw := allKinds().Marshal()
	big := bytes.Repeat([]byte{0xaa}, 1<<16)
	for _, tc := range []struct {
		name     string
		is64     bool
		bo       binary.ByteOrder
		extended bool
	}{
		{"elf64-le", true, binary.LittleEndian, false},
		{"elf64-be", true, binary.BigEndian, false},
		{"elf32-le", false, binary.LittleEndian, false},
		{"elf32-be", false, binary.BigEndian, false},
		{"elf64-le-extnum", true, binary.LittleEndian, true},
		{"elf32-be-extnum", false, binary.BigEndian, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := makeELF(tc.is64, tc.bo, tc.extended,
				elfSec{name: ".text", typ: uint32(elf.SHT_PROGBITS), data: big},
				elfSec{name: ".bss", typ: uint32(elf.SHT_NOBITS), data: make([]byte, 100)},
				elfSec{name: ".BTF", typ: uint32(elf.SHT_PROGBITS), data: raw},
				elfSec{name: ".BTF.ext", typ: uint32(elf.SHT_PROGBITS), data: []byte{1, 2, 3}})
			// debug/elf is the oracle, except for extended numbering, which
			// it accepts only with 0xff00 sections or more.
			want := raw
			if !tc.extended {
				ef, err := elf.NewFile(bytes.NewReader(file))
				if err != nil {
					t.Fatalf("debug/elf rejects the test file: %v", err)
				}
				if want, err = ef.Section(".BTF").Data(); err != nil {
					t.Fatal(err)
				}
			}
			cr := &countingReader{r: bytes.NewReader(file)}
			got, err := ELFSection(cr, ".BTF")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) || !bytes.Equal(got, raw) {
				t.Fatal(".BTF bytes differ from debug/elf's")
			}
			if cr.n >= len(big) {
				t.Errorf("read %d bytes of a %d-byte file: must not read other sections", cr.n, len(file))
			}
			if b, _ := ELFSection(bytes.NewReader(file), ".BTF.ext"); !bytes.Equal(b, []byte{1, 2, 3}) {
				t.Errorf(".BTF.ext = %v", b)
			}
			if _, err := ELFSection(bytes.NewReader(file), ".bss"); err == nil {
				t.Error("SHT_NOBITS section read without error")
			}
			if _, err := ELFSection(bytes.NewReader(file), ".nope"); !errors.Is(err, ErrNoSection) {
				t.Errorf("missing section: %v", err)
			}
			s, err := Load(bytes.NewReader(file), nil)
			if err != nil {
				t.Fatal(err)
			}
			if dumpString(t, s) != dumpString(t, allKinds()) {
				t.Error("Load(ELF) gives other types")
			}
		})
	}
}

func TestLoadRawAndErrors(t *testing.T) {
	raw := allKinds().Marshal()
	// Raw BTF followed by junk: ReadRaw takes only what the header covers.
	s, err := Load(bytes.NewReader(append(append([]byte{}, raw...), 1, 2, 3)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(s.Marshal(), raw) {
		t.Error("raw load differs")
	}
	noBTF := makeELF(true, binary.LittleEndian, false, elfSec{name: ".text", typ: 1, data: []byte{1}})
	if _, err := Load(bytes.NewReader(noBTF), nil); !errors.Is(err, ErrNoBTF) {
		t.Errorf("ELF without .BTF: %v", err)
	}
	compressed := makeELF(true, binary.LittleEndian, false, elfSec{name: ".BTF", typ: 1, flags: shfCompressed, data: raw})
	if _, err := Load(bytes.NewReader(compressed), nil); err == nil {
		t.Error("compressed .BTF accepted")
	}
	for _, bad := range [][]byte{nil, {0x7f, 'E', 'L', 'F'}, {0x9f, 0xeb}, []byte("hello, world, this is not BTF")} {
		if _, err := Load(bytes.NewReader(bad), nil); err == nil {
			t.Errorf("Load(%q) succeeded", bad)
		}
	}
	// A section size far beyond the file must fail, not allocate it.
	huge := makeELF(true, binary.LittleEndian, false, elfSec{name: ".BTF", typ: 1, data: raw})
	ef, _ := elf.NewFile(bytes.NewReader(huge))
	shoff := int(binary.LittleEndian.Uint64(huge[40:]))
	idx := 0
	for i, sec := range ef.Sections {
		if sec.Name == ".BTF" {
			idx = i
		}
	}
	binary.LittleEndian.PutUint64(huge[shoff+idx*64+32:], 1<<40)
	if _, err := ELFSection(bytes.NewReader(huge), ".BTF"); err == nil {
		t.Error("1 TiB section accepted")
	}
}
