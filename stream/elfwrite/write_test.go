package elfwrite

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/outfile"
)

// fixtureC has no #include: gcc-multilib is absent, and -m32 and s390x
// builds must work with a bare compiler.
const fixtureC = `
struct point { int x; long y; unsigned char tag[3]; };
struct point origin;
static int counter;
int sum(struct point *p) { counter++; return p->x + (int)p->y; }
void _start(void) { sum(&origin); for (;;) ; }
`

// fixtureBTFC puts an allocated .BTF into a segment, as in a linked vmlinux
// after kbuild's objcopy --set-section-flags .BTF=alloc,readonly.
const fixtureBTFC = fixtureC + `
__attribute__((section(".BTF"), used)) const unsigned char btf_blob[4096] = { 1 };
`

// elfFixture is one gcc-built file of the table.
type elfFixture struct {
	name string
	cc   string
	args []string
	src  string
}

var elfFixtures = []elfFixture{
	{"x86_64.o", "gcc", []string{"-g", "-c"}, fixtureC},
	{"i386.o", "gcc", []string{"-m32", "-g", "-c"}, fixtureC},
	{"s390x.o", "s390x-linux-gnu-gcc", []string{"-g", "-c"}, fixtureC},
	{"x86_64.exec", "gcc", []string{"-g", "-O1", "-nostdlib", "-static"}, fixtureC},
	{"s390x.exec", "s390x-linux-gnu-gcc", []string{"-g", "-O1", "-nostdlib", "-static"}, fixtureC},
	{"x86_64-btf.o", "gcc", []string{"-g", "-c"}, fixtureBTFC},
	{"x86_64-btf.exec", "gcc", []string{"-g", "-nostdlib", "-static"}, fixtureBTFC},
	{"i386-btf.exec", "gcc", []string{"-m32", "-g", "-nostdlib", "-static"}, fixtureBTFC},
}

// buildFixture compiles f into dir, skipping the test if the compiler is
// missing or cannot build it (no 32-bit binutils, say).
func buildFixture(t *testing.T, dir string, f elfFixture) string {
	t.Helper()
	if _, err := exec.LookPath(f.cc); err != nil {
		t.Skipf("%s not installed", f.cc)
	}
	src := filepath.Join(dir, strings.ReplaceAll(f.name, ".", "_")+".c")
	if err := os.WriteFile(src, []byte(f.src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, f.name)
	args := append(append([]string{}, f.args...), "-o", out, src)
	if b, err := exec.Command(f.cc, args...).CombinedOutput(); err != nil {
		t.Skipf("%s %v: %v\n%s", f.cc, args, err, b)
	}
	return out
}

// testBTF returns raw BTF with a few types; words adds padding types so
// tests can make bigger or smaller sections.
func testBTF(t *testing.T, bo binary.ByteOrder, extra int) []byte {
	t.Helper()
	s := btf.NewSpec()
	s.ByteOrder = bo
	intID := s.Add(btf.Type{NameOff: s.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.IntSigned<<24|32)
	s.Add(btf.Type{NameOff: s.Strings().Add("point"), Info: btf.MakeInfo(btf.KindStruct, 1, false), SizeOrType: 4},
		uint32(s.Strings().Add("x")), uint32(intID), 0)
	for i := 0; i < extra; i++ {
		s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(intID)})
	}
	return s.Marshal()
}

// readelfCheck runs readelf -lSW and fails on any warning or error.
func readelfCheck(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath("readelf"); err != nil {
		return ""
	}
	var stderr bytes.Buffer
	cmd := exec.Command("readelf", "-lSW", path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("readelf -lSW %s: %v\n%s", path, err, stderr.String())
	}
	return string(out)
}

// programHeaders describes the program header table, one line a segment.
func programHeaders(t *testing.T, path string) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	for _, p := range f.Progs {
		fmt.Fprintf(&b, "%v off %#x vaddr %#x filesz %#x memsz %#x flags %v align %#x\n",
			p.Type, p.Off, p.Vaddr, p.Filesz, p.Memsz, p.Flags, p.Align)
	}
	return b.String()
}

