package elfwrite

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/stream/elffile"
)

// TestWriteSections writes .BTF and .BTF.base into an object (an
// out-of-tree module gets both), then again with other sizes, and checks
// each pass: both sections read back, every other section is unchanged,
// readelf is clean and no temporary file is left.
func TestWriteSections(t *testing.T) {
	dir := t.TempDir()
	path := buildFixture(t, dir, elfFixtures[0])
	others := sectionContents(t, path, ".BTF")
	for _, sizes := range [][2]int{{10, 3}, {10, 3}, {2, 40}, {200, 1}} {
		btfData := testBTF(t, binary.LittleEndian, sizes[0])
		baseData := testBTF(t, binary.LittleEndian, sizes[1])
		if err := WriteSections(path, Section{".BTF", btfData}, Section{".BTF.base", baseData}); err != nil {
			t.Fatalf("sizes %v: %v", sizes, err)
		}
		readelfCheck(t, path)
		checkBTFSection(t, path, btfData)
		f, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s := f.Section(".BTF.base")
		if s == nil {
			t.Fatalf("sizes %v: no .BTF.base", sizes)
		}
		got, _ := s.Data()
		f.Close()
		if !bytes.Equal(got, baseData) {
			t.Fatalf("sizes %v: .BTF.base has %d bytes, want the %d written", sizes, len(got), len(baseData))
		}
		for name, want := range sectionContents(t, path, ".BTF") {
			if name != ".BTF.base" && !bytes.Equal(want, others[name]) {
				t.Fatalf("sizes %v: section %s changed", sizes, name)
			}
		}
		noTempFiles(t, dir)
	}
}

// TestWriteSectionsError: when a later section cannot be written the
// file is unchanged (no .BTF without its .BTF.base) and nothing is left
// behind.
func TestWriteSectionsError(t *testing.T) {
	dir := t.TempDir()
	path := buildFixture(t, dir, elfFixtures[0])
	orig, _ := os.ReadFile(path)
	// .bss is SHT_NOBITS: the second section cannot go there.
	err := WriteSections(path, Section{".BTF", testBTF(t, binary.LittleEndian, 1)}, Section{".bss", []byte{1}})
	if err == nil || !errors.Is(err, elffile.ErrFormat) {
		t.Fatalf("err %v, want ErrFormat", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("file changed after a failed write")
	}
	noTempFiles(t, dir)
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) == 0 {
		t.Error("fixture vanished")
	}
}
