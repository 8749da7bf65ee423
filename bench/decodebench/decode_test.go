package decodebench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/stream/dwarfread"
)

// decodeKernel returns the vmlinux to benchmark: $BTFSTREAM_KERNEL or the
// cloud-amd64 one in ~/.cache/btfstream-testdata.
func decodeKernel(b *testing.B) string {
	if p := os.Getenv("BTFSTREAM_KERNEL"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	m, _ := filepath.Glob(filepath.Join(home, ".cache/btfstream-testdata/*cloud-amd64*/usr/lib/debug/boot/vmlinux-*"))
	if len(m) == 0 {
		b.Skip("no kernel: set BTFSTREAM_KERNEL")
	}
	return m[0]
}

func benchDecode(b *testing.B, jobs int) {
	path := decodeKernel(b)
	b.ReportAllocs()
	var dies, size uint64
	for b.Loop() {
		f, err := dwarfread.Open(path, dwarfread.Options{})
		if err != nil {
			b.Fatal(err)
		}
		dies, size = 0, 0
		for cu, err := range f.Units(dwarfread.UnitOptions{Jobs: jobs}) {
			if err != nil {
				b.Fatal(err)
			}
			dies += uint64(cu.Len())
			size += cu.Length()
			cu.Release()
		}
		f.Close()
	}
	b.SetBytes(int64(size))
	b.ReportMetric(float64(dies), "DIEs/op")
}

// BenchmarkDecodeVmlinux decodes every unit of the kernel (decode only:
// no string is resolved).
func BenchmarkDecodeVmlinux(b *testing.B)   { benchDecode(b, 1) }
func BenchmarkDecodeVmlinuxJ2(b *testing.B) { benchDecode(b, 2) }
