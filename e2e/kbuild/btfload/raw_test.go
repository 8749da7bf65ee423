package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// testPair returns a small base and a split over it; withTypedef adds a
// TYPEDEF to the split, withFunc a FUNC and its FUNC_PROTO.
func testPair(withTypedef, withFunc bool) (base, split *btf.Spec) {
	base = btf.NewSpec()
	i := base.Add(btf.Type{NameOff: base.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.MakeIntInfo(btf.IntSigned, 0, 32))
	split = btf.NewSplitSpec(base)
	split.Add(btf.Type{NameOff: split.Strings().Add("pair"), Info: btf.MakeInfo(btf.KindStruct, 2, false), SizeOrType: 8},
		uint32(split.Strings().Add("a")), uint32(i), 0, uint32(split.Strings().Add("b")), uint32(i), 32)
	if withTypedef {
		split.Add(btf.Type{NameOff: split.Strings().Add("pair_t"), Info: btf.MakeInfo(btf.KindTypedef, 0, false), SizeOrType: uint32(split.FirstID())})
	}
	if withFunc {
		proto := split.Add(btf.Type{Info: btf.MakeInfo(btf.KindFuncProto, 0, false), SizeOrType: uint32(i)})
		split.Add(btf.Type{NameOff: split.Strings().Add("f"), Info: btf.MakeInfo(btf.KindFunc, 1, false), SizeOrType: uint32(proto)})
	}
	return base, split
}

func TestMerge(t *testing.T) {
	base, split := testPair(true, true)
	got, err := merge(base.Marshal(), split.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if want := btf.Flatten(split).Marshal(); !bytes.Equal(got, want) {
		t.Fatalf("merge gives %d bytes, btf.Flatten %d, and they differ", len(got), len(want))
	}
	m, err := btf.Parse(got, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := merge(base.Marshal(), []byte("junk")); err == nil {
		t.Error("merge accepted junk")
	}
	short := split.Marshal()
	short[12] += 100 // type_len past the end
	if _, err := merge(base.Marshal(), short); err == nil {
		t.Error("merge accepted a header past the end of the data")
	}
}

// TestCorruptSplit checks that each corruption is one the verifier
// rejects (btf.Validate follows the kernel's rules) while the original
// is accepted.
func TestCorruptSplit(t *testing.T) {
	for _, tc := range []struct {
		typedef, fn bool
		did         string
		verdict     string
	}{
		{true, true, "TYPEDEF [3] 'pair_t' now points at itself", "loop"},
		{false, true, "FUNC [4] 'f' now points at itself, not at a FUNC_PROTO", "is not a FUNC_PROTO"},
		{false, false, "STRUCT [2] 'pair': last member moved past the end", "beyond size"},
	} {
		base, split := testPair(tc.typedef, tc.fn)
		raw := split.Marshal()
		ok, _ := merge(base.Marshal(), raw)
		if err := mustParse(t, ok).Validate(); err != nil {
			t.Fatalf("uncorrupted: %v", err)
		}
		did, err := corruptSplit(raw, base.Marshal())
		if err != nil || did != tc.did {
			t.Fatalf("corruptSplit: %q, %v; want %q", did, err, tc.did)
		}
		bad, _ := merge(base.Marshal(), raw)
		err = mustParse(t, bad).Validate()
		if err == nil || !strings.Contains(err.Error(), tc.verdict) {
			t.Errorf("%s: Validate says %v, want an error with %q", did, err, tc.verdict)
		}
	}
}

func mustParse(t *testing.T, raw []byte) *btf.Spec {
	t.Helper()
	s, err := btf.Parse(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// withLayout returns raw (24-byte header) with Linux 7.2's header instead:
// hdr_len 32 and a layout section of n bytes after the strings.
func withLayout(raw []byte, n uint32) []byte {
	h, _ := parseHeader(raw)
	out := make([]byte, btf.HeaderLenLayout, btf.HeaderLenLayout+len(raw)-btf.HeaderLen+int(n))
	copy(out, raw[:btf.HeaderLen])
	le.PutUint32(out[4:], btf.HeaderLenLayout)
	body := raw[h.hdrLen:]
	le.PutUint32(out[24:], uint32(len(body))) // layout_off: after types and strings
	le.PutUint32(out[28:], n)
	out = append(out, body...)
	return append(out, make([]byte, n)...)
}

func TestLayoutNote(t *testing.T) {
	base, split := testPair(true, false)
	plain := base.Marshal()
	for _, tc := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"24-byte header", plain, ""},
		{"hdr_len 32, empty layout section", withLayout(plain, 0), ""},
		{"hdr_len 32, layout section", withLayout(plain, 40), ", layout section of 40 bytes"},
		{"junk", []byte("junk"), ""},
	} {
		if got := layoutNote(tc.raw); got != tc.want {
			t.Errorf("%s: layoutNote = %q, want %q", tc.name, got, tc.want)
		}
	}
	// A base with the section merges as one without: same bytes.
	want, err := merge(plain, split.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	got, err := merge(withLayout(plain, 40), split.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("merge over a base with a layout section: %d bytes, want %d", len(got), len(want))
	}
}
