package main

import (
	"os"
	"path/filepath"
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
