package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

// twoCUs builds raw BTF in which a second "CU" repeats the first one's
// `struct node { int val; struct node *next; }`, and optionally changes
// the repeated member's type to make the graphs differ.
func twoCUs(differ bool) []byte {
	s := btf.NewSpec()
	str := s.Strings()
	for cu := 0; cu < 2; cu++ {
		intID := s.Add(btf.Type{NameOff: str.Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4},
			btf.MakeIntInfo(btf.IntSigned, 0, 32))
		valType := intID
		if differ && cu == 1 {
			valType = s.Add(btf.Type{NameOff: str.Add("long"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 8},
				btf.MakeIntInfo(btf.IntSigned, 0, 64))
		}
		ptr := s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false)})
		node := s.Add(btf.Type{NameOff: str.Add("node"), Info: btf.MakeInfo(btf.KindStruct, 2, false), SizeOrType: 16},
			uint32(str.Add("val")), uint32(valType), 0,
			uint32(str.Add("next")), uint32(ptr), 64)
		s.SetType(ptr, btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(node)})
	}
	return s.Marshal()
}

func TestDedupAndDiffExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dup := write("dup.btf", twoCUs(false))
	other := write("other.btf", twoCUs(true))
	bad := write("bad.btf", []byte("not BTF at all"))
	out := filepath.Join(dir, "out.btf")

	if code := runDedup([]string{"-q", dup, "-o", out}); code != 0 {
		t.Fatalf("dedup exit %d", code)
	}
	got, err := elffile.LoadBTF(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != 3 { // int, ptr, node: the second CU folds into the first
		t.Errorf("dedup kept %d types, want 3", got.Len())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 /* dup, other, bad, out */ {
		t.Errorf("dedup left %d files in the output dir, want 4 (no temp files)", len(ents))
	}
	again := filepath.Join(dir, "again.btf")
	if code := runDedup([]string{"-q", out, "-o", again}); code != 0 {
		t.Fatalf("second dedup exit %d", code)
	}

	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"dedup is idempotent as a graph", []string{"-q", out, again}, 0},
		{"same file", []string{"-q", dup, dup}, 0},
		{"duplicates count: input vs its dedup", []string{"-q", dup, out}, 1},
		{"changed member type differs", []string{"-q", out, other}, 1},
		{"bad input", []string{"-q", dup, bad}, 2},
		{"missing file", []string{"-q", dup, filepath.Join(dir, "nope")}, 2},
		{"one operand", []string{"-q", dup}, 2},
	} {
		if code := runDiff(c.args); code != c.want {
			t.Errorf("%s: diff exit %d, want %d", c.name, code, c.want)
		}
	}
	if code := runDedup([]string{bad, "-o", filepath.Join(dir, "x.btf")}); code != 1 {
		t.Errorf("dedup of bad input: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.btf")); !os.IsNotExist(err) {
		t.Error("dedup of bad input left an output file")
	}
}

// TestDiffBaseCopies: over a base, a module that repeats base types (as
// libbpf 1.7 leaves them) equals one that does not, and diff says how many
// copies each side has.
func TestDiffBaseCopies(t *testing.T) {
	dir := t.TempDir()
	base := btf.NewSpec()
	str := base.Strings()
	intID := base.Add(btf.Type{NameOff: str.Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4},
		btf.MakeIntInfo(btf.IntSigned, 0, 32))
	td := base.Add(btf.Type{NameOff: str.Add("__u8"), Info: btf.MakeInfo(btf.KindTypedef, 0, false), SizeOrType: uint32(intID)})
	module := func(copies, other bool) string {
		s := btf.NewSplitSpec(base)
		ms := s.Strings()
		target := td
		if copies { // its own int and typedef, identical to the base's
			i := s.Add(btf.Type{NameOff: ms.Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4},
				btf.MakeIntInfo(btf.IntSigned, 0, 32))
			target = s.Add(btf.Type{NameOff: ms.Add("__u8"), Info: btf.MakeInfo(btf.KindTypedef, 0, false), SizeOrType: uint32(i)})
		}
		if other { // a typedef of the same name to something else
			l := s.Add(btf.Type{NameOff: ms.Add("unsigned int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4},
				btf.MakeIntInfo(0, 0, 32))
			target = s.Add(btf.Type{NameOff: ms.Add("__u8"), Info: btf.MakeInfo(btf.KindTypedef, 0, false), SizeOrType: uint32(l)})
		}
		s.Add(btf.Type{NameOff: ms.Add("m"), Info: btf.MakeInfo(btf.KindStruct, 1, false), SizeOrType: 4},
			uint32(ms.Add("x")), uint32(target), 0)
		p := filepath.Join(dir, "m"+map[bool]string{true: "c", false: ""}[copies]+map[bool]string{true: "o", false: ""}[other]+".btf")
		if err := os.WriteFile(p, s.Marshal(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	basePath := filepath.Join(dir, "base.btf")
	if err := os.WriteFile(basePath, base.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, copied, other := module(false, false), module(true, false), module(false, true)
	for _, c := range []struct {
		name string
		a, b string
		want int
		line string
	}{
		{"copies of base types are those types", copied, plain, 0, "A 2 (INT 1, TYPEDEF 1), B 0"},
		{"either way round", plain, copied, 0, "A 0, B 2 (INT 1, TYPEDEF 1)"},
		{"a typedef that is no copy differs", other, plain, 1, ""},
	} {
		var out bytes.Buffer
		old := stdout
		stdout = &out
		code := runDiff([]string{"--base", basePath, c.a, c.b})
		stdout = old
		if code != c.want || !strings.Contains(out.String(), c.line) {
			t.Errorf("%s: exit %d, want %d; output:\n%s(want a line with %q)", c.name, code, c.want, out.String(), c.line)
		}
	}
}
