package elfwrite

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lldFixture is linked by ld.lld (testdata/lld-empty-btf.sh): an empty,
// allocated .BTF inside the read-only LOAD segment, followed by .BTF_ids,
// as in kbuild's .tmp_vmlinux1 under make LLVM=1.
const lldFixture = "testdata/lld-empty-btf.elf"

// readelfProgramHeaders returns readelf -lW's program header table (the
// lines from "Program Headers:" up to the section to segment mapping).
func readelfProgramHeaders(t *testing.T, out string) string {
	t.Helper()
	_, after, ok := strings.Cut(out, "Program Headers:")
	if !ok {
		t.Fatalf("no program headers in readelf's output:\n%s", out)
	}
	table, _, _ := strings.Cut(after, "Section to Segment mapping:")
	return table
}

// loadedBytes returns the file bytes every PT_LOAD segment holds, in
// order: what a loader maps, less the ELF header (its e_shoff changes
// when the section header table moves; no program reads it).
func loadedBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []byte
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			lo := max(p.Off, 64)
			out = append(out, b[lo:max(lo, p.Off+p.Filesz)]...)
		}
	}
	return out
}

func TestWriteSectionLLDEmptyBTF(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "vmlinux")
	orig, err := os.ReadFile(lldFixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, orig, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	old := f.Section(".BTF")
	if old == nil || old.Size != 0 || old.Flags&elf.SHF_ALLOC == 0 {
		f.Close()
		t.Fatalf("fixture's .BTF is %+v, want empty and allocated", old)
	}
	oldHdr := old.SectionHeader
	inSegment := false
	nsec := len(f.Sections)
	segEnd := uint64(0)
	for _, p := range f.Progs {
		segEnd = max(segEnd, p.Off+p.Filesz)
		if p.Type == elf.PT_LOAD && old.Addr > p.Vaddr && old.Addr < p.Vaddr+p.Memsz {
			inSegment = true
		}
	}
	btfIndex := -1
	for i, s := range f.Sections {
		if s == old {
			btfIndex = i
		}
	}
	f.Close()
	if !inSegment {
		t.Fatalf("fixture's .BTF at %#x is not strictly inside a LOAD segment", old.Addr)
	}
	phdrs := programHeaders(t, path)
	readelfBefore := readelfCheck(t, path)
	loaded := loadedBytes(t, path)
	others := sectionContents(t, path, ".BTF")

	for _, step := range []struct {
		name  string
		extra int
	}{{"add", 10}, {"same", 10}, {"smaller", 2}, {"larger", 200}} {
		data := testBTF(t, binary.LittleEndian, step.extra)
		prev, _ := os.ReadFile(path)
		if err := WriteSection(path, ".BTF", data); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		readelfAfter := readelfCheck(t, path)
		if readelfBefore != "" && readelfProgramHeaders(t, readelfAfter) != readelfProgramHeaders(t, readelfBefore) {
			t.Fatalf("%s: readelf -lSW's program headers changed:\n%s\nwant\n%s", step.name,
				readelfProgramHeaders(t, readelfAfter), readelfProgramHeaders(t, readelfBefore))
		}
		if got := programHeaders(t, path); got != phdrs {
			t.Fatalf("%s: program headers changed:\n%s\nwant\n%s", step.name, got, phdrs)
		}
		if !bytes.Equal(loadedBytes(t, path), loaded) {
			t.Fatalf("%s: the bytes the segments load changed", step.name)
		}
		for name, want := range sectionContents(t, path, ".BTF") {
			if !bytes.Equal(want, others[name]) {
				t.Fatalf("%s: section %s changed", step.name, name)
			}
		}
		s := checkBTFSection(t, path, data)
		if s.Flags != 0 || s.Addr != 0 || s.Type != elf.SHT_PROGBITS || s.Offset < segEnd {
			t.Fatalf("%s: .BTF header %+v, want PROGBITS, flags 0, address 0, after the segments", step.name, s.SectionHeader)
		}
		ef, _ := elf.Open(path)
		if len(ef.Sections) != nsec || ef.Sections[btfIndex].Name != ".BTF" {
			t.Fatalf("%s: %d sections, .BTF not at index %d", step.name, len(ef.Sections), btfIndex)
		}
		ef.Close()
		if step.name == "same" {
			if now, _ := os.ReadFile(path); !bytes.Equal(prev, now) {
				t.Fatalf("second run with the same data changed the file (%d -> %d bytes)", len(prev), len(now))
			}
		}
	}
	noTempFiles(t, dir)
	t.Logf(".BTF was %+v", oldHdr)
	objcopyOnlyBTF(t, path)
}

// objcopyOnlyBTF runs kbuild's next step on path (scripts/link-vmlinux.sh,
// Linux 6.12): extract .BTF as an allocated section, with every objcopy
// installed, and checks the result holds path's .BTF.
func objcopyOnlyBTF(t *testing.T, path string) {
	want := sectionContents(t, path, "")[".BTF"]
	ran := 0
	for _, objcopy := range []string{"objcopy", "llvm-objcopy"} {
		if _, err := exec.LookPath(objcopy); err != nil {
			continue
		}
		ran++
		out := filepath.Join(t.TempDir(), ".btf.vmlinux.bin.o")
		cmd := exec.Command(objcopy, "--only-section=.BTF", "--set-section-flags", ".BTF=alloc,readonly", "--strip-all", path, out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, b)
		}
		f, err := elf.Open(out)
		if err != nil {
			t.Fatalf("%s output: %v", objcopy, err)
		}
		s := f.Section(".BTF")
		var got []byte
		if s != nil {
			got, err = s.Data()
		}
		f.Close()
		if s == nil || err != nil || !bytes.Equal(got, want) || s.Flags&elf.SHF_ALLOC == 0 {
			t.Fatalf("%s --only-section=.BTF: section %v (%v), want the %d bytes written, allocated", objcopy, s, err, len(want))
		}
	}
	if ran == 0 {
		t.Log("no objcopy installed: kbuild's extraction not checked")
	}
}

// TestWriteSectionLoadedFull: data that does not fit in an allocated
// section whose bytes a segment loads is refused, the file untouched, and
// the message says what to do instead.
func TestWriteSectionLoadedFull(t *testing.T) {
	dir := t.TempDir()
	fx := elfFixtures[len(elfFixtures)-2] // x86_64-btf.exec: 4096 bytes of .BTF in a segment
	path := buildFixture(t, dir, fx)
	before, _ := os.ReadFile(path)
	err := WriteSection(path, ".BTF", testBTF(t, binary.LittleEndian, 400))
	if !errors.Is(err, ErrSectionFull) {
		t.Fatalf("err %v, want ErrSectionFull", err)
	}
	for _, want := range []string{path, "segment", "--btf_encode_detached"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("refused write changed the file")
	}
	noTempFiles(t, dir)
}