// sectionContents maps each section name except skip to its bytes.
func sectionContents(t *testing.T, path, skip string) map[string][]byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("debug/elf: %v", err)
	}
	defer f.Close()
	m := map[string][]byte{}
	for _, s := range f.Sections {
		if s.Name == skip || s.Name == ".shstrtab" || s.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := s.Data()
		if err != nil {
			t.Fatalf("%s: section %s: %v", path, s.Name, err)
		}
		m[s.Name] = b
	}
	return m
}

// checkBTFSection reads .BTF back with debug/elf and btf.Parse.
func checkBTFSection(t *testing.T, path string, want []byte) *elf.Section {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("debug/elf: %v", err)
	}
	defer f.Close()
	s := f.Section(".BTF")
	if s == nil {
		t.Fatalf("%s: no .BTF", path)
	}
	got, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: .BTF has %d bytes, differs from the %d written", path, len(got), len(want))
	}
	if _, err := btf.Parse(got, nil); err != nil {
		t.Fatalf("%s: .BTF does not parse: %v", path, err)
	}
	return s
}

func fileOrder(t *testing.T, path string) binary.ByteOrder {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.ByteOrder
}

// noTempFiles fails if a writer left a temporary file in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.btfstream-*"))
	if len(m) > 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

func TestWriteSection(t *testing.T) {
	dir := t.TempDir()
	for _, fx := range elfFixtures {
		t.Run(fx.name, func(t *testing.T) {
			path := buildFixture(t, dir, fx)
			orig, _ := os.ReadFile(path)
			bo := fileOrder(t, path)
			phdrs := programHeaders(t, path)
			others := sectionContents(t, path, ".BTF")
			inSegment := strings.HasSuffix(fx.name, "-btf.exec")

			for _, step := range []struct {
				name  string
				extra int
			}{{"add", 10}, {"same", 10}, {"smaller", 2}, {"larger", 200}, {"too large", 400}} {
				data := testBTF(t, bo, step.extra)
				err := WriteSection(path, ".BTF", data)
				if inSegment && len(data) > 4096 {
					if !errors.Is(err, ErrSectionFull) {
						t.Fatalf("%s: err %v, want ErrSectionFull", step.name, err)
					}
					t.Logf("refused as expected: %v", err)
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				readelfCheck(t, path)
				checkBTFSection(t, path, data)
				if got := programHeaders(t, path); got != phdrs {
					t.Fatalf("%s: program headers changed:\n%s\nwant\n%s", step.name, got, phdrs)
				}
				for name, want := range sectionContents(t, path, ".BTF") {
					if !bytes.Equal(want, others[name]) {
						t.Fatalf("%s: section %s changed", step.name, name)
					}
				}
				if step.name == "same" {
					// Idempotent: the second identical run leaves the
					// same bytes.
					prev, _ := os.ReadFile(path)
					if err := WriteSection(path, ".BTF", data); err != nil {
						t.Fatal(err)
					}
					now, _ := os.ReadFile(path)
					if !bytes.Equal(prev, now) {
						t.Fatalf("second run changed the file (%d -> %d bytes)", len(prev), len(now))
					}
				}
			}
			noTempFiles(t, dir)
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o755 && strings.HasSuffix(fx.name, ".exec") {
				t.Errorf("mode %v, want the linker's 0755 kept", fi.Mode())
			}
			_ = orig
		})
	}
}

// TestWriteELFSectionNewMatchesObjcopy checks the new section header
// against what llvm-objcopy --add-section (pahole's route) makes.
func TestWriteELFSectionNewMatchesObjcopy(t *testing.T) {
	dir := t.TempDir()
	path := buildFixture(t, dir, elfFixtures[0])
	data := testBTF(t, binary.LittleEndian, 3)
	if err := WriteSection(path, ".BTF", data); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".BTF")
	if s.Type != elf.SHT_PROGBITS || s.Flags != 0 || s.Addralign != 1 || s.Entsize != 0 || s.Link != 0 || s.Info != 0 {
		t.Errorf(".BTF header %+v, want PROGBITS, flags 0, align 1", s.SectionHeader)
	}
	if f.Sections[len(f.Sections)-1] != s {
		t.Errorf(".BTF is not the last section header")
	}
}

