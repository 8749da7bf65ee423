// Package testkit holds what the tests of several stream packages share:
// the C fixtures built by the installed compilers (fixture.go) and the
// real kernels of the test cache (kernel.go). Only tests import it.
package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Kernel is a vmlinux with full DWARF and its xfs.ko.
type Kernel struct{ Vmlinux, XFS string }

// Files finds the cloud-amd64 vmlinux and xfs.ko. It uses
// $BTFSTREAM_KERNEL (a vmlinux path) or the cache that
// ../shared/testdata/kernel-dbg.sh fills (~/.cache/btfstream-testdata). It
// runs that script only when BTFSTREAM_FETCH_KERNEL=1. Skipped in -short
// mode and when no kernel is found.
func Files(t testing.TB) Kernel {
	t.Helper()
	if testing.Short() {
		t.Skip("kernel tests skipped in -short mode")
	}
	vm := os.Getenv("BTFSTREAM_KERNEL")
	if vm == "" && strconv.IntSize == 32 {
		// debug/dwarf, the oracle, holds whole sections in memory; under
		// qemu it is also slow. Opt in explicitly on 32-bit hosts.
		t.Skip("32-bit host: set BTFSTREAM_KERNEL to run the kernel tests")
	}
	if vm == "" {
		home, _ := os.UserHomeDir()
		glob := filepath.Join(home, ".cache/btfstream-testdata/*cloud-amd64*/usr/lib/debug/boot/vmlinux-*")
		m, _ := filepath.Glob(glob)
		if len(m) == 0 && os.Getenv("BTFSTREAM_FETCH_KERNEL") == "1" {
			script := filepath.Join(RepoRoot(), "..", "shared", "testdata", "kernel-dbg.sh")
			cmd := exec.Command("sh", script, "--modules", "some", "cloud-amd64")
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				t.Skipf("kernel-dbg.sh: %v", err)
			}
			m, _ = filepath.Glob(glob)
		}
		if len(m) == 0 {
			t.Skip("no kernel: set BTFSTREAM_KERNEL or BTFSTREAM_FETCH_KERNEL=1")
		}
		vm = m[0]
	}
	k := Kernel{Vmlinux: vm}
	root := strings.SplitN(vm, "/usr/lib/debug/", 2)[0]
	x, _ := filepath.Glob(filepath.Join(root, "usr/lib/debug/lib/modules/*/kernel/fs/xfs/xfs.ko"))
	if len(x) == 0 {
		t.Skip("xfs.ko not found next to " + vm)
	}
	k.XFS = x[0]
	return k
}

// ARMKernel returns the 32-bit ARM (armmp) vmlinux of the test cache and
// its modules, or skips.
func ARMKernel(t testing.TB) (vmlinux string, modules []string) {
	t.Helper()
	if testing.Short() || strconv.IntSize == 32 {
		t.Skip("kernel tests skipped in -short mode and on 32-bit hosts")
	}
	home, _ := os.UserHomeDir()
	m, _ := filepath.Glob(filepath.Join(home, ".cache/btfstream-testdata/*armmp*/usr/lib/debug/boot/vmlinux-*"))
	if len(m) == 0 {
		t.Skip("no armmp kernel in ~/.cache/btfstream-testdata")
	}
	root := strings.SplitN(m[0], "/usr/lib/debug/", 2)[0]
	kos, _ := filepath.Glob(filepath.Join(root, "usr/lib/debug/lib/modules/*/kernel/*/*/*.ko"))
	return m[0], kos
}

// RepoRoot returns the repository's top directory (from this file's path).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Testdata returns the path of a file in stream/testdata.
func Testdata(name string) string {
	return filepath.Join(RepoRoot(), "stream", "testdata", name)
}
