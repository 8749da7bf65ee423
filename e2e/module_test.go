package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/e2e/testenv"
	"github.com/btfstream/btfstream/stream/elffile"
)

// kernelModules returns the uncompressed debug modules next to the
// kernel: kernel-dbg.sh unpacks ROOT/usr/lib/debug/boot/vmlinux-VER and
// ROOT/usr/lib/debug/lib/modules/VER/kernel/**.ko.
func kernelModules(kernel string) (ver string, kos []string) {
	ver = strings.TrimPrefix(filepath.Base(kernel), "vmlinux-")
	root := filepath.Join(filepath.Dir(kernel), "..", "lib", "modules", ver, "kernel")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".ko") {
			kos = append(kos, p)
		}
		return nil
	})
	sort.Strings(kos)
	return ver, kos
}

// TestKernelModules runs kbuild's module step (scripts/Makefile.modfinal:
// pahole -J --btf_base vmlinux MODULE.ko) on a copy of each cached debug
// module, replacing its .BTF in place, and compares the result with the
// module's own .BTF (Debian, pahole 1.30) as split BTF over the kernel's.
func TestKernelModules(t *testing.T) {
	kernel := kernelPath(t)
	base := loadOwnBTF(t, kernel)
	if base == nil {
		testenv.Missing(t, "the kernel has no .BTF to be the modules' base")
	}
	_, kos := kernelModules(kernel)
	if len(kos) == 0 {
		testenv.Missing(t, "no uncompressed .ko next to the kernel")
	}
	bin := btfstreamBin(t)
	dir := t.TempDir()
	for _, ko := range kos {
		name := filepath.Base(ko)
		t.Run(name, func(t *testing.T) {
			own, err := elffile.LoadBTF(ko, base)
			if err != nil {
				t.Skipf("module's own .BTF: %v", err)
			}
			cp := filepath.Join(dir, name)
			copyFile(t, ko, cp)
			args := []string{"-J", "-j1", "--btf_features=" + kbuildFeatures, "--lang_exclude=rust", "--btf_base", kernel, cp}
			run := func() {
				var stderr bytes.Buffer
				cmd := exec.Command(bin, args...)
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.String())
				}
			}
			run()
			readelf(t, "-lSW", cp)
			got, err := elffile.LoadBTF(cp, base)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("does not validate: %v", err)
			}
			errs, account := checkAgainst130(got, own, ko)
			t.Log(account)
			for _, e := range errs {
				t.Error(e)
			}

			// kbuild rebuilding the module runs pahole again on a file that
			// has .BTF: same bytes out.
			first, _ := os.ReadFile(cp)
			run()
			if again, _ := os.ReadFile(cp); !bytes.Equal(first, again) {
				t.Error("a second -J changed the module")
			}
		})
	}
}