func TestWriteELFSectionBadInput(t *testing.T) {
	dir := t.TempDir()
	path := buildFixture(t, dir, elfFixtures[0])
	good, _ := os.ReadFile(path)
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	shoff := int64(binary.LittleEndian.Uint64(good[40:]))
	strtab := ef.Section(".shstrtab")
	ef.Close()
	data := testBTF(t, binary.LittleEndian, 1)

	for _, c := range []struct {
		name string
		size int64
		want string
	}{
		{"empty", 0, "ELF header"},
		{"half header", 30, "ELF header"},
		{"no section headers", shoff + 100, "section headers"},
		{"shstrtab cut", int64(strtab.Offset) + 4, "section headers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "trunc.o")
			if err := os.WriteFile(p, good[:min(c.size, int64(len(good)))], 0o644); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(p)
			err := WriteSection(p, ".BTF", data)
			if err == nil {
				t.Fatalf("no error for a file cut at %d bytes", c.size)
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q: want the file name and %q", err, c.want)
			}
			after, _ := os.ReadFile(p)
			if !bytes.Equal(before, after) {
				t.Errorf("input changed on error")
			}
			noTempFiles(t, dir)
		})
	}

	t.Run("not ELF", func(t *testing.T) {
		p := filepath.Join(dir, "text.o")
		os.WriteFile(p, bytes.Repeat([]byte("hello world\n"), 10), 0o644)
		if err := WriteSection(p, ".BTF", data); err == nil || !strings.Contains(err.Error(), "bad magic") {
			t.Errorf("err %v, want bad magic", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		p := filepath.Join(dir, "nonexistent.o")
		if err := WriteSection(p, ".BTF", data); err == nil || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err %v, want not exist", err)
		}
	})
	t.Run("directory gone", func(t *testing.T) {
		if err := WriteFileAtomic(filepath.Join(dir, "no/such/dir/x.btf"), data); err == nil {
			t.Errorf("no error writing into a missing directory")
		}
	})
	t.Run("disk full", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("no /dev/full")
		}
		err := WriteFileAtomic("/dev/full", data)
		if err == nil || !strings.Contains(err.Error(), "/dev/full") {
			t.Errorf("err %v, want a /dev/full error", err)
		}
	})
	t.Run("input shorter than planned", func(t *testing.T) {
		// The copy fails half way: the error names the user's path (not
		// a temporary file), the path keeps its contents, nothing is left.
		p := filepath.Join(dir, "keep.ko")
		os.WriteFile(p, []byte("old"), 0o640)
		e, err := readLayout(path, bytes.NewReader(good), int64(len(good)))
		if err != nil {
			t.Fatal(err)
		}
		plan, err := e.planSection(".BTF", data)
		if err != nil {
			t.Fatal(err)
		}
		o, err := outfile.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		err = plan.write(o, bytes.NewReader(good[:len(good)/2]))
		o.Abort()
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || strings.Contains(err.Error(), "btfstream-") {
			t.Fatalf("err %v, want one naming %s", err, p)
		}
		if b, _ := os.ReadFile(p); string(b) != "old" {
			t.Errorf("file now %q", b)
		}
		noTempFiles(t, dir)
	})
	t.Run("write fails", func(t *testing.T) {
		// A read-only descriptor makes every write fail, as a full disk
		// would, through the same error path.
		ro, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		e, err := readLayout(path, ro, int64(len(good)))
		if err != nil {
			t.Fatal(err)
		}
		plan, err := e.planSection(".BTF", data)
		if err != nil {
			t.Fatal(err)
		}
		if err := plan.write(ro, bytes.NewReader(good)); err == nil {
			t.Fatal("no error writing to a read-only file")
		}
	})
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.btf")
	if err := WriteFileAtomic(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o600)
	if err := WriteFileAtomic(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || fi.Mode().Perm() != 0o600 {
		t.Errorf("got %q mode %v", b, fi.Mode())
	}
	if err := WriteFileAtomic(os.DevNull, []byte("x")); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	noTempFiles(t, dir)
}

