package dwarfread

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/btfstream/btfstream/stream/elffile"
)

func TestSizes(t *testing.T) {
	if s := unsafe.Sizeof(attrSpec{}); s != 16 {
		t.Errorf("sizeof(attrSpec) = %d, want 16", s)
	}
	if s := unsafe.Sizeof(abbrevDecl{}); s != 16 {
		t.Errorf("sizeof(abbrevDecl) = %d, want 16", s)
	}
	if s := unsafe.Sizeof(offBucket{}); s != 12 {
		t.Errorf("sizeof(offBucket) = %d, want 12", s)
	}
}

// newFile opens the DWARF of an ELF file held by r.
func newFile(name string, r io.ReaderAt, size int64, opts Options) (*File, error) {
	e, err := elffile.New(name, r, size, elffile.Options{CacheBytes: opts.CacheBytes})
	if err != nil {
		return nil, err
	}
	f := New(e)
	f.own = true
	return f, nil
}

func openBytes(t testing.TB, name string, b []byte) *File {
	t.Helper()
	f, err := newFile(name, bytes.NewReader(b), int64(len(b)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func collect(t *testing.T, f *File, opts UnitOptions) []string {
	t.Helper()
	var out []string
	for cu, err := range f.Units(opts) {
		if err != nil {
			t.Fatal(err)
		}
		for id := range cu.Len() {
			d := cu.DIE(TagID(id))
			line := d.String()
			for a := range d.Attrs() {
				switch a.Class() {
				case dwarf.ClassString:
					s, err := a.String()
					if err != nil {
						t.Fatal(err)
					}
					line += " " + a.At.String() + "=" + s
				case dwarf.ClassExprLoc:
					line += " " + a.At.String() + "=" + string(rune('0'+len(a.Block())))
				default:
					line += " " + a.At.String() + "=" + string(rune('0'+a.Val%10))
				}
			}
			out = append(out, line)
		}
		cu.Release()
	}
	return out
}

func TestSampleBothOrders(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		ab, in, str := sampleDWARF(order, 0x1d)
		f := openBytes(t, "sample", dwarfELF(order, ab, in, str))
		got := strings.Join(collect(t, f, UnitOptions{}), "\n")
		f.Close()
		for _, want := range []string{"Name=point", "Name=x", "Name=y", "Name=v", "Producer=test-cc", "Location=2"} {
			if !strings.Contains(got, want) {
				t.Errorf("%v: missing %q in\n%s", order, want, got)
			}
		}
		// The tree: the structure has two children; the variable is the
		// unit's third child and references the base type.
		f = openBytes(t, "sample", dwarfELF(order, ab, in, str))
		for cu, err := range f.Units(UnitOptions{}) {
			if err != nil {
				t.Fatal(err)
			}
			var kids []dwarf.Tag
			for d := range cu.Root().Children() {
				kids = append(kids, d.Tag())
				if d.Tag() == dwarf.TagStructType {
					n := 0
					for m := range d.Children() {
						n++
						ref, ok := m.Type()
						id, found := cu.Lookup(ref)
						if !ok || !found || cu.DIE(id).Tag() != dwarf.TagBaseType {
							t.Errorf("member type %#x does not resolve to the base type", ref)
						}
					}
					if n != 2 {
						t.Errorf("struct has %d members", n)
					}
				}
			}
			if len(kids) != 3 || kids[2] != dwarf.TagVariable {
				t.Errorf("unit children %v", kids)
			}
			if !cu.HasAttr(dwarf.AttrDataMemberLoc) || cu.HasAttr(dwarf.AttrBitSize) || cu.HasAttr(0x2139) {
				t.Error("HasAttr: want data_member_location declared, bit_size and GNU_annotation not")
			}
			if cu.Language() != 0x1d || cu.Producer() != "test-cc" {
				t.Errorf("language %#x producer %q", cu.Language(), cu.Producer())
			}
			cu.Release()
		}
		f.Close()
	}
}

// TestDropCaches: after DropCaches a file decodes the same, without its
// string, abbreviation and page caches.
func TestDropCaches(t *testing.T) {
	order := binary.LittleEndian
	ab, in, str := sampleDWARF(order, 0x1d)
	f := openBytes(t, "sample", dwarfELF(order, ab, in, str))
	defer f.Close()
	want := strings.Join(collect(t, f, UnitOptions{}), "\n")
	f.DropCaches()
	if f.strs != nil {
		t.Error("string cache kept")
	}
	if got := strings.Join(collect(t, f, UnitOptions{}), "\n"); got != want {
		t.Errorf("after DropCaches:\n%s\nwant\n%s", got, want)
	}
}

func TestLangExclude(t *testing.T) {
	order := binary.LittleEndian
	abC, inC, str := sampleDWARF(order, 0x1d)
	_, inR, _ := sampleDWARF(order, 0x1c) // Rust
	info := append(append(append([]byte{}, inC...), inR...), inC...)
	f := openBytes(t, "mixed", dwarfELF(order, abC, info, str))
	defer f.Close()
	count := func(opts UnitOptions) (n int, langs []uint16) {
		for cu, err := range f.Units(opts) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			langs = append(langs, cu.Language())
			cu.Release()
		}
		return
	}
	if n, _ := count(UnitOptions{}); n != 3 {
		t.Fatalf("%d units, want 3", n)
	}
	for _, jobs := range []int{1, 2} {
		n, langs := count(UnitOptions{Jobs: jobs, LangExclude: []string{"rust"}})
		if n != 2 || langs[0] != 0x1d || langs[1] != 0x1d {
			t.Fatalf("jobs %d: with rust excluded got %d units %v", jobs, n, langs)
		}
	}
	for _, bad := range []string{"klingon"} {
		for _, err := range f.Units(UnitOptions{LangExclude: []string{bad}}) {
			if !errors.Is(err, ErrUnknownLanguage) {
				t.Fatalf("LangExclude %q: %v", bad, err)
			}
		}
	}
}

// TestJobsOrder checks that the output does not depend on -j and that
// breaking out early stops the pipeline.
func TestJobsOrder(t *testing.T) {
	order := binary.BigEndian
	ab, in, str := sampleDWARF(order, 0x0c)
	var info []byte
	for range 50 {
		info = append(info, in...)
	}
	f := openBytes(t, "many", dwarfELF(order, ab, info, str))
	defer f.Close()
	want := collect(t, f, UnitOptions{Jobs: 1})
	for _, j := range []int{2, 3, 8} {
		got := collect(t, f, UnitOptions{Jobs: j})
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("jobs %d: output differs", j)
		}
	}
	n := 0
	for cu, err := range f.Units(UnitOptions{Jobs: 4}) {
		if err != nil {
			t.Fatal(err)
		}
		cu.Release()
		if n++; n == 3 {
			break
		}
	}
}

