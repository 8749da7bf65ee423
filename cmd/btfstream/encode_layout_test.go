package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

// TestEncodeLayout: --btf_features=...,layout gives base BTF the layout
// section libbpf 1.8 writes, in place (.BTF) and detached, with the same
// types and strings as without it; split BTF (a module) and a distilled
// base and its split BTF never carry one, as with pahole 1.32 and libbpf
// 1.8 (btf__new_empty_opts adds it only without a base; btf__distill_base
// starts from btf__new_empty).
func TestEncodeLayout(t *testing.T) {
	dir := t.TempDir()
	cc := func(name, src string) string { return gccObject(t, dir, name, src) }
	encode := func(args ...string) {
		t.Helper()
		if code := runEncode("", append([]string{"-q"}, args...)); code != 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
	}
	load := func(path string, base *btf.Spec) *btf.Spec {
		t.Helper()
		s, err := elffile.LoadBTF(path, base)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return s
	}
	vmlinux := cc("vmlinux", fixtureC)
	withLayout := "--btf_features=default,layout"

	plain, detached := filepath.Join(dir, "plain.btf"), filepath.Join(dir, "layout.btf")
	encode("--btf_encode_detached", plain, vmlinux)
	encode(withLayout, "--btf_encode_detached", detached, vmlinux)
	inPlace := filepath.Join(dir, "inplace.o")
	copyFile(t, vmlinux, inPlace)
	encode("-J", withLayout, inPlace)

	p := load(plain, nil)
	if p.HasLayout() || p.Header.HdrLen != btf.HeaderLen {
		t.Fatalf("without the feature: hdr_len %d, layout %v", p.Header.HdrLen, p.Header.Layout)
	}
	for _, path := range []string{detached, inPlace} {
		s := load(path, nil)
		if s.Header.HdrLen != btf.HeaderLenLayout || !slices.Equal(s.Header.Layout, btf.KindLayout()) {
			t.Fatalf("%s: hdr_len %d, layout %v", path, s.Header.HdrLen, s.Header.Layout)
		}
		h := s.Header
		if h.TypeOff != 0 || h.LayoutOff != h.TypeLen || h.StrOff != h.TypeLen+h.LayoutLen || h.LayoutLen != uint32(btf.LayoutEntrySize*len(btf.KindLayout())) {
			t.Fatalf("%s: sections not types|layout|strings: %+v", path, h)
		}
		if !bytes.Equal(s.Marshal()[btf.HeaderLenLayout:][:h.TypeLen], p.Marshal()[btf.HeaderLen:][:h.TypeLen]) ||
			!bytes.Equal(s.Strings().Bytes(), p.Strings().Bytes()) {
			t.Fatalf("%s: types or strings differ from the output without layout", path)
		}
	}
	raw, _ := os.ReadFile(detached)
	if rawPlain, _ := os.ReadFile(plain); len(raw) != len(rawPlain)+8+btf.LayoutEntrySize*len(btf.KindLayout()) {
		t.Errorf("layout output %d bytes, plain %d: want 8 header bytes and the section more", len(raw), len(rawPlain))
	}

	// A module over that base: split BTF without a layout of its own.
	base := load(detached, nil)
	mod := cc("mod", moduleC)
	modBTF := filepath.Join(dir, "mod.btf")
	encode(withLayout, "--btf_base", detached, "--btf_encode_detached", modBTF, mod)
	if m := load(modBTF, base); m.HasLayout() || m.Header.HdrLen != btf.HeaderLen || m.Len() == 0 {
		t.Fatalf("module: hdr_len %d, layout %v, %d types", m.Header.HdrLen, m.Header.Layout, m.Len())
	}
	// Distilled: .BTF.base and .BTF, neither with a layout.
	encode("-J", withLayout+",distilled_base", "--btf_base", detached, mod)
	nb, ns, err := elffile.LoadDistilledBTF(mod)
	if err != nil {
		t.Fatal(err)
	}
	if nb.HasLayout() || ns.HasLayout() || nb.Header.HdrLen != btf.HeaderLen || ns.Header.HdrLen != btf.HeaderLen {
		t.Fatalf("distilled: base %+v, split %+v", nb.Header, ns.Header)
	}
}

