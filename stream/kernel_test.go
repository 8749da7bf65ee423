package stream

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

type kernel struct{ vmlinux, xfs string }

// kernelFiles finds the cloud-amd64 vmlinux and xfs.ko. It uses
// $BTFSTREAM_KERNEL (a vmlinux path) or the cache that
// ../shared/testdata/kernel-dbg.sh fills (~/.cache/btfstream-testdata). It
// runs that script only when BTFSTREAM_FETCH_KERNEL=1. Skipped in -short
// mode and when no kernel is found.
func kernelFiles(t *testing.T) kernel {
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
			script, _ := filepath.Abs("../../shared/testdata/kernel-dbg.sh")
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
	k := kernel{vmlinux: vm}
	root := strings.SplitN(vm, "/usr/lib/debug/", 2)[0]
	x, _ := filepath.Glob(filepath.Join(root, "usr/lib/debug/lib/modules/*/kernel/fs/xfs/xfs.ko"))
	if len(x) == 0 {
		t.Skip("xfs.ko not found next to " + vm)
	}
	k.xfs = x[0]
	return k
}

// TestOracleKernelARM compares the 32-bit ARM (armmp) vmlinux with
// debug/dwarf, when the cache has it.
func TestOracleKernelARM(t *testing.T) {
	if testing.Short() || strconv.IntSize == 32 {
		t.Skip("kernel tests skipped in -short mode and on 32-bit hosts")
	}
	home, _ := os.UserHomeDir()
	m, _ := filepath.Glob(filepath.Join(home, ".cache/btfstream-testdata/*armmp*/usr/lib/debug/boot/vmlinux-*"))
	if len(m) == 0 {
		t.Skip("no armmp kernel in ~/.cache/btfstream-testdata")
	}
	checkELF(t, m[0])
	st := compareOracle(t, m[0], 2, false)
	t.Logf("%s: %d units, %d DIEs, %d attributes equal to debug/dwarf", m[0], st.units, st.dies, st.attrs)
	// Modules: ELF32 ET_REL with SHT_REL (implicit addend) R_ARM_ABS32.
	root := strings.SplitN(m[0], "/usr/lib/debug/", 2)[0]
	kos, _ := filepath.Glob(filepath.Join(root, "usr/lib/debug/lib/modules/*/kernel/*/*/*.ko"))
	for _, ko := range kos {
		checkELF(t, ko)
		st := compareOracle(t, ko, 1, false)
		t.Logf("%s: %d units, %d DIEs, %d attributes equal to debug/dwarf", filepath.Base(ko), st.units, st.dies, st.attrs)
	}
}
