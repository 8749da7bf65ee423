package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runDumpOut(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	code := dump(args, &out)
	return out.String(), code
}

// TestDumpGolden dumps the btf package's every-kind fixtures (raw BTF in
// both byte orders, with and without the 32-byte layout header) and
// compares with its golden file.
func TestDumpGolden(t *testing.T) {
	dir := filepath.Join("..", "..", "btf", "testdata")
	want, err := os.ReadFile(filepath.Join(dir, "kinds.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kinds-le.btf", "kinds-be.btf", "kinds-layout-le.btf", "kinds-layout-be.btf"} {
		out, code := runDumpOut(t, "--validate", filepath.Join(dir, name))
		if code != 0 || out != string(want) {
			t.Errorf("%s: exit %d, output differs from kinds.golden", name, code)
		}
	}
	if _, code := runDumpOut(t, "/nonexistent"); code == 0 {
		t.Error("missing file: exit 0")
	}
	if _, code := runDumpOut(t); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
}

// TestDumpKernelVsBpftool runs `btfstream dump` and `bpftool btf dump ...
// format raw` on the test kernel's vmlinux and xfs.ko (split, -B vmlinux).
func TestDumpKernelVsBpftool(t *testing.T) {
	vmlinux := os.Getenv("BTFSTREAM_KERNEL")
	if vmlinux == "" {
		t.Skip("BTFSTREAM_KERNEL not set (scripts/test.sh sets it)")
	}
	bpftool, err := exec.LookPath("bpftool")
	if err != nil {
		if bpftool, err = exec.LookPath("/usr/sbin/bpftool"); err != nil {
			t.Skip("bpftool not installed")
		}
	}
	ver := strings.TrimPrefix(filepath.Base(vmlinux), "vmlinux-")
	xfs := filepath.Join(filepath.Dir(vmlinux), "..", "lib", "modules", ver, "kernel", "fs", "xfs", "xfs.ko")
	for _, tc := range []struct {
		name      string
		ours, ref []string
	}{
		{"vmlinux", []string{vmlinux}, []string{vmlinux}},
		{"xfs.ko", []string{"--base", vmlinux, xfs}, []string{xfs, "-B", vmlinux}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.ours[len(tc.ours)-1]); err != nil {
				t.Skip(err)
			}
			want, err := exec.Command(bpftool, append(append([]string{"btf", "dump", "file"}, tc.ref...), "format", "raw")...).Output()
			if err != nil {
				t.Fatalf("bpftool: %v", err)
			}
			got, code := runDumpOut(t, tc.ours...)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			if got != string(want) {
				t.Fatalf("btfstream dump differs from bpftool (%d vs %d bytes)", len(got), len(want))
			}
			t.Logf("%d lines identical", strings.Count(got, "\n"))
		})
	}
}