// TestDumpHeaderFlag: dump --header prints the header and the layout
// entries before the types bpftool prints; without it, only the types.
func TestDumpHeaderFlag(t *testing.T) {
	for _, name := range []string{"kinds-layout-le.btf", "kinds-layout-be.btf"} {
		path := filepath.Join("..", "..", "btf", "testdata", name)
		var plain, withHeader bytes.Buffer
		if code := dump([]string{path}, &plain); code != 0 {
			t.Fatalf("%s: exit %d", name, code)
		}
		if code := dump([]string{"--header", path}, &withHeader); code != 0 {
			t.Fatalf("%s --header: exit %d", name, code)
		}
		head, types, ok := bytes.Cut(withHeader.Bytes(), []byte("layout[19] ENUM64: info_sz=0 elem_sz=12 flags=0x0\n"))
		if !ok || !bytes.HasPrefix(head, []byte("magic: 0xeb9f\n")) || !bytes.Contains(head, []byte("layout_len: 80\n")) || !bytes.Equal(types, plain.Bytes()) {
			t.Errorf("%s --header:\n%s", name, withHeader.String())
		}
	}
}

// TestDedupKeepsLayout: dedup keeps the input's layout section and byte
// order (as libbpf's btf__dedup does): the result is the dedup of the
// same BTF without the section, plus the header's 8 bytes and the section.
func TestDedupKeepsLayout(t *testing.T) {
	dir := t.TempDir()
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		s, err := btf.Parse(twoCUs(false), nil)
		if err != nil {
			t.Fatal(err)
		}
		s.ByteOrder = bo
		path := func(name string) string { return filepath.Join(dir, bo.String()+"-"+name) }
		os.WriteFile(path("plain.btf"), s.Marshal(), 0o644)
		s.SetLayout(btf.KindLayout())
		os.WriteFile(path("layout.btf"), s.Marshal(), 0o644)
		for _, name := range []string{"plain", "layout"} {
			if code := runDedup([]string{"-q", path(name + ".btf"), "-o", path(name + ".out")}); code != 0 {
				t.Fatalf("%v: dedup %s: exit %d", bo, name, code)
			}
		}
		res, err := elffile.LoadBTF(path("layout.out"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Validate(); err != nil || res.Len() != 3 || res.ByteOrder != bo || !slices.Equal(res.Header.Layout, btf.KindLayout()) {
			t.Fatalf("%v: %d types, byte order %v, layout %v (%v)", bo, res.Len(), res.ByteOrder, res.Header.Layout, err)
		}
		withL, _ := os.ReadFile(path("layout.out"))
		without, _ := os.ReadFile(path("plain.out"))
		if len(withL) != len(without)+8+btf.LayoutEntrySize*len(btf.KindLayout()) {
			t.Errorf("%v: %d bytes with the layout, %d without", bo, len(withL), len(without))
		}
		if code := runDiff([]string{"-q", path("plain.out"), path("layout.out")}); code != 0 {
			t.Errorf("%v: diff: exit %d", bo, code)
		}
	}
}

// TestPaholeReadsLayoutBase: pahole 1.32 (libbpf 1.7, which predates the
// layout section) reads base BTF with our layout section as --btf_base
// and encodes a module over it to the type graph we encode.
func TestPaholeReadsLayoutBase(t *testing.T) {
	pahole := referencePahole(t)
	dir := t.TempDir()
	point, _ := filepath.Abs(filepath.Join("testdata", "corrupt", "point.o"))
	tagged, _ := filepath.Abs(filepath.Join("testdata", "corrupt", "tagged.o"))
	base := filepath.Join(dir, "base.btf")
	if code := runEncode("", []string{"-q", "--btf_features=default,layout", "--btf_encode_detached", base, point}); code != 0 {
		t.Fatalf("base: exit %d", code)
	}
	feats := "--btf_features=encode_force,var,float,decl_tag,type_tag,enum64"
	ours, ref := filepath.Join(dir, "ours.btf"), filepath.Join(dir, "ref.btf")
	if code := runEncode("", []string{"-q", feats, "--btf_base", base, "--btf_encode_detached", ours, tagged}); code != 0 {
		t.Fatalf("ours: exit %d", code)
	}
	if out, err := exec.Command(pahole, "-J", feats, "--btf_base", base, "--btf_encode_detached", ref, tagged).CombinedOutput(); err != nil {
		t.Fatalf("pahole: %v\n%s", err, out)
	}
	if code := runDiff([]string{"-q", "--base", base, ours, ref}); code != 0 {
		t.Errorf("diff over the layout base: exit %d", code)
	}
}
