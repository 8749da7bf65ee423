package elffile

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/btf"
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
	out[4] = 1
	if is64 {
		out[4] = 2
	}
	out[5] = 1
	if bo == binary.BigEndian {
		out[5] = 2
	}
	out[6] = 1 // EV_CURRENT
	bo.PutUint16(out[16:], uint16(elf.ET_REL))
	bo.PutUint16(out[18:], uint16(elf.EM_BPF))
	bo.PutUint32(out[20:], 1)
	shnum, shstrndx := uint16(nsec), uint16(strndx)
	if extended {
		shnum, shstrndx = 0, SHNXIndex
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

// sampleBTF is a small BTF in byte order bo: an int, a pointer to it, a
// struct with both.
func sampleBTF(bo binary.ByteOrder) []byte {
	s := btf.NewSpec()
	s.ByteOrder = bo
	strs := s.Strings()
	i := s.Add(btf.Type{NameOff: strs.Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.MakeIntInfo(btf.IntSigned, 0, 32))
	p := s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(i)})
	s.Add(btf.Type{NameOff: strs.Add("pair"), Info: btf.MakeInfo(btf.KindStruct, 2, false), SizeOrType: 16},
		uint32(strs.Add("n")), uint32(i), 0, uint32(strs.Add("p")), uint32(p), 64)
	return s.Marshal()
}

// sectionNamed reads a section of the ELF file in data, as ReadNamedSection
// does for a path.
func sectionNamed(r io.ReaderAt, size int, name string) ([]byte, error) {
	f, err := New("test.o", r, int64(size), Options{CacheBytes: -1})
	if err != nil {
		return nil, err
	}
	s, ok := f.Section(name)
	if !ok {
		return nil, &Error{File: "test.o", Err: ErrNoSection}
	}
	if s.Type == SHTNobits {
		return nil, &Error{File: "test.o", Section: name, Msg: "SHT_NOBITS", Err: ErrFormat}
	}
	return f.ReadSectionRaw(s)
}

func TestReadBTF(t *testing.T) {
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
			raw := sampleBTF(tc.bo)
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
			got, err := ReadBTF("test.o", cr, int64(len(file)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) || !bytes.Equal(got, raw) {
				t.Fatal(".BTF bytes differ from debug/elf's")
			}
			if cr.n >= len(big) {
				t.Errorf("read %d bytes of a %d-byte file: must not read other sections", cr.n, len(file))
			}
			if b, _ := sectionNamed(bytes.NewReader(file), len(file), ".BTF.ext"); !bytes.Equal(b, []byte{1, 2, 3}) {
				t.Errorf(".BTF.ext = %v", b)
			}
			if _, err := sectionNamed(bytes.NewReader(file), len(file), ".bss"); err == nil {
				t.Error("SHT_NOBITS section read without error")
			}
			if _, err := sectionNamed(bytes.NewReader(file), len(file), ".nope"); !errors.Is(err, ErrNoSection) {
				t.Errorf("missing section: %v", err)
			}
			s, err := btf.Parse(got, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(s.Marshal(), raw) {
				t.Error("the BTF read back marshals differently")
			}
		})
	}
}

