package e2e

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/e2e/testenv"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/elfwrite"
)

// kernelPath returns BTFSTREAM_KERNEL: the one kernel whose own .BTF
// (Debian's, made by pahole 1.30) the extra checks of this file compare
// with. scripts/test.sh sets it to the trixie cloud-amd64 vmlinux.
func kernelPath(t *testing.T) string {
	t.Helper()
	k := os.Getenv("BTFSTREAM_KERNEL")
	if k == "" {
		testenv.Missing(t, "BTFSTREAM_KERNEL not set (scripts/test.sh sets it)")
	}
	if _, err := os.Stat(k); err != nil {
		t.Fatalf("BTFSTREAM_KERNEL: %v", err)
	}
	return k
}

// ref131 returns the reference pahole 1.31's BTF of the kernel, run live
// (once per kernel, shared with TestReferencePahole).
func ref131(t *testing.T, kernel string) *btf.Spec {
	t.Helper()
	return loadBTF(t, runsFor(kernel).paholeVmlinux(t, testenv.Pahole(t)).out, nil)
}

// loadOwnBTF returns the kernel's own .BTF, or nil if it has none (the
// armmp kernel).
func loadOwnBTF(t *testing.T, kernel string) *btf.Spec {
	t.Helper()
	s, err := elffile.LoadBTF(kernel, nil)
	if errors.Is(err, btf.ErrNoBTF) {
		t.Logf("%s has no .BTF of its own", kernel)
		return nil
	}
	if err != nil {
		t.Fatalf("the kernel's own .BTF: %v", err)
	}
	return s
}

// TestKernelReferenceDiff checks the harness on pahole 1.31's own output:
// it must differ from the kernel's own .BTF (1.30) exactly by the derived
// known differences.
func TestKernelReferenceDiff(t *testing.T) {
	kernel := kernelPath(t)
	old := loadOwnBTF(t, kernel)
	if old == nil {
		testenv.Missing(t, "%s has no .BTF of its own to compare pahole 1.31 with", kernel)
	}
	ref := ref131(t, kernel)
	errs, account := checkAgainst130(ref, old, kernel)
	t.Logf("pahole 1.31 vs 1.30: %s\n%s", account, countTable([]string{"1.31", "1.30"}, kindCounts(ref), kindCounts(old)))
	for _, e := range errs {
		t.Error(e)
	}
}

// TestKernelEncode compares btfstream's BTF of the kernel (the run
// TestReferencePahole makes) with the kernel's own .BTF, made by Debian
// with pahole 1.30: the two may differ only as 1.31's function selection
// explains, derived from the symbol table (checkAgainst130), and the
// FUNCs of 1.30 that btfstream leaves out must be the ones pahole 1.31
// leaves out. An extra to the gate, which is equality with 1.31.
func TestKernelEncode(t *testing.T) {
	kernel := kernelPath(t)
	old := loadOwnBTF(t, kernel)
	if old == nil {
		testenv.Missing(t, "%s has no .BTF of its own", kernel)
	}
	got := loadBTF(t, runsFor(kernel).oursVmlinux(t, testenv.Pahole(t)).out, nil)
	ref := ref131(t, kernel)
	t.Logf("\n%s", countTable([]string{"btfstream", "1.30", "1.31"}, kindCounts(got), kindCounts(old), kindCounts(ref)))
	sameDropped(t, minus(namesOf(old, btf.KindFunc), namesOf(got, btf.KindFunc)),
		minus(namesOf(old, btf.KindFunc), namesOf(ref, btf.KindFunc)))
	errs, account := checkAgainst130(got, old, kernel)
	t.Log(account)
	for _, e := range errs {
		t.Error(e)
	}
}

// sameDropped fails unless btfstream and pahole 1.31 dropped the same FUNC
// names of 1.30.
func sameDropped(t *testing.T, got, ref []string) {
	t.Helper()
	gotSet, refSet := map[string]int{}, map[string]int{}
	for _, n := range got {
		gotSet[n]++
	}
	for _, n := range ref {
		refSet[n]++
	}
	if a, b := minus(gotSet, refSet), minus(refSet, gotSet); len(a)+len(b) > 0 {
		t.Errorf("dropped FUNCs differ from pahole 1.31's: %d only by btfstream %s, %d only by pahole %s", len(a), head(a, 20), len(b), head(b, 20))
	}
}

