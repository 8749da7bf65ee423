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

// kernelPath returns BTFSTREAM_KERNEL: the one kernel whose own .BTF the
// checks of this file compare with, a Debian 7.x kernel whose .BTF
// Debian's build made with pahole 1.32 and resolve_btfids (scripts/test.sh
// sets it to the sid cloud-amd64 vmlinux). That .BTF is a reference that
// does not depend on running pahole here.
func kernelPath(t *testing.T) string {
	t.Helper()
	k := os.Getenv("BTFSTREAM_KERNEL")
	if k == "" {
		testenv.Missing(t, "BTFSTREAM_KERNEL not set (scripts/test.sh sets it)")
	}
	if _, err := os.Stat(k); err != nil {
		t.Fatalf("BTFSTREAM_KERNEL: %v", err)
	}
	if maj, _ := kernelVersion(k); maj < 7 {
		t.Fatalf("BTFSTREAM_KERNEL is %s: these checks need a Linux 7.x kernel whose .BTF pahole 1.32 made (kernel-dbg.sh --release sid cloud-amd64)", kernelTag(k))
	}
	return k
}

// refVmlinux returns the reference pahole's BTF of the kernel with
// kbuild's features, run live (once per kernel, shared with
// TestReferencePahole).
func refVmlinux(t *testing.T, kernel string) *btf.Spec {
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

// TestKernelOwnBTF checks the reference against Debian's build: pahole 1.32
// run here with Linux 7.2's features on the vmlinux, and on each module of
// gateModules over the vmlinux's own .BTF, must give the file's own .BTF
// but for what resolve_btfids changed since (checkOwnBTF).
func TestKernelOwnBTF(t *testing.T) {
	kernel := kernelPath(t)
	own := loadOwnBTF(t, kernel)
	if own == nil {
		testenv.Missing(t, "%s has no .BTF of its own to compare %s with", kernel, testenv.PaholeName)
	}
	pahole := testenv.Pahole(t)
	t.Run("vmlinux", func(t *testing.T) {
		r := runsFor(kernel, kbuild72Extra).paholeVmlinux(t, pahole)
		ref := loadBTF(t, r.out, nil)
		errs, account := checkOwnBTF(ref, own)
		t.Logf("%v; %s vs the kernel's own .BTF: %s\n%s", r, testenv.PaholeName, account,
			countTable([]string{testenv.PaholeName, "own .BTF"}, kindCounts(ref), kindCounts(own)))
		for _, e := range errs {
			t.Error(e)
		}
	})
	kos, missing := kernelModules(kernel)
	if len(missing) > 0 {
		testenv.Missing(t, "modules %v not beside %s", missing, kernel)
	}
	for _, ko := range kos {
		name := strings.TrimSuffix(filepath.Base(ko), ".ko")
		t.Run(name, func(t *testing.T) {
			ownMod, err := elffile.LoadBTF(ko, own)
			if err != nil {
				t.Fatalf("module's own .BTF: %v", err)
			}
			out := filepath.Join(workDir, kernelTag(kernel)+".own."+name+".pahole.btf")
			r := run(t, testenv.PaholeName, out, paholeTimeout, pahole, paholeArgs(out, kernel, ko, kbuild72Extra)...)
			if r.err != nil {
				t.Fatalf("the reference failed: %v", r.err)
			}
			ref := loadBTF(t, out, own)
			errs, account := checkOwnBTF(ref, ownMod)
			t.Logf("%v; %d types (%d base copies), the module's own %d (%d base copies); %s",
				r, ref.Len(), len(baseCopies(ref)), ownMod.Len(), len(baseCopies(ownMod)), account)
			for _, e := range errs {
				t.Error(e)
			}
		})
	}
}

// TestKernelEncode compares btfstream's BTF of the kernel with Linux 7.2's
// features with the kernel's own .BTF, made by Debian with pahole 1.32:
// they may differ only as checkOwnBTF allows. An extra to the gate, which
// compares with pahole 1.32 run here.
func TestKernelEncode(t *testing.T) {
	kernel := kernelPath(t)
	own := loadOwnBTF(t, kernel)
	if own == nil {
		testenv.Missing(t, "%s has no .BTF of its own", kernel)
	}
	r := runsFor(kernel, kbuild72Extra).oursVmlinux(t, testenv.Pahole(t))
	got := loadBTF(t, r.out, nil)
	errs, account := checkOwnBTF(got, own)
	t.Logf("%v; btfstream vs the kernel's own .BTF: %s\n%s", r, account,
		countTable([]string{"btfstream", "own .BTF"}, kindCounts(got), kindCounts(own)))
	for _, e := range errs {
		t.Error(e)
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

	// Smaller data (pahole's output lacks what resolve_btfids added) goes in place.
	writeSectionChecked(t, cp, ".BTF", refVmlinux(t, kernel).Marshal(), phdrs)

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
	raw := refVmlinux(t, kernel).Marshal()
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
