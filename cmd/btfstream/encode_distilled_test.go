package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream"
	"github.com/btfstream/btfstream/stream/elffile"
)

// moduleC uses fixtureC's struct point (the "vmlinux" of this test)
// through a pointer and embedded, and has types of its own.
const moduleC = `
struct point { int x; long y; unsigned char tag[3]; };
struct mod_state { struct point *p; struct point copy; int n; };
struct mod_state state;
int mod_fn(struct mod_state *s) { return s->n + s->p->x + state.copy.x; }
`

// TestEncodeDistilled encodes a "module" against a "vmlinux" base with
// --btf_features=distilled_base: -J writes .BTF over a .BTF.base that
// names struct point without members; diff compares two such files over
// their own bases and tells a file without .BTF.base apart; a detached
// output stays plain split BTF; without --btf_base the feature is an error.
func TestEncodeDistilled(t *testing.T) {
	dir := t.TempDir()
	cc := func(name, src string) string { return gccObject(t, dir, name, src) }
	base := cc("vmlinux", fixtureC)
	baseBTF := filepath.Join(dir, "vmlinux.btf")
	if code := runEncode("", []string{"-q", "--btf_encode_detached", baseBTF, base}); code != 0 {
		t.Fatalf("base: exit %d", code)
	}
	mod := cc("mod", moduleC)
	plain := filepath.Join(dir, "plain.o")
	copyFile(t, mod, plain)

	feats := "--btf_features=default,distilled_base"
	if code := runEncode("", []string{"-J", "-q", feats, "--btf_base", baseBTF, mod}); code != 0 {
		t.Fatalf("-J distilled: exit %d", code)
	}
	if out, err := exec.Command("readelf", "-lSW", mod).CombinedOutput(); err != nil || bytes.Contains(out, []byte("Warning")) {
		t.Fatalf("readelf: %v\n%s", err, out)
	}
	nb, ns, err := elffile.LoadDistilledBTF(mod)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for id := btf.TypeID(1); id < nb.NextID(); id++ {
		if nb.Name(id) == "point" {
			found = nb.Kind(id) == btf.KindStruct && nb.Type(id).Vlen() == 0 && nb.Type(id).Size() == 24
		}
	}
	if !found {
		var b bytes.Buffer
		nb.Dump(&b)
		t.Errorf("distilled base has no member-less STRUCT 'point' size 24:\n%s", b.String())
	}
	if err := ns.Validate(); err != nil {
		t.Errorf(".BTF over .BTF.base: %v", err)
	}
	var out bytes.Buffer
	if code := dump([]string{"--validate", mod}, &out); code != 0 || !bytes.Contains(out.Bytes(), []byte("STRUCT 'mod_state'")) {
		t.Errorf("dump of a module with .BTF.base: exit %d\n%s", code, out.String())
	}

	again := filepath.Join(dir, "again.o")
	copyFile(t, mod, again)
	if code := runEncode("", []string{"-J", "-q", feats, "--btf_base", baseBTF, again}); code != 0 {
		t.Fatalf("-J distilled on its own output: exit %d", code)
	}
	if a, b := readFile(t, mod), readFile(t, again); !bytes.Equal(a, b) {
		t.Errorf("a second run changed the file (%d -> %d bytes)", len(a), len(b))
	}
	if code := runDiff([]string{"-q", mod, again}); code != 0 {
		t.Errorf("diff of two distilled modules: exit %d, want 0", code)
	}

	if code := runEncode("", []string{"-J", "-q", "--btf_base", baseBTF, plain}); code != 0 {
		t.Fatalf("-J plain: exit %d", code)
	}
	// Over the full base each is relocated from its .BTF.base (btf.Relocate).
	if code := runDiff([]string{"-q", "--base", baseBTF, mod, again}); code != 0 {
		t.Errorf("diff --base of two distilled modules: exit %d, want 0", code)
	}
	if code := runDiff([]string{"-q", "--base", baseBTF, mod, plain}); code != 2 {
		t.Errorf("diff --base of a distilled module and a plain one: exit %d, want 2", code)
	}
	if code := runDiff([]string{"-q", mod, plain}); code != 1 {
		t.Errorf("diff of a distilled module and a plain one: exit %d, want 1", code)
	}

	det := filepath.Join(dir, "mod.btf")
	if code := runEncode("", []string{"-q", feats, "--btf_base", baseBTF, "--btf_encode_detached", det, plain}); code != 0 {
		t.Fatalf("detached: exit %d", code)
	}
	if _, err := elffile.LoadBTF(det, mustLoad(t, baseBTF)); err != nil {
		t.Errorf("detached output is not split BTF over the full base: %v", err)
	}

	if code := runEncode("", []string{"-J", "-q", feats, plain}); code != 2 {
		t.Errorf("distilled_base without --btf_base: exit %d, want 2", code)
	}
	ef, err := elf.Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	if ef.Section(".BTF.base") != nil {
		t.Error("a refused run wrote .BTF.base")
	}
	ef.Close()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.WriteFile(to, readFile(t, from), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustLoad(t *testing.T, path string) *btf.Spec {
	t.Helper()
	s, err := elffile.LoadBTF(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestModuleGCPercent: an encode over a base (a module's) runs with
// stream.ModuleGCPercent, unless GOGC is set in the environment.
func TestModuleGCPercent(t *testing.T) {
	dir := t.TempDir()
	base := gccObject(t, dir, "vmlinux", fixtureC)
	baseBTF := filepath.Join(dir, "vmlinux.btf")
	mod := gccObject(t, dir, "mod", moduleC)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "") // restored after the test
	for _, c := range []struct {
		name string
		args []string
		env  string // GOGC, "" for unset
		want int
	}{
		{"vmlinux", []string{"-q", "--btf_encode_detached", baseBTF, base}, "", 100},
		{"module", []string{"-q", "--btf_base", baseBTF, "--btf_encode_detached", filepath.Join(dir, "m.btf"), mod}, "", stream.ModuleGCPercent},
		{"module with GOGC", []string{"-q", "--btf_base", baseBTF, "--btf_encode_detached", filepath.Join(dir, "m.btf"), mod}, "100", 100},
	} {
		if c.env != "" {
			os.Setenv("GOGC", c.env)
		} else {
			os.Unsetenv("GOGC")
		}
		debug.SetGCPercent(100)
		if code := runEncode("", c.args); code != 0 {
			t.Fatalf("%s: exit %d", c.name, code)
		}
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("%s: GC percent %d, want %d", c.name, got, c.want)
		}
	}
}