func TestErrors(t *testing.T) {
	order := binary.LittleEndian
	ab, in, str := sampleDWARF(order, 0x1d)
	bad := append([]byte{}, ab...)
	// Abbreviation 2's byte_size form: data1 -> 0x7e.
	i := bytes.Index(bad, []byte{0x0b, formData1, 0x3e})
	bad[i+1] = 0x7e
	f := openBytes(t, "vmlinux", dwarfELF(order, bad, in, str))
	defer f.Close()
	var err error
	for _, e := range f.Units(UnitOptions{}) {
		err = e
	}
	var se *elffile.Error
	if !errors.As(err, &se) || !errors.Is(err, elffile.ErrUnsupported) ||
		!strings.HasPrefix(err.Error(), "vmlinux: .debug_info+0x") || !strings.HasSuffix(err.Error(), "unknown form 0x7e") {
		t.Fatalf("got %v", err)
	}
	// A unit length beyond the section.
	trunc := append([]byte{}, in...)
	order.PutUint32(trunc, 0x7fffff)
	f2 := openBytes(t, "vmlinux", dwarfELF(order, ab, trunc, str))
	defer f2.Close()
	for _, e := range f2.Units(UnitOptions{}) {
		err = e
	}
	if !errors.Is(err, elffile.ErrFormat) || !strings.Contains(err.Error(), "vmlinux: .debug_info+0x0: unit length") {
		t.Fatalf("got %v", err)
	}
	if _, err := newFile("x", bytes.NewReader([]byte("\x7fELF")), 4, Options{}); !errors.Is(err, elffile.ErrFormat) {
		t.Fatalf("short file: %v", err)
	}
	p := filepath.Join(t.TempDir(), "nodwarf")
	os.WriteFile(p, buildELF(true, order, 2, elffile.EMX86_64, nil), 0o644)
	nf, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer nf.Close()
	for _, e := range nf.Units(UnitOptions{}) {
		err = e
	}
	if !errors.Is(err, ErrNoDWARF) {
		t.Fatalf("no DWARF: %v", err)
	}
}