func TestReadBTFRawAndErrors(t *testing.T) {
	raw := sampleBTF(binary.LittleEndian)
	// Raw BTF followed by junk: ReadRaw takes only what the header covers.
	withJunk := append(append([]byte{}, raw...), 1, 2, 3)
	got, err := ReadBTF("raw.btf", bytes.NewReader(withJunk), int64(len(withJunk)))
	if err != nil || !bytes.Equal(got, raw) {
		t.Errorf("raw BTF: %v", err)
	}
	noBTF := makeELF(true, binary.LittleEndian, false, elfSec{name: ".text", typ: 1, data: []byte{1}})
	_, err = ReadBTF("x.o", bytes.NewReader(noBTF), int64(len(noBTF)))
	var fe *Error
	if !errors.Is(err, btf.ErrNoBTF) || !errors.As(err, &fe) || fe.File != "x.o" {
		t.Errorf("ELF without .BTF: %v", err)
	}
	// The cause is not said twice ("no .BTF section: no .BTF section").
	if err != nil && err.Error() != "x.o: no .BTF section" {
		t.Errorf("ELF without .BTF: message %q", err)
	}
	// SHF_COMPRESSED .BTF (zlib) is inflated.
	var z bytes.Buffer
	ch := make([]byte, 24)
	binary.LittleEndian.PutUint32(ch, elfCompressZlib)
	binary.LittleEndian.PutUint64(ch[8:], uint64(len(raw)))
	binary.LittleEndian.PutUint64(ch[16:], 1)
	z.Write(ch)
	zw := zlib.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	compressed := makeELF(true, binary.LittleEndian, false, elfSec{name: ".BTF", typ: 1, flags: SHFCompressed, data: z.Bytes()})
	if got, err := ReadBTF("z.o", bytes.NewReader(compressed), int64(len(compressed))); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("compressed .BTF: %v", err)
	}
	for _, bad := range [][]byte{nil, {0x7f, 'E', 'L', 'F'}, {0x9f, 0xeb}, []byte("hello, world, this is not BTF")} {
		if _, err := ReadBTF("bad", bytes.NewReader(bad), int64(len(bad))); err == nil {
			t.Errorf("ReadBTF(%q) succeeded", bad)
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
	if _, err := ReadBTF("huge", bytes.NewReader(huge), int64(len(huge))); err == nil {
		t.Error("1 TiB section accepted")
	}
}

// TestLoadBTF loads a file from disk, raw and in an ELF wrapper, and checks
// that a bad one is reported with the path.
func TestLoadBTF(t *testing.T) {
	dir := t.TempDir()
	raw := sampleBTF(binary.BigEndian)
	files := map[string][]byte{
		"raw.btf": raw,
		"elf.o":   makeELF(true, binary.BigEndian, false, elfSec{name: ".BTF", typ: 1, data: raw}),
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := LoadBTF(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(s.Marshal(), raw) {
			t.Errorf("%s: loads differently", name)
		}
	}
	bad := filepath.Join(dir, "bad.btf")
	os.WriteFile(bad, raw[:30], 0o644)
	_, err := LoadBTF(bad, nil)
	var fe *Error
	if err == nil || !errors.As(err, &fe) || fe.File != bad {
		t.Errorf("truncated BTF: %v", err)
	}
}

// TestLoadBaseForProcess: a base loaded for the process (outside the Go
// heap) is what LoadSoundBTF loads, from raw BTF and from an ELF's .BTF,
// plain or compressed; a truncated or structurally broken base fails with
// an error naming the file.
func TestLoadBaseForProcess(t *testing.T) {
	dir := t.TempDir()
	raw := sampleBTF(binary.LittleEndian)
	var z bytes.Buffer
	ch := make([]byte, 24)
	binary.LittleEndian.PutUint32(ch, elfCompressZlib)
	binary.LittleEndian.PutUint64(ch[8:], uint64(len(raw)))
	binary.LittleEndian.PutUint64(ch[16:], 1)
	z.Write(ch)
	zw := zlib.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	// A type naming a string beyond the string section: only the
	// structural check finds it.
	broken, err := btf.Parse(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	bt := broken.Type(1)
	bt.NameOff = btf.StrOff(broken.Strings().Len() + 100)
	broken.SetType(1, bt)
	files := []struct {
		name string
		data []byte
		ok   bool
	}{
		{"raw.btf", raw, true},
		{"elf.o", makeELF(true, binary.LittleEndian, false, elfSec{name: ".BTF", typ: 1, data: raw}), true},
		{"zlib.o", makeELF(true, binary.LittleEndian, false, elfSec{name: ".BTF", typ: 1, flags: SHFCompressed, data: z.Bytes()}), true},
		{"cut.btf", raw[:len(raw)-1], false},
		{"cut.o", makeELF(true, binary.LittleEndian, false, elfSec{name: ".BTF", typ: 1, data: raw[:len(raw)-5]}), false},
		{"broken.btf", broken.Marshal(), false},
		{"none.o", makeELF(true, binary.LittleEndian, false, elfSec{name: ".text", typ: 1, data: []byte{1}}), false},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadBaseForProcess(p)
		want, werr := LoadSoundBTF(p, nil)
		if (err == nil) != f.ok || (werr == nil) != f.ok {
			t.Errorf("%s: LoadBaseForProcess: %v; LoadSoundBTF: %v", f.name, err, werr)
			continue
		}
		if !f.ok {
			var fe *Error
			if !errors.As(err, &fe) || fe.File != p || err.Error() != werr.Error() {
				t.Errorf("%s: %v, want %v", f.name, err, werr)
			}
			continue
		}
		if !bytes.Equal(got.Marshal(), want.Marshal()) || !bytes.Equal(got.Marshal(), raw) {
			t.Errorf("%s: loads differently", f.name)
		}
	}
}
