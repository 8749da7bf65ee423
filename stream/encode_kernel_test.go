package stream

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestEncodeCompareFiles compares two raw BTF files given by
// BTFSTREAM_GOT and BTFSTREAM_WANT (e.g. btfstream's and pahole 1.31's
// encodings of the same vmlinux): kind counts side by side and the
// canonical types only one of them has.
func TestEncodeCompareFiles(t *testing.T) {
	gotPath, wantPath := os.Getenv("BTFSTREAM_GOT"), os.Getenv("BTFSTREAM_WANT")
	if gotPath == "" || wantPath == "" {
		t.Skip("set BTFSTREAM_GOT and BTFSTREAM_WANT to raw BTF files")
	}
	load := func(p string) *btf.Spec {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := btf.Parse(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	got, want := load(gotPath), load(wantPath)
	g, w := kindCounts(got), kindCounts(want)
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %8s %8s\n", "kind", "got", "want")
	for k := btf.KindInt; k <= btf.MaxKind; k++ {
		mark := ""
		if g[k] != w[k] {
			mark = " *"
		}
		fmt.Fprintf(&b, "%-11s %8d %8d%s\n", k, g[k], w[k], mark)
	}
	t.Log("\n" + b.String())
	onlyGot, onlyWant := diffCanon(got, want)
	n := 40
	t.Logf("canonical types only in got: %d, only in want: %d", len(onlyGot), len(onlyWant))
	for i, s := range onlyGot {
		if i < n {
			t.Logf("only got:  %.400s", s)
		}
	}
	for i, s := range onlyWant {
		if i < n {
			t.Logf("only want: %.400s", s)
		}
	}
	if g != w || len(onlyGot)+len(onlyWant) > 0 {
		t.Fail()
	}
}