// syntheticELF returns an ELF64 little-endian ET_REL with n sections: the
// null section, n-2 empty PROGBITS ".s" and .shstrtab last, using extended
// numbering when n needs it.
func syntheticELF(n int) []byte {
	bo := binary.LittleEndian
	strtab := []byte("\x00.s\x00.shstrtab\x00")
	shoff := alignUp(64+uint64(len(strtab)), 8)
	out := make([]byte, shoff+uint64(n)*64)
	copy(out, elf.ELFMAG)
	out[elf.EI_CLASS], out[elf.EI_DATA], out[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), 1
	bo.PutUint16(out[16:], uint16(elf.ET_REL))
	bo.PutUint16(out[18:], uint16(elf.EM_X86_64))
	bo.PutUint32(out[20:], 1)
	bo.PutUint64(out[40:], shoff)
	bo.PutUint16(out[52:], 64)
	bo.PutUint16(out[58:], 64)
	copy(out[64:], strtab)
	e := &elffile.File{Class64: true, Order: bo}
	strndx := uint32(n - 1)
	s0 := elffile.SectionHeader{}
	if n >= int(elf.SHN_LORESERVE) {
		s0.Size = uint64(n)
	} else {
		bo.PutUint16(out[60:], uint16(n))
	}
	if strndx >= uint32(elf.SHN_LORESERVE) {
		s0.Link = strndx
		bo.PutUint16(out[62:], uint16(elf.SHN_XINDEX))
	} else {
		bo.PutUint16(out[62:], uint16(strndx))
	}
	e.EncodeShdr(out[shoff:], &s0)
	for i := 1; i < n-1; i++ {
		e.EncodeShdr(out[shoff+uint64(i)*64:], &elffile.SectionHeader{NameOff: 1, Type: uint32(elf.SHT_PROGBITS), Offset: 64, Addralign: 1})
	}
	e.EncodeShdr(out[shoff+uint64(n-1)*64:], &elffile.SectionHeader{NameOff: 4, Type: uint32(elf.SHT_STRTAB), Offset: 64, Size: uint64(len(strtab)), Addralign: 1})
	return out
}

