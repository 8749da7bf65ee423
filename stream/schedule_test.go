package stream

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestSymNamesWhole: setup reads a symbol name table whole up to a 32nd
// of the memory limit, at most 64 MiB, so that near the floors (64M: 2
// MiB, below a vmlinux's 3.6-4.4 MB .strtab) the window stays.
func TestSymNamesWhole(t *testing.T) {
	for _, c := range []struct {
		limit int64
		want  uint64
	}{
		{0, 64 << 20},
		{-1, 64 << 20},
		{64 << 20, 2 << 20},
		{256 << 20, 8 << 20},
		{12 << 30, 64 << 20},
	} {
		if got := symNamesWhole(c.limit); got != c.want {
			t.Errorf("symNamesWhole(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}

// TestStrOutside: a .debug_str larger than the page cache is read whole
// outside the heap up to symNamesWhole's size, and not at all under a
// limit below resolveMinLimit (the floors keep their window).
func TestStrOutside(t *testing.T) {
	for _, c := range []struct {
		limit int64
		want  uint64
	}{
		{0, 64 << 20},
		{-1, 64 << 20},
		{64 << 20, 0},
		{resolveMinLimit - 1, 0},
		{256 << 20, 8 << 20},
		{12 << 30, 64 << 20},
	} {
		if got := strOutside(c.limit); got != c.want {
			t.Errorf("strOutside(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}

// TestFuncsAsideGolden: every golden object encodes to the same bytes at
// -j1 (function states merged on one goroutine) and at -j2 without a
// limit (read and chosen on a second goroutine: merge.Config.FuncsAside).
func TestFuncsAsideGolden(t *testing.T) {
	objs, err := filepath.Glob(filepath.Join("testdata", "encode", "golden", "amd64", "*.o"))
	if err != nil || len(objs) == 0 {
		t.Fatalf("no golden objects: %v", err)
	}
	fs, err := ParseFeaturesStrict(kbuildFeatures)
	if err != nil {
		t.Fatal(err)
	}
	funcs := 0
	for _, obj := range objs {
		var out [2][]byte
		for j := range out {
			opts := DefaultEncodeOptions()
			opts.Features, opts.MemLimit, opts.Jobs = fs, -1, j+1
			spec, st, err := EncodeFile(obj, opts)
			if err != nil { // a fixture of an unsupported input
				t.Logf("%s -j%d: %v", obj, j+1, err)
				break
			}
			out[j] = spec.Marshal()
			funcs += st.Funcs
		}
		if !bytes.Equal(out[0], out[1]) {
			t.Errorf("%s: -j1 and -j2 outputs differ (%d and %d bytes)", obj, len(out[0]), len(out[1]))
		}
	}
	if funcs == 0 {
		t.Error("no FUNC in any golden object: nothing merged")
	}
}
