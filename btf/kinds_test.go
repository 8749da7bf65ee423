package btf

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden and testdata/*.btf")

// allKinds builds a small BTF with every kind of today's uapi and every
// meaning of kind_flag: bitfield member offsets, union FWD, signed ENUM and
// ENUM64, DECL_TAG on a struct, a member and a parameter, and the
// attribute flag of DECL_TAG and TYPE_TAG. It passes Validate.
func allKinds() *Spec {
	s := NewSpec()
	str := s.Strings().Add
	add := func(name string, k Kind, vlen uint32, flag bool, sizeOrType uint32, extra ...uint32) TypeID {
		var off StrOff
		if name != "" {
			off = str(name)
		}
		return s.Add(Type{NameOff: off, Info: MakeInfo(k, vlen, flag), SizeOrType: sizeOrType}, extra...)
	}
	u := func(name string) uint32 { return uint32(str(name)) }
	i32 := add("int", KindInt, 0, false, 4, MakeIntInfo(IntSigned, 0, 32)) // 1
	u8 := add("unsigned char", KindInt, 0, false, 1, MakeIntInfo(0, 0, 8)) // 2
	add("_Bool", KindInt, 0, false, 1, MakeIntInfo(IntBool, 0, 8))         // 3
	ch := add("char", KindInt, 0, false, 1, MakeIntInfo(IntChar, 0, 8))    // 4
	ptr := add("", KindPtr, 0, false, 0)                                   // 5 -> node, set below
	arr := add("", KindArray, 0, false, 0, uint32(ch), uint32(i32), 16)    // 6
	node := add("node", KindStruct, 5, true, 32,                           // 7
		u("val"), uint32(i32), 0,
		u("flags"), uint32(u8), 3<<24|32, // bitfield: size 3 at bit 32
		u("more"), uint32(u8), 5<<24|35,
		u("next"), uint32(ptr), 64,
		u("name"), uint32(arr), 128)
	s.SetType(ptr, Type{Info: MakeInfo(KindPtr, 0, false), SizeOrType: uint32(node)})
	add("either", KindUnion, 2, false, 4, u("i"), uint32(i32), 0, u("c"), uint32(ch), 0) // 8
	add("color", KindEnum, 2, false, 4, u("RED"), 0, u("BLUE"), 0xfffffffe)              // 9
	add("delta", KindEnum, 2, true, 4, u("DOWN"), 0xffffffff, u("UP"), 1)                // 10
	add("fs_struct", KindFwd, 0, false, 0)                                               // 11
	add("un", KindFwd, 0, true, 0)                                                       // 12
	td := add("node_t", KindTypedef, 0, false, uint32(node))                             // 13
	vol := add("", KindVolatile, 0, false, uint32(i32))                                  // 14
	cst := add("", KindConst, 0, false, uint32(vol))                                     // 15
	add("", KindRestrict, 0, false, uint32(ptr))                                         // 16
	proto := add("", KindFuncProto, 3, false, uint32(i32),                               // 17
		u("n"), uint32(td), u("c"), uint32(cst), 0, 0) // varargs
	fn := add("node_walk", KindFunc, 0, false, uint32(proto))               // 18
	add("node_put", KindFunc, LinkageGlobal, false, uint32(proto))          // 19
	v1 := add("node_count", KindVar, 0, false, uint32(i32), LinkageGlobal)  // 20
	v2 := add("node_cache", KindVar, 0, false, uint32(node), LinkageStatic) // 21
	add(".data..percpu", KindDatasec, 2, false, 64,                         // 22
		uint32(v1), 0, 4, uint32(v2), 8, 32)
	add("double", KindFloat, 0, false, 8)                                         // 23
	add("noinline", KindDeclTag, 0, false, uint32(fn), 0xffffffff)                // 24: on the func
	add("nonnull", KindDeclTag, 0, false, uint32(fn), 0)                          // 25: on param 0
	add("packed", KindDeclTag, 0, false, uint32(node), 3)                         // 26: on member 3
	add("aligned(8)", KindDeclTag, 0, true, uint32(node), 0xffffffff)             // 27: attribute
	tt := add("rcu", KindTypeTag, 0, false, uint32(node))                         // 28
	add("", KindPtr, 0, false, uint32(tt))                                        // 29
	at := add("address_space(1)", KindTypeTag, 0, true, uint32(i32))              // 30: attribute
	add("", KindPtr, 0, false, uint32(at))                                        // 31
	add("big", KindEnum64, 2, false, 8, u("HUGE"), 0, 0x80000000, u("ONE"), 1, 0) // 32
	add("sbig", KindEnum64, 2, true, 8, u("NEG"), 0xfffffffe, 0xffffffff, u("POS"), 7, 0)
	add("anon_holder", KindStruct, 1, false, 4, 0, uint32(add("", KindUnion, 0, false, 4)), 0)
	return s
}

// withLayout returns s re-marshalled in byte order bo with the 32-byte
// header and the layout section libbpf 1.8 writes (types, layout, strings).
func withLayout(t *testing.T, s *Spec, bo binary.ByteOrder) []byte {
	t.Helper()
	s2, err := Parse(s.Marshal(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s2.ByteOrder = bo
	s2.SetLayout(KindLayout())
	return s2.Marshal()
}

// fixtures returns the every-kind BTF in each byte order and header form.
func fixtures(t *testing.T) map[string][]byte {
	le := allKinds()
	be := allKinds()
	be.ByteOrder = binary.BigEndian
	return map[string][]byte{
		"kinds-le.btf":        le.Marshal(),
		"kinds-be.btf":        be.Marshal(),
		"kinds-layout-le.btf": withLayout(t, allKinds(), binary.LittleEndian),
		"kinds-layout-be.btf": withLayout(t, allKinds(), binary.BigEndian),
	}
}

func dumpString(t testing.TB, s *Spec) string {
	t.Helper()
	var b strings.Builder
	if err := s.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestAllKindsValid(t *testing.T) {
	s := allKinds()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	seen := map[Kind]bool{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		seen[s.Kind(id)] = true
	}
	for k := KindInt; k <= MaxKind; k++ {
		if !seen[k] {
			t.Errorf("fixture lacks %s", k)
		}
	}
}

// TestGolden checks the dump of every fixture against testdata/kinds.golden
// (the same types in every file), that the fixtures are the bytes committed
// in testdata, and that each round-trips byte for byte.
func TestGolden(t *testing.T) {
	golden := filepath.Join("testdata", "kinds.golden")
	for name, raw := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			if *update {
				if err := os.WriteFile(path, raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw, want) {
				t.Fatalf("marshal of the fixture differs from %s (run go test -update)", path)
			}
			s, err := Parse(raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Marshal(); !bytes.Equal(got, raw) {
				t.Fatal("round trip differs")
			}
			if got, want := s.Header.HdrLen, binary.LittleEndian.Uint32(raw[4:]); strings.Contains(name, "-be") {
				want = binary.BigEndian.Uint32(raw[4:])
				if got != want {
					t.Fatalf("hdr_len %d, file has %d", got, want)
				}
			} else if got != want {
				t.Fatalf("hdr_len %d, file has %d", got, want)
			}
			if strings.Contains(name, "layout") && (s.Header.HdrLen != HeaderLenLayout || len(s.Header.Layout) == 0) {
				t.Fatalf("layout header lost: %+v", s.Header)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			out := dumpString(t, s)
			if *update && name == "kinds-le.btf" {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err = os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Fatalf("dump differs from %s:\n%s", golden, diffLines(string(want), out))
			}
		})
	}
}

// TestGoldenBpftool runs Debian's bpftool on the fixtures it can read and
// compares with the golden file. bpftool 7.1 (libbpf 1.1) refuses
// non-native byte order with a header longer than 24 bytes, so
// kinds-layout-be.btf is covered by the golden file alone.
func TestGoldenBpftool(t *testing.T) {
	bpftool := findBpftool(t)
	want, err := os.ReadFile(filepath.Join("testdata", "kinds.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kinds-le.btf", "kinds-be.btf", "kinds-layout-le.btf", "kinds-layout-be.btf"} {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command(bpftool, "btf", "dump", "file", filepath.Join("testdata", name), "format", "raw").CombinedOutput()
			if name == "kinds-layout-be.btf" {
				if err == nil {
					t.Logf("this bpftool reads a big-endian 32-byte header; comparing")
				} else {
					t.Skipf("bpftool cannot read it (%v: %s); golden file only", err, firstLine(out))
				}
			}
			if err != nil {
				t.Fatalf("bpftool: %v\n%s", err, out)
			}
			if string(out) != string(want) {
				t.Fatalf("bpftool output differs from golden:\n%s", diffLines(string(want), string(out)))
			}
		})
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// findBpftool returns bpftool's path or skips the test.
func findBpftool(t testing.TB) string {
	for _, p := range []string{"bpftool", "/usr/sbin/bpftool"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Skip("bpftool not installed (apt-get install bpftool)")
	return ""
}

// diffLines shows the first differing lines of two dumps.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < max(len(w), len(g)) && n < 10; i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want " + a + "\n  got  " + c + "\n")
			n++
		}
	}
	return b.String()
}

func TestKindAccessors(t *testing.T) {
	s := allKinds()
	find := func(k Kind, name string) TypeID {
		for id := s.FirstID(); id < s.NextID(); id++ {
			if s.Kind(id) == k && s.Name(id) == name {
				return id
			}
		}
		t.Fatalf("no %s %q", k, name)
		return 0
	}
	if c := s.DeclTagComponent(find(KindDeclTag, "noinline")); c != -1 {
		t.Errorf("component_idx of a whole-func tag = %d", c)
	}
	if c := s.DeclTagComponent(find(KindDeclTag, "packed")); c != 3 {
		t.Errorf("component_idx of a member tag = %d", c)
	}
	if !s.IsAttribute(find(KindDeclTag, "aligned(8)")) || !s.IsAttribute(find(KindTypeTag, "address_space(1)")) ||
		s.IsAttribute(find(KindTypeTag, "rcu")) {
		t.Error("IsAttribute does not follow kind_flag")
	}
	if s.FuncLinkage(find(KindFunc, "node_put")) != LinkageGlobal || s.VarLinkage(find(KindVar, "node_cache")) != LinkageStatic {
		t.Error("linkage")
	}
	if enc, _, bits := s.IntEncoding(find(KindInt, "_Bool")); enc != IntBool || bits != 8 {
		t.Errorf("_Bool: encoding %d bits %d", enc, bits)
	}
	if !s.Type(find(KindFwd, "un")).KindFlag() || s.Type(find(KindFwd, "fs_struct")).KindFlag() {
		t.Error("FWD kind_flag (union) lost")
	}
	if v := s.EnumValue(find(KindEnum, "delta"), 0).Value; int64(v) != -1 {
		t.Errorf("signed ENUM value = %d", int64(v))
	}
	node := find(KindStruct, "node")
	if m := s.Member(node, 1); m.BitOffset(true) != 32 || m.BitfieldSize(true) != 3 {
		t.Errorf("bitfield member: offset %d size %d", m.BitOffset(true), m.BitfieldSize(true))
	}
}