func TestWriteELFSectionExtendedNumbering(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{int(elf.SHN_LORESERVE) - 1, int(elf.SHN_LORESERVE) + 10} {
		path := filepath.Join(dir, fmt.Sprintf("many%d.o", n))
		if err := os.WriteFile(path, syntheticELF(n), 0o644); err != nil {
			t.Fatal(err)
		}
		readelfCheck(t, path)
		data := testBTF(t, binary.LittleEndian, 5)
		if err := WriteSection(path, ".BTF", data); err != nil {
			t.Fatal(err)
		}
		readelfCheck(t, path)
		checkBTFSection(t, path, data)
		f, _ := elf.Open(path)
		if len(f.Sections) != n+1 || f.Sections[n].Name != ".BTF" || f.Sections[n-1].Name != ".shstrtab" {
			t.Errorf("n=%d: %d sections after adding, .BTF not last or .shstrtab moved", n, len(f.Sections))
		}
		f.Close()
		prev, _ := os.ReadFile(path)
		if err := WriteSection(path, ".BTF", data); err != nil {
			t.Fatal(err)
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(prev, now) {
			t.Errorf("n=%d: second run changed the file", n)
		}
	}
}

func TestWriteELFSectionCorruptHeader(t *testing.T) {
	dir := t.TempDir()
	good := syntheticELF(4)
	bad := append([]byte(nil), good...)
	shoff := binary.LittleEndian.Uint64(bad[40:])
	binary.LittleEndian.PutUint64(bad[shoff+3*64+32:], 1<<40) // .shstrtab sh_size
	path := filepath.Join(dir, "bad.o")
	os.WriteFile(path, bad, 0o644)
	err := WriteSection(path, ".BTF", testBTF(t, binary.LittleEndian, 0))
	if err == nil || !strings.Contains(err.Error(), "exceeds the file") || !strings.Contains(err.Error(), "section headers+0x") {
		t.Errorf("err %v, want a section exceeding the file", err)
	}
}

// FuzzELFOut feeds arbitrary files to the layout reader and planner: they
// must return an error or a plan whose pieces stay inside the output, never
// panic.
func FuzzELFOut(f *testing.F) {
	f.Add(syntheticELF(4))
	f.Add(syntheticELF(40))
	if b, err := os.ReadFile("/bin/true"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		e, err := readLayout("fuzz", bytes.NewReader(file), int64(len(file)))
		if err != nil {
			return
		}
		p, err := e.planSection(".BTF", []byte("BTF data"))
		if err != nil {
			return
		}
		if p.cut > p.size && p.size != uint64(len(file)) {
			t.Fatalf("cut %#x past size %#x", p.cut, p.size)
		}
		for _, pc := range p.pieces {
			if end := pc.off + uint64(len(pc.data)) + pc.zeros; end > p.size {
				t.Fatalf("piece [%#x, %#x) past the output size %#x", pc.off, end, p.size)
			}
		}
		// Writing the plan gives a file of the planned size that holds the
		// input up to the cut wherever no piece (a new header, the section)
		// overwrites it; or it fails cleanly, naming the output.
		if p.size > 64<<20 {
			return
		}
		var out memOutput
		if err := p.write(&out, bytes.NewReader(file)); err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz: ") {
				t.Fatalf("error not naming the output: %v", err)
			}
			return
		}
		if uint64(len(out.b)) != p.size {
			t.Fatalf("wrote %d bytes, planned %d", len(out.b), p.size)
		}
		covered := make([]bool, p.size)
		for _, pc := range p.pieces {
			for i := pc.off; i < pc.off+uint64(len(pc.data))+pc.zeros; i++ {
				covered[i] = true
			}
		}
		for i := uint64(0); i < min(p.cut, p.size, uint64(len(file))); i++ {
			if !covered[i] && out.b[i] != file[i] {
				t.Fatalf("byte %#x below the cut %#x changed", i, p.cut)
			}
		}
	})
}

// memOutput is an in-memory output for plan.write.
type memOutput struct{ b []byte }

func (m *memOutput) Name() string { return "fuzz" }

func (m *memOutput) Write(b []byte) (int, error) { m.b = append(m.b, b...); return len(b), nil }

func (m *memOutput) WriteAt(b []byte, off int64) (int, error) {
	if end := int(off) + len(b); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	return copy(m.b[off:], b), nil
}

func (m *memOutput) Truncate(n int64) error {
	if int(n) <= len(m.b) {
		m.b = m.b[:n]
	} else {
		m.b = append(m.b, make([]byte, int(n)-len(m.b))...)
	}
	return nil
}

// TestWriteSectionsIf: a check that fails once the new file is written
// leaves the input as it was, nothing beside it, and its error returned
// as it is; one that passes gives what WriteSection gives.
func TestWriteSectionsIf(t *testing.T) {
	dir := t.TempDir()
	fx := elfFixtures[0]
	path := buildFixture(t, dir, fx)
	orig, _ := os.ReadFile(path)
	data := testBTF(t, fileOrder(t, path), 10)
	bad := errors.New("invalid output")
	if err := WriteSectionsIf(path, func() error { return bad }, Section{Name: ".BTF", Data: data}); err != bad {
		t.Fatalf("refused: err %v, want %v", err, bad)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Fatal("a refused write changed the file")
	}
	noTempFiles(t, dir)
	calls := 0
	if err := WriteSectionsIf(path, func() error { calls++; return nil }, Section{Name: ".BTF", Data: data}); err != nil || calls != 1 {
		t.Fatalf("passed: err %v, %d checks", err, calls)
	}
	checkBTFSection(t, path, data)
	noTempFiles(t, dir)
}
