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

// gateModules are the modules compared on every kernel: large ones
// (xfs, nf_tables, sctp), a small one (tcp_bbr) and a driver
// (virtio_net). kernel-dbg.sh --modules some extracts these.
var gateModules = []string{"nf_tables", "sctp", "tcp_bbr", "virtio_net", "xfs"}

// kernelModules returns the uncompressed debug modules of gateModules
// next to the kernel (kernel-dbg.sh unpacks ROOT/usr/lib/debug/boot/vmlinux-VER
// and ROOT/usr/lib/debug/lib/modules/VER/kernel/**.ko; with --modules all,
// every module is there, and only these are taken) and the names of those
// it did not find.
func kernelModules(kernel string) (kos, missing []string) {
	ver := strings.TrimPrefix(filepath.Base(kernel), "vmlinux-")
	root := filepath.Join(filepath.Dir(kernel), "..", "lib", "modules", ver, "kernel")
	want := map[string]bool{}
	for _, m := range gateModules {
		want[m+".ko"] = true
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && want[d.Name()] {
			kos = append(kos, p)
			delete(want, d.Name())
		}
		return nil
	})
	for _, m := range gateModules {
		if want[m+".ko"] {
			missing = append(missing, m)
		}
	}
	sort.Strings(kos)
	return kos, missing
}

// TestKernelModules runs kbuild's module step on a copy of each module of
// gateModules beside BTFSTREAM_KERNEL, as Linux 6.12 ran it (pahole -J
// --btf_base vmlinux MODULE.ko, .BTF replaced in place; 7.2's gen-btf.sh
// writes it detached and adds it with objcopy, the same BTF), with 7.2's
// features, over the kernel's own .BTF, and compares the result with the
// module's own .BTF (Debian's pahole 1.32 and resolve_btfids) as split BTF
// over the kernel's (checkOwnBTF). btfstream's module must hold no copy of
// a base type; the log says how many the module's own .BTF has.
func TestKernelModules(t *testing.T) {
	kernel := kernelPath(t)
	base := loadOwnBTF(t, kernel)
	if base == nil {
		testenv.Missing(t, "the kernel has no .BTF to be the modules' base")
	}
	kos, missing := kernelModules(kernel)
	if len(missing) > 0 {
		testenv.Missing(t, "modules %v not beside %s", missing, kernel)
	}
	bin := btfstreamBin(t)
	dir := t.TempDir()
	for _, ko := range kos {
		name := filepath.Base(ko)
		t.Run(name, func(t *testing.T) {
			own, err := elffile.LoadBTF(ko, base)
			if err != nil {
				t.Fatalf("module's own .BTF: %v", err)
			}
			cp := filepath.Join(dir, name)
			copyFile(t, ko, cp)
			args := []string{"-J", "-j1", "--btf_features=" + features([]string{kbuild72Extra}), "--lang_exclude=rust", "--btf_base", kernel, cp}
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
			if c := baseCopies(got); len(c) > 0 {
				t.Errorf("btfstream's module BTF has %d types identical to a base type %v; the first: %s", len(c), copyKinds(got, c), dumpFirst(got, c, 5))
			}
			errs, account := checkOwnBTF(got, own)
			t.Logf("%d types, the module's own %d; %s", got.Len(), own.Len(), account)
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
