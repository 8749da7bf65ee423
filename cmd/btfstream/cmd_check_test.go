package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// verifierOnlyBTF is BTF whose structure is sound but that breaks a rule of
// the kernel verifier (issue 17): libbpf reads and deduplicates it, and so
// do dump, dedup and diff; `btfstream check` refuses it, naming the rule.
// Each input holds its types twice (two "CUs"), so dedup has work to do.
func verifierOnlyBTF() []struct {
	name, rule string
	raw        []byte
	types      int // after dedup
} {
	twice := func(add func(s *btf.Spec)) []byte {
		s := btf.NewSpec()
		add(s)
		add(s)
		return s.Marshal()
	}
	typedefProto := twice(func(s *btf.Spec) {
		// [n] TYPEDEF 'Foo' -> [n+1] FUNC_PROTO returning [n]
		n := uint32(s.NextID())
		s.Add(btf.Type{NameOff: s.Strings().Add("Foo"), Info: btf.MakeInfo(btf.KindTypedef, 0, false), SizeOrType: n + 1})
		s.Add(btf.Type{Info: btf.MakeInfo(btf.KindFuncProto, 0, false), SizeOrType: n})
	})
	notIdent := twice(func(s *btf.Spec) {
		i := s.Add(btf.Type{NameOff: s.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.MakeIntInfo(btf.IntSigned, 0, 32))
		s.Add(btf.Type{NameOff: s.Strings().Add("not an-identifier"), Info: btf.MakeInfo(btf.KindStruct, 1, false), SizeOrType: 4},
			uint32(s.Strings().Add("x")), uint32(i), 0)
	})
	wideInt := twice(func(s *btf.Spec) {
		s.Add(btf.Type{NameOff: s.Strings().Add("i"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 2}, btf.MakeIntInfo(btf.IntSigned, 0, 32))
	})
	return []struct {
		name, rule string
		raw        []byte
		types      int
	}{
		{"typedef recursing through a FUNC_PROTO", "BTF+0x24: type [2] FUNC_PROTO '(anon)': invalid return type: type_id 1 (TYPEDEF) has no size", typedefProto, 2},
		{"STRUCT name not a C identifier", "BTF+0x28: type [2] STRUCT 'not an-identifier': invalid name: not a C identifier", notIdent, 2},
		{"INT wider than its size", "BTF+0x18: type [1] INT 'i': nr_bits 32 + bits_offset 0 exceeds size 2", wideInt, 1},
	}
}

// TestCheckVerifierRules: check refuses what only the kernel's rules
// refuse and names the rule; dump, dedup and diff take the same file.
func TestCheckVerifierRules(t *testing.T) {
	dir := t.TempDir()
	for i, c := range verifierOnlyBTF() {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, "in"+string(rune('0'+i))+".btf")
			out := filepath.Join(dir, "out"+string(rune('0'+i))+".btf")
			if err := os.WriteFile(in, c.raw, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := runCaptured("check", in)
			if code != 1 || !strings.Contains(errOut, in+": "+c.rule) {
				t.Errorf("check: exit %d, stderr %q, want 1 and %q", code, errOut, in+": "+c.rule)
			}
			if code, out, errOut := runCaptured("dump", in); code != 0 || !strings.Contains(out, "[1] ") {
				t.Errorf("dump: exit %d, %q %q", code, out, errOut)
			}
			if code, _, errOut := runCaptured("dedup", "-q", in, "-o", out); code != 0 {
				t.Fatalf("dedup: exit %d, %q", code, errOut)
			}
			res, err := loadSound(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Len() != c.types {
				t.Errorf("dedup gave %d types, want %d", res.Len(), c.types)
			}
			if code, _, errOut := runCaptured("diff", "-q", in, in); code != 0 {
				t.Errorf("diff of a file with itself: exit %d, %q", code, errOut)
			}
			if code, _, _ := runCaptured("check", "-q", out); code != 1 {
				t.Errorf("check of dedup's output: exit %d, want 1 (the rule still breaks)", code)
			}
		})
	}
	good := filepath.Join(dir, "good.btf")
	os.WriteFile(good, twoCUs(false), 0o644)
	if code, out, errOut := runCaptured("check", good); code != 0 || !strings.Contains(out, "valid BTF") {
		t.Errorf("check of valid BTF: exit %d, %q %q", code, out, errOut)
	}
	if code, _, _ := runCaptured("check"); code != 2 {
		t.Errorf("check without FILE: exit %d, want 2", code)
	}
}
