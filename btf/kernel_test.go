package btf

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tests on a real kernel. BTFSTREAM_KERNEL names a vmlinux with a .BTF
// section (scripts/test.sh sets it from ../shared/testdata/kernel-dbg.sh);
// without it these tests skip. Its modules are found beside it the way
// Debian's -dbg packages lay them out: .../boot/vmlinux-VER and
// .../lib/modules/VER/kernel/.

func kernelVmlinux(t testing.TB) string {
	t.Helper()
	p := os.Getenv("BTFSTREAM_KERNEL")
	if p == "" {
		t.Skip("BTFSTREAM_KERNEL not set (scripts/test.sh sets it)")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("BTFSTREAM_KERNEL: %v", err)
	}
	return p
}

// kernelModule returns the path of a module (such as "fs/xfs/xfs.ko") of
// the kernel whose vmlinux is given, or skips.
func kernelModule(t testing.TB, vmlinux, rel string) string {
	t.Helper()
	ver := strings.TrimPrefix(filepath.Base(vmlinux), "vmlinux-")
	p := filepath.Join(filepath.Dir(vmlinux), "..", "lib", "modules", ver, "kernel", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("module %s not found next to %s", rel, vmlinux)
	}
	return p
}

// elfBTF reads .BTF with debug/elf. (Finding .BTF in an ELF file is
// stream/elffile's job; its tests check it against debug/elf.)
func elfBTF(t testing.TB, path string) []byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".BTF")
	if sec == nil {
		t.Fatalf("%s: no .BTF", path)
	}
	b, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip parses raw, checks that Marshal gives it back byte for byte
// with the same header length, and validates it.
func roundTrip(t *testing.T, raw []byte, base *Spec) *Spec {
	t.Helper()
	s, err := Parse(raw, base)
	if err != nil {
		t.Fatal(err)
	}
	hdrLen := s.ByteOrder.Uint32(raw[4:])
	out := s.Marshal()
	if !bytes.Equal(out, raw) {
		t.Fatalf("round trip differs: %d bytes in, %d out", len(raw), len(out))
	}
	if s.Header.HdrLen != hdrLen {
		t.Fatalf("hdr_len %d, input has %d", s.Header.HdrLen, hdrLen)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	t.Logf("%d types (ids %d..%d), %d bytes, hdr_len %d: byte-identical", s.Len(), s.FirstID(), s.NextID()-1, len(raw), hdrLen)
	return s
}

func TestRoundTripSysfs(t *testing.T) {
	raw, err := os.ReadFile("/sys/kernel/btf/vmlinux")
	if err != nil {
		t.Skipf("running kernel exposes no BTF: %v", err)
	}
	roundTrip(t, raw, nil)
}

func TestRoundTripKernel(t *testing.T) {
	vmlinux := kernelVmlinux(t)
	base := roundTrip(t, elfBTF(t, vmlinux), nil)
	t.Run("xfs.ko", func(t *testing.T) {
		xfs := kernelModule(t, vmlinux, "fs/xfs/xfs.ko")
		split := roundTrip(t, elfBTF(t, xfs), base)
		if split.FirstID() != base.NextID() {
			t.Errorf("split ids start at %d, base ends at %d", split.FirstID(), base.NextID()-1)
		}
	})
}

// TestDumpKernel compares Dump with bpftool's raw dump of the same files.
func TestDumpKernel(t *testing.T) {
	vmlinux := kernelVmlinux(t)
	bpftool := findBpftool(t)
	base, err := Parse(elfBTF(t, vmlinux), nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, s *Spec, args ...string) {
		want, err := exec.Command(bpftool, append([]string{"btf", "dump", "file"}, args...)...).Output()
		if err != nil {
			t.Fatalf("bpftool %v: %v", args, err)
		}
		got := dumpString(t, s)
		if got != string(want) {
			t.Fatalf("dump differs from bpftool %v:\n%s", args, diffLines(string(want), got))
		}
		t.Logf("%d lines identical to bpftool", strings.Count(got, "\n"))
	}
	t.Run("vmlinux", func(t *testing.T) { check(t, base, vmlinux, "format", "raw") })
	t.Run("xfs.ko", func(t *testing.T) {
		xfs := kernelModule(t, vmlinux, "fs/xfs/xfs.ko")
		split, err := Parse(elfBTF(t, xfs), base)
		if err != nil {
			t.Fatal(err)
		}
		check(t, split, xfs, "-B", vmlinux, "format", "raw")
	})
}
