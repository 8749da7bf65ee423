// Package loadbench benchmarks loading a vmlinux's BTF with btfstream's btf
// package next to github.com/cilium/ebpf/btf on the same bytes.
//
//	BTFSTREAM_KERNEL=/path/to/vmlinux go test ./bench/loadbench -run TestCompare -v
//	BTFSTREAM_KERNEL=/path/to/vmlinux go test ./bench/loadbench -bench . -benchmem
//
// Without BTFSTREAM_KERNEL the running kernel's /sys/kernel/btf/vmlinux is
// used if there is one. cilium/ebpf decodes types lazily, so two pairs are
// measured: load alone (our flat Parse vs cilium's index), and load plus
// work on every type (our Parse+Validate vs cilium's load plus decoding
// every type through Spec.All).
package loadbench

import (
	"bytes"
	"os"
	"testing"

	cbtf "github.com/cilium/ebpf/btf"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

func vmlinuxBTF(tb testing.TB) []byte {
	tb.Helper()
	if p := os.Getenv("BTFSTREAM_KERNEL"); p != "" {
		raw, err := elffile.ReadNamedSection(p, ".BTF")
		if err != nil {
			tb.Fatal(err)
		}
		return raw
	}
	raw, err := os.ReadFile("/sys/kernel/btf/vmlinux")
	if err != nil {
		tb.Skip("set BTFSTREAM_KERNEL to a vmlinux with .BTF")
	}
	return raw
}

func ours(b *testing.B, raw []byte, validate bool) {
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		s, err := btf.Parse(raw, nil)
		if err != nil {
			b.Fatal(err)
		}
		if validate {
			if err := s.Validate(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func cilium(b *testing.B, raw []byte, decodeAll bool) {
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		s, err := cbtf.LoadSpecFromReader(bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		if decodeAll {
			for _, err := range s.All() {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

func BenchmarkParse(b *testing.B)         { ours(b, vmlinuxBTF(b), false) }
func BenchmarkParseValidate(b *testing.B) { ours(b, vmlinuxBTF(b), true) }
func BenchmarkCiliumLoad(b *testing.B)    { cilium(b, vmlinuxBTF(b), false) }
func BenchmarkCiliumLoadAll(b *testing.B) { cilium(b, vmlinuxBTF(b), true) }

// TestCompare runs both pairs in one process and logs the figures and the
// ratios (cilium / btfstream: above 1 means btfstream is faster or
// smaller). It takes ~30 s, so it runs only with BTFSTREAM_BENCH=1.
//
// On 32-bit hosts cilium/ebpf v0.22 cannot decode every type of a recent
// kernel (a DECL_TAG's component_idx -1 fails with "index exceeds int");
// the test then reports that pair as failed for cilium.
func TestCompare(t *testing.T) {
	if os.Getenv("BTFSTREAM_BENCH") != "1" {
		t.Skip("set BTFSTREAM_BENCH=1 to run the benchmark comparison")
	}
	raw := vmlinuxBTF(t)
	s, err := btf.Parse(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("input: %d bytes of BTF, %d types", len(raw), s.Len())
	pairs := []struct {
		name         string
		ours, theirs func(*testing.B)
	}{
		{"load only", func(b *testing.B) { ours(b, raw, false) }, func(b *testing.B) { cilium(b, raw, false) }},
		{"load+every type", func(b *testing.B) { ours(b, raw, true) }, func(b *testing.B) { cilium(b, raw, true) }},
	}
	// Decode every type once outside the benchmark: the benchmark would
	// only say that it failed.
	cs, err := cbtf.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("cilium: %v", err)
	}
	for _, err := range cs.All() {
		if err != nil {
			t.Logf("cilium/ebpf cannot decode every type here: %v", err)
			pairs = pairs[:1]
			break
		}
	}
	for _, p := range pairs {
		o, c := testing.Benchmark(p.ours), testing.Benchmark(p.theirs)
		if o.N == 0 || c.N == 0 {
			t.Fatalf("%s: a benchmark failed", p.name)
		}
		ratio := func(a, b int64) float64 {
			if b == 0 {
				return 0
			}
			return float64(a) / float64(b)
		}
		t.Logf("%-16s btfstream %12d ns/op %11d B/op %8d allocs/op", p.name, o.NsPerOp(), o.AllocedBytesPerOp(), o.AllocsPerOp())
		t.Logf("%-16s cilium    %12d ns/op %11d B/op %8d allocs/op", p.name, c.NsPerOp(), c.AllocedBytesPerOp(), c.AllocsPerOp())
		t.Logf("%-16s ratio cilium/btfstream: time %.2fx, bytes %.2fx, allocs %.1fx", p.name,
			ratio(c.NsPerOp(), o.NsPerOp()), ratio(c.AllocedBytesPerOp(), o.AllocedBytesPerOp()), ratio(c.AllocsPerOp(), o.AllocsPerOp()))
	}
}
