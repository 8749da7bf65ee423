package stream

import (
	"fmt"
	"hash/maphash"
	"os"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
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
		s, err := elffile.LoadBTF(p, nil)
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

// TestEncodeKernelTypes encodes BTFSTREAM_VMLINUX without deduplication
// and compares its canonical type set and its FUNC, VAR, DATASEC and
// DECL_TAG counts (which deduplication does not change) with
// BTFSTREAM_WANT, pahole 1.31's encoding of the same file.
func TestEncodeKernelTypes(t *testing.T) {
	path, wantPath := os.Getenv("BTFSTREAM_VMLINUX"), os.Getenv("BTFSTREAM_WANT")
	if path == "" || wantPath == "" {
		t.Skip("set BTFSTREAM_VMLINUX and BTFSTREAM_WANT")
	}
	opts := DefaultEncodeOptions()
	opts.noDedup = true
	got, st, err := EncodeFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := elffile.LoadBTF(wantPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := kindCounts(want)
	t.Logf("CUs %d; FUNC %d (pahole %d), VAR %d (%d), DATASEC %d (%d), DECL_TAG %d (%d)",
		st.CUs, st.KindCounts[btf.KindFunc], w[btf.KindFunc], st.KindCounts[btf.KindVar], w[btf.KindVar],
		st.KindCounts[btf.KindDatasec], w[btf.KindDatasec], st.KindCounts[btf.KindDeclTag], w[btf.KindDeclTag])
	funcs := func(s *btf.Spec) map[string]bool {
		m := map[string]bool{}
		for id := s.FirstID(); id < s.NextID(); id++ {
			if s.Kind(id) == btf.KindFunc {
				m[s.Name(id)] = true
			}
		}
		return m
	}
	gf, wf := funcs(got), funcs(want)
	for n := range wf {
		if !gf[n] {
			t.Logf("FUNC only in pahole: %s", n)
		}
	}
	for n := range gf {
		if !wf[n] {
			t.Logf("FUNC only in btfstream: %s", n)
		}
	}
	onlyGot, onlyWant := diffCanonHashed(got, want, 30)
	t.Logf("canonical types only in btfstream: %d, only in pahole: %d", len(onlyGot), len(onlyWant))
	for _, s := range onlyGot {
		t.Logf("only btfstream: %.300s", s)
	}
	for _, s := range onlyWant {
		t.Logf("only pahole:    %.300s", s)
	}
}

// diffCanonHashed is diffCanon for big inputs: it keeps hashes of the
// canonical strings, not the strings, and returns at most n examples of
// each side's extra types.
func diffCanonHashed(a, b *btf.Spec, n int) (onlyA, onlyB []string) {
	seed := maphash.MakeSeed()
	set := func(s *btf.Spec) map[uint64]bool {
		m := map[uint64]bool{}
		for id := s.FirstID(); id < s.NextID(); id++ {
			m[maphash.String(seed, canon(s, id, true, 0))] = true
		}
		return m
	}
	ha, hb := set(a), set(b)
	extra := func(s *btf.Spec, other map[uint64]bool) (out []string) {
		seen := map[uint64]bool{}
		for id := s.FirstID(); id < s.NextID(); id++ {
			c := canon(s, id, true, 0)
			h := maphash.String(seed, c)
			if !other[h] && !seen[h] {
				seen[h] = true
				if len(out) < n {
					out = append(out, c)
				}
			}
		}
		return out
	}
	return extra(a, hb), extra(b, ha)
}