// TestKernelELFWriter exercises the in-place .BTF writer on a copy of the
// kernel: its .BTF lies in a segment, so only data that fits may go there.
func TestKernelELFWriter(t *testing.T) {
	kernel := kernelPath(t)
	if os.Getenv("BTFSTREAM_ELF_WRITE") == "" {
		t.Skip("set BTFSTREAM_ELF_WRITE=1 to copy the kernel and rewrite its .BTF")
	}
	dir := t.TempDir()
	cp := filepath.Join(dir, "vmlinux")
	copyFile(t, kernel, cp)
	origSum := fileSum(t, cp)
	phdrs := readelf(t, "-lW", cp)
	raw, err := elffile.ReadNamedSection(kernel, ".BTF")
	if errors.Is(err, elffile.ErrNoSection) {
		kernelAppendBTF(t, kernel, cp, phdrs)
		return
	}
	if err != nil {
		t.Fatal(err)
	}

	// The same bytes back: the file must not change at all.
	if err := elfwrite.WriteSection(cp, ".BTF", raw); err != nil {
		t.Fatal(err)
	}
	if fileSum(t, cp) != origSum {
		t.Fatal("rewriting .BTF with its own bytes changed the file")
	}

	// Smaller data (pahole 1.31's output is 20 kB smaller) goes in place.
	writeSectionChecked(t, cp, ".BTF", ref131(t, kernel).Marshal(), phdrs)

	// Larger data than the segment has room for: refused, file intact.
	before := fileSum(t, cp)
	big := append(append([]byte{}, raw...), make([]byte, 64<<10)...)
	err = elfwrite.WriteSection(cp, ".BTF", big)
	if !errors.Is(err, elfwrite.ErrSectionFull) {
		t.Fatalf("err %v, want ErrSectionFull", err)
	}
	t.Logf("refused: %v", err)
	if fileSum(t, cp) != before {
		t.Error("refused write changed the file")
	}

	// A new non-allocated section: the append path on a large file.
	writeSectionChecked(t, cp, ".BTF.e2e", raw, phdrs)
	m, _ := filepath.Glob(filepath.Join(dir, ".*btfstream-*"))
	if len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// kernelAppendBTF adds .BTF to a kernel that has none, as pahole -J does
// to kbuild's .tmp_vmlinux1: appended after the last section, .shstrtab
// grown, segments untouched; a second run changes nothing.
func kernelAppendBTF(t *testing.T, kernel, cp, phdrs string) {
	raw := ref131(t, kernel).Marshal()
	writeSectionChecked(t, cp, ".BTF", raw, phdrs)
	sum := fileSum(t, cp)
	if err := elfwrite.WriteSection(cp, ".BTF", raw); err != nil {
		t.Fatal(err)
	}
	if fileSum(t, cp) != sum {
		t.Error("second run changed the file")
	}
}

// writeSectionChecked writes section name of the ELF file cp and checks
// that readelf is clean, the program headers are still phdrs and the
// section reads back (with debug/elf) as data.
func writeSectionChecked(t *testing.T, cp, name string, data []byte, phdrs string) {
	t.Helper()
	if err := elfwrite.WriteSection(cp, name, data); err != nil {
		t.Fatal(err)
	}
	readelf(t, "-lSW", cp)
	if got := readelf(t, "-lW", cp); got != phdrs {
		t.Errorf("writing %s changed the program headers", name)
	}
	ef, err := elf.Open(cp)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	sec := ef.Section(name)
	if sec == nil {
		t.Fatalf("%s missing after writing it", name)
	}
	if b, _ := sec.Data(); !bytes.Equal(b, data) {
		t.Fatalf("%s does not read back", name)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func fileSum(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// readelf runs readelf with flag on p and fails on any warning.
func readelf(t *testing.T, flag, p string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(testenv.Tool(t, "readelf", "binutils"), flag, p)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("readelf %s: %v\n%s", flag, err, stderr.String())
	}
	// The file name is in the output of -S; keep only the tables.
	return strings.ReplaceAll(string(out), p, "FILE")
}
