package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/dedup"
)

// TestForceCUMerging: force_cu_merging (pahole 1.32) is a known feature
// and changes nothing in btfstream's output; pahole 1.32's output with it,
// where the reference runs, is the same type graph as ours.
func TestForceCUMerging(t *testing.T) {
	fs, err := ParseFeaturesStrict(kbuildFeatures + ",force_cu_merging")
	if err != nil {
		t.Fatal(err)
	}
	if !fs.Has(FeatForceCUMerging) || fs&^Features(FeatForceCUMerging) != DefaultFeatures {
		t.Fatalf("parsed %v", fs)
	}
	for _, name := range []string{"multi", "types", "funcs"} { // multi.o has two units
		t.Run(name, func(t *testing.T) {
			obj := filepath.Join("testdata", "encode", "golden", "amd64", name+".o")
			opts := DefaultEncodeOptions()
			opts.MemLimit = -1
			without, _, err := EncodeFile(obj, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Features = fs
			with, _, err := EncodeFile(obj, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(with.Marshal(), without.Marshal()) {
				t.Fatal("output with force_cu_merging differs from the output without it")
			}
			// paholeBTF writes beside the object: a copy, not testdata.
			tmp := filepath.Join(t.TempDir(), name+".o")
			if b, err := os.ReadFile(obj); err != nil || os.WriteFile(tmp, b, 0o644) != nil {
				t.Fatal("copying", obj, err)
			}
			ref := paholeBTF(t, tmp, kbuildFeatures+",force_cu_merging")
			c, err := dedup.Compare(with, ref)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := c.Unmatched(); len(a)+len(b) > 0 {
				t.Errorf("not the type graph of pahole's output with force_cu_merging: %d types only ours, %d only pahole's", len(a), len(b))
			}
		})
	}
}
