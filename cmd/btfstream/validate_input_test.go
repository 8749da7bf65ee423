package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

// malformedBTF is the class of input issue 12 found going through dedup
// and diff: BTF that parses but whose structure is broken (a string offset
// or type id out of range), which every tool refuses. Each case names the
// type and the byte offset of its record the error must give.
func malformedBTF() []struct {
	name, want string
	raw        []byte
} {
	intType := func(s *btf.Spec, name btf.StrOff) btf.TypeID {
		return s.Add(btf.Type{NameOff: name, Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.MakeIntInfo(btf.IntSigned, 0, 32))
	}
	nameOff := btf.NewSpec()
	intType(nameOff, nameOff.Strings().Add("int"))
	intType(nameOff, 1000) // [2], record at 24 + 16
	dangling := btf.NewSpec()
	i := intType(dangling, dangling.Strings().Add("int"))
	dangling.Add(btf.Type{NameOff: dangling.Strings().Add("t"), Info: btf.MakeInfo(btf.KindTypedef, 0, false), SizeOrType: uint32(i) + 7})
	return []struct {
		name, want string
		raw        []byte
	}{
		{"INT name offset past the strings", "BTF+0x28: type [2] INT '(anon)': name offset 1000 beyond string section", nameOff.Marshal()},
		{"TYPEDEF to a missing type", "BTF+0x28: type [2] TYPEDEF 't': invalid type_id 8", dangling.Marshal()},
	}
}

// TestToolsRefuseMalformedBTF: dump, dedup, diff, check and the encoder's
// --btf_base check the structure of what they read, exit non-zero naming
// the file, the type and its offset, and write nothing.
func TestToolsRefuseMalformedBTF(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.btf")
	os.WriteFile(good, twoCUs(false), 0o644)
	for i, c := range malformedBTF() {
		t.Run(c.name, func(t *testing.T) {
			bad := filepath.Join(dir, "bad"+string(rune('0'+i))+".btf")
			if err := os.WriteFile(bad, c.raw, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := elffile.LoadBTF(bad, nil); err != nil {
				t.Fatalf("the case must parse (only validation refuses it): %v", err)
			}
			out := filepath.Join(dir, "out.btf")
			for _, tc := range []struct {
				args []string
				code int
			}{
				{[]string{"dedup", "-q", bad, "-o", out}, 1},
				{[]string{"diff", bad, good}, 2},
				{[]string{"diff", good, bad}, 2},
				{[]string{"dump", bad}, 1},
				{[]string{"check", bad}, 1},
				{[]string{"dump", "--base", bad, good}, 1},
				{[]string{"dedup", "--base", bad, good, "-o", out}, 1},
				{[]string{"diff", "--base", bad, good, good}, 2},
				{[]string{"--btf_base", bad, "--btf_encode_detached", out, good}, 1},
			} {
				code, _, errOut := runCaptured(tc.args...)
				if code != tc.code || !strings.Contains(errOut, bad+": "+c.want) {
					t.Errorf("%q: exit %d (want %d), stderr %q, want it to contain %q", tc.args, code, tc.code, errOut, bad+": "+c.want)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%q wrote %s", tc.args, out)
					os.Remove(out)
				}
			}
			// --no-validate still shows what is there.
			if code, out, _ := runCaptured("dump", "--no-validate", bad); code != 0 || !strings.Contains(out, "[1] ") {
				t.Errorf("dump --no-validate: exit %d, %q", code, out)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1+len(malformedBTF()) {
		t.Errorf("%d files left in %s, want %d", len(ents), dir, 1+len(malformedBTF()))
	}
}
