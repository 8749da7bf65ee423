package btf

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// libbpf 1.8's layouts[] (tools/lib/bpf/btf.c), by kind: the sizes of
// struct btf_array, btf_member, btf_enum, btf_param, btf_var,
// btf_var_secinfo, btf_decl_tag and btf_enum64.
var libbpfLayout = [...]LayoutEntry{
	KindInt: {4, 0, 0}, KindArray: {12, 0, 0}, KindStruct: {0, 12, 0}, KindUnion: {0, 12, 0},
	KindEnum: {0, 8, 0}, KindFuncProto: {0, 8, 0}, KindVar: {4, 0, 0}, KindDatasec: {0, 12, 0},
	KindDeclTag: {4, 0, 0}, KindEnum64: {0, 12, 0},
}

func TestKindLayoutIsLibbpfs(t *testing.T) {
	if got := KindLayout(); !slices.Equal(got, libbpfLayout[:]) {
		t.Errorf("KindLayout() = %v\nlibbpf 1.8 writes %v", got, libbpfLayout)
	}
}

var byteOrders = []struct {
	name string
	bo   binary.ByteOrder
}{{"le", binary.LittleEndian}, {"be", binary.BigEndian}}

// TestLayoutMarshal: a Spec given the layout marshals as libbpf 1.8 lays
// it out (32-byte header; types, layout, strings), reads back with the
// same entries, validates, and loses it again with SetLayout(nil).
func TestLayoutMarshal(t *testing.T) {
	for _, o := range byteOrders {
		t.Run(o.name, func(t *testing.T) {
			s := allKinds()
			s.ByteOrder = o.bo
			plain := s.Marshal()
			typeLen := o.bo.Uint32(plain[12:])
			strLen := o.bo.Uint32(plain[20:])
			l := KindLayout()
			l[KindPtr].Flags = 0x0102 // to see the flags' byte order
			s.SetLayout(l)
			raw := s.Marshal()
			want := []uint32{HeaderLenLayout, 0, typeLen, typeLen + 80, strLen, typeLen, 80}
			var got []uint32
			for off := 4; off < HeaderLenLayout; off += 4 {
				got = append(got, o.bo.Uint32(raw[off:]))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("header words %v, want %v", got, want)
			}
			if len(raw) != HeaderLenLayout+int(typeLen)+80+int(strLen) {
				t.Fatalf("%d bytes", len(raw))
			}
			ptr := raw[HeaderLenLayout+int(typeLen)+4*int(KindPtr):]
			wantFlags := make([]byte, 2)
			o.bo.PutUint16(wantFlags, 0x0102)
			if !bytes.Equal(ptr[2:4], wantFlags) {
				t.Errorf("PTR entry flags bytes %x, want %x", ptr[2:4], wantFlags)
			}
			if !bytes.Equal(raw[HeaderLenLayout:][:typeLen], plain[HeaderLen:][:typeLen]) ||
				!bytes.Equal(raw[len(raw)-int(strLen):], plain[len(plain)-int(strLen):]) {
				t.Error("types or strings changed")
			}
			p, err := Parse(raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !p.HasLayout() || !slices.Equal(p.Header.Layout, l) {
				t.Fatalf("layout read back as %v", p.Header.Layout)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(p.Marshal(), raw) {
				t.Fatal("round trip differs")
			}
			if dumpString(t, p) != dumpString(t, s) {
				t.Error("dump changed with the layout")
			}
			p.SetLayout(nil)
			bare := p.Marshal()
			if p.HasLayout() || len(bare) != HeaderLenLayout+int(typeLen+strLen) || o.bo.Uint32(bare[16:]) != typeLen || o.bo.Uint32(bare[28:]) != 0 {
				t.Fatalf("without the layout: %d bytes, header %x", len(bare), bare[:HeaderLenLayout])
			}
			if q, err := Parse(bare, nil); err != nil || q.Validate() != nil {
				t.Fatalf("without the layout: %v", err)
			}
		})
	}
}

// layoutFixture returns the every-kind BTF with the layout, and its
// section sizes.
func layoutFixture(t *testing.T, bo binary.ByteOrder) (raw []byte, typeLen, strLen uint32) {
	t.Helper()
	raw = withLayout(t, allKinds(), bo)
	return raw, bo.Uint32(raw[12:]), bo.Uint32(raw[20:])
}

// TestLayoutHeaderRules: the layout header fields as libbpf 1.8 and the
// 7.2 kernel check them, in both byte orders. "parse" errors are those
// both readers reject; "validate" errors the kernel's section rules.
func TestLayoutHeaderRules(t *testing.T) {
	type fields struct{ typeOff, typeLen, strOff, strLen, layoutOff, layoutLen uint32 }
	tests := []struct {
		name   string
		change func(f *fields, typeLen, strLen uint32)
		stage  string // "" valid, "parse", "validate"
		msg    string
	}{
		{"as written", func(f *fields, _, _ uint32) {}, "", ""},
		{"layout_off unaligned", func(f *fields, _, _ uint32) { f.layoutOff++ }, "parse", "not 4-byte aligned"},
		{"layout_len not a multiple of 4", func(f *fields, _, _ uint32) { f.layoutLen -= 2 }, "parse", "not a multiple of 4"},
		{"layout past the end", func(f *fields, tl, sl uint32) { f.layoutOff = (tl + 80 + sl + 3) &^ 3 }, "parse", "past end of data"},
		{"layout_len 0: offset ignored, gap left", func(f *fields, _, _ uint32) { f.layoutOff, f.layoutLen = 3, 0 }, "validate", "gap before string section"},
		{"layout after the strings, NUL-padded to 4", func(f *fields, tl, sl uint32) {
			f.strOff, f.strLen, f.layoutOff = tl, (sl+3)&^3, tl+(sl+3)&^3
		}, "", ""},
		{"layout after the strings, a gap to align it", func(f *fields, tl, sl uint32) {
			f.strOff, f.layoutOff = tl, tl+(sl+3)&^3
		}, "validate", "gap before layout section"},
		{"layout first", func(f *fields, tl, _ uint32) { f.layoutOff, f.typeOff, f.strOff = 0, 80, 80+tl }, "", ""},
		{"layout overlaps types", func(f *fields, tl, _ uint32) { f.layoutOff = tl - 4 }, "validate", "overlaps"},
		{"trailing layout entries cut", func(f *fields, _, _ uint32) { f.layoutLen = 4 }, "validate", "gap before string section"},
		{"one entry only", func(f *fields, tl, sl uint32) { f.layoutLen, f.strOff = 4, tl+4 }, "", ""},
	}
	for _, o := range byteOrders {
		for _, tc := range tests {
			t.Run(o.name+"/"+tc.name, func(t *testing.T) {
				raw, typeLen, strLen := layoutFixture(t, o.bo)
				raw = relayout(t, raw, tc.name, typeLen)
				f := fields{typeOff: o.bo.Uint32(raw[8:]), typeLen: typeLen, strOff: o.bo.Uint32(raw[16:]), strLen: strLen,
					layoutOff: o.bo.Uint32(raw[24:]), layoutLen: o.bo.Uint32(raw[28:])}
				tc.change(&f, typeLen, strLen)
				for i, v := range []uint32{f.typeOff, f.typeLen, f.strOff, f.strLen, f.layoutOff, f.layoutLen} {
					o.bo.PutUint32(raw[8+4*i:], v)
				}
				s, err := Parse(raw, nil)
				if err == nil {
					err = s.Validate()
					if err != nil && tc.stage == "parse" {
						t.Fatalf("parse accepted, validate: %v", err)
					}
				} else if tc.stage != "parse" {
					t.Fatalf("parse: %v", err)
				}
				switch {
				case tc.stage == "" && err != nil:
					t.Fatalf("rejected: %v", err)
				case tc.stage != "" && (err == nil || !strings.Contains(err.Error(), tc.msg)):
					t.Fatalf("got %v, want %q", err, tc.msg)
				}
			})
		}
	}
}

// relayout rewrites the fixture's body for the cases whose section order
// differs from libbpf's (types, layout, strings).
func relayout(t *testing.T, raw []byte, name string, typeLen uint32) []byte {
	t.Helper()
	body := raw[HeaderLenLayout:]
	types, layout, strs := body[:typeLen], body[typeLen:typeLen+80], body[typeLen+80:]
	out := append([]byte{}, raw[:HeaderLenLayout]...)
	switch name {
	case "layout first":
		out = append(append(append(out, layout...), types...), strs...)
	case "one entry only":
		out = append(append(append(out, types...), layout[:4]...), strs...)
	case "layout after the strings, NUL-padded to 4", "layout after the strings, a gap to align it":
		pad := make([]byte, (4-len(strs)%4)%4)
		out = append(append(append(append(out, types...), strs...), pad...), layout...)
	default:
		return raw
	}
	return out
}

// TestLayoutSplit: split BTF over a base that has the layout, without one
// of its own (what pahole 1.32 writes for modules) or with one (which the
// kernel and libbpf also accept), in both byte orders.
func TestLayoutSplit(t *testing.T) {
	for _, o := range byteOrders {
		t.Run(o.name, func(t *testing.T) {
			raw, _, _ := layoutFixture(t, o.bo)
			base, err := Parse(raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			split := NewSplitSpec(base)
			split.Add(Type{NameOff: split.Strings().Add("node_ptr"), Info: MakeInfo(KindTypedef, 0, false), SizeOrType: 5})
			plain := split.Marshal()
			if hl := o.bo.Uint32(plain[4:]); hl != HeaderLen || split.HasLayout() {
				t.Fatalf("new split BTF: hdr_len %d, layout %v", hl, split.HasLayout())
			}
			split.SetLayout(KindLayout())
			for _, data := range [][]byte{plain, split.Marshal()} {
				s, err := Parse(data, base)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Validate(); err != nil {
					t.Fatalf("hdr_len %d: %v", o.bo.Uint32(data[4:]), err)
				}
				if got := dumpString(t, s); !strings.Contains(got, "[36] TYPEDEF 'node_ptr' type_id=5") {
					t.Fatalf("dump:\n%s", got)
				}
			}
		})
	}
}

// TestDumpHeader: the header lines (the kernel verifier log's) and one
// line per layout entry, in both byte orders; the total size is the
// file's.
func TestDumpHeader(t *testing.T) {
	for _, o := range byteOrders {
		for _, layout := range []bool{false, true} {
			s := allKinds()
			s.ByteOrder = o.bo
			if layout {
				s.SetLayout(KindLayout())
			}
			var b strings.Builder
			if err := s.DumpHeader(&b); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			want := []string{"magic: 0xeb9f\n", "hdr_len: 24\n", "str_off: 696\n", "btf_total_size: " + strconv.Itoa(len(s.Marshal())) + "\n"}
			if layout {
				want = []string{"hdr_len: 32\n", "layout_off: 696\nlayout_len: 80\n", "str_off: 776\n",
					"layout[0] UNKN: info_sz=0 elem_sz=0 flags=0x0\n", "layout[4] STRUCT: info_sz=0 elem_sz=12 flags=0x0\n",
					"layout[19] ENUM64: info_sz=0 elem_sz=12 flags=0x0\n", "btf_total_size: " + strconv.Itoa(len(s.Marshal())) + "\n"}
			}
			if o.bo == binary.BigEndian {
				want = append(want, "byte_order: big-endian\n")
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%s, layout %v: no %q in\n%s", o.name, layout, w, got)
				}
			}
			if n := strings.Count(got, "layout["); layout && n != 20 || !layout && (n != 0 || strings.Contains(got, "layout_off")) {
				t.Errorf("%s, layout %v: %d layout lines\n%s", o.name, layout, n, got)
			}
		}
	}
}
