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
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/elfwrite"
)

// kbuildFeatures is the --btf_features list of Linux 6.12's
// scripts/Makefile.btf for pahole >= 1.26, plus reproducible_build as the
// reference runs used.
const kbuildFeatures = "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build"

func kernelPath(t *testing.T) string {
	t.Helper()
	k := os.Getenv("BTFSTREAM_KERNEL")
	if k == "" {
		t.Skip("BTFSTREAM_KERNEL not set (scripts/e2e-kernel.sh sets it)")
	}
	if _, err := os.Stat(k); err != nil {
		t.Fatalf("BTFSTREAM_KERNEL: %v", err)
	}
	return k
}

// ref131 returns pahole 1.31's BTF of the kernel, or nil.
func ref131(t *testing.T, kernel string) *btf.Spec {
	t.Helper()
	p := os.Getenv("BTFSTREAM_REF131")
	switch {
	case p != "":
	case strings.HasSuffix(kernel, "-cloud-amd64"):
		p = "/tmp/ref/amd64-pahole131.btf"
	case strings.HasSuffix(kernel, "-armmp"):
		p = "/tmp/ref/armmp-pahole131.btf"
	}
	if p == "" {
		return nil
	}
	if _, err := os.Stat(p); err != nil {
		t.Logf("no pahole 1.31 reference (%v)", err)
		return nil
	}
	s, err := elffile.LoadBTF(p, nil)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	return s
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
// it must differ from 1.30 exactly by the derived known differences, whose
// sizes are the recorded ones.
func TestKernelReferenceDiff(t *testing.T) {
	kernel := kernelPath(t)
	ref := ref131(t, kernel)
	if ref == nil {
		t.Skip("no pahole 1.31 reference BTF")
	}
	old := loadOwnBTF(t, kernel)
	if old == nil {
		t.Skip("nothing to compare pahole 1.31 with")
	}
	errs, account := checkAgainst130(ref, old, kernel)
	t.Logf("pahole 1.31 vs 1.30: %s\n%s", account, countTable([]string{"1.31", "1.30"}, kindCounts(ref), kindCounts(old)))
	for _, e := range errs {
		t.Error(e)
	}
}

// btfstreamBin returns BTFSTREAM_BIN or a freshly built btfstream.
func btfstreamBin(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("BTFSTREAM_BIN"); b != "" {
		return b
	}
	bin := filepath.Join(t.TempDir(), "btfstream")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/btfstream/btfstream/cmd/btfstream").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestKernelEncode encodes the kernel as kbuild would and compares the
// result with the kernel's own .BTF (pahole 1.30) and, when present,
// pahole 1.31's.
func TestKernelEncode(t *testing.T) {
	kernel := kernelPath(t)
	bin := btfstreamBin(t)
	out := filepath.Join(t.TempDir(), "vmlinux.btf")
	cmd := exec.Command(bin, "-J", "-j", "--btf_features="+kbuildFeatures, "--lang_exclude=rust",
		"--btf_encode_detached="+out, "--summary", kernel)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if strings.Contains(stderr.String(), "not implemented") {
			t.Skipf("encoder not ready: %s", stderr.String())
		}
		t.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.String())
	}
	t.Logf("%s", strings.TrimSpace(stderr.String()))

	got, err := elffile.LoadBTF(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("output does not validate: %v", err)
	}
	old := loadOwnBTF(t, kernel)
	ref := ref131(t, kernel)
	names, counts := []string{"btfstream"}, []map[btf.Kind]int{kindCounts(got)}
	if old != nil {
		names, counts = append(names, "1.30"), append(counts, kindCounts(old))
	}
	if ref != nil {
		names, counts = append(names, "1.31"), append(counts, kindCounts(ref))
	}
	t.Logf("\n%s", countTable(names, counts...))
	if ref != nil {
		onlyGot, onlyRef, shown, err := graphDiff(got, ref, 20)
		if err != nil {
			t.Fatal(err)
		}
		if len(onlyGot)+len(onlyRef) > 0 {
			t.Errorf("graph diff against pahole 1.31: only btfstream %v, only 1.31 %v\n%s", onlyGot, onlyRef, strings.Join(shown, "\n"))
		}
	}
	if old == nil {
		return
	}

	if ref != nil {
		sameDropped(t, minus(namesOf(old, btf.KindFunc), namesOf(got, btf.KindFunc)),
			minus(namesOf(old, btf.KindFunc), namesOf(ref, btf.KindFunc)))
	}
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
	if ref := ref131(t, kernel); ref != nil {
		writeSectionChecked(t, cp, ".BTF", ref.Marshal(), phdrs)
	}

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
	ref := ref131(t, kernel)
	if ref == nil {
		t.Skip("no .BTF in the kernel and no reference BTF to add")
	}
	raw := ref.Marshal()
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
	cmd := exec.Command("readelf", flag, p)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("readelf %s: %v\n%s", flag, err, stderr.String())
	}
	// The file name is in the output of -S; keep only the tables.
	return strings.ReplaceAll(string(out), p, "FILE")
}
