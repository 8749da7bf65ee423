package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/dedup"
)

// referencePahole finds pahole 1.31: $BTFSTREAM_PAHOLE, else
// shared/reference/pahole-1.31/pahole in a directory above this one (the
// repository sits beside shared/). Missing, it fails under CI=true and
// skips otherwise.
func referencePahole(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("BTFSTREAM_PAHOLE"); p != "" {
		return p
	}
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "shared", "reference", "pahole-1.31", "pahole")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("the reference pahole 1.31 is missing (shared/reference/pahole-1.31/pahole)")
	}
	t.Skip("no reference pahole 1.31 (set BTFSTREAM_PAHOLE)")
	return ""
}

// TestKbuildSpellingsVsPahole runs every kbuildCase through btfstream and
// through pahole 1.31 on two small objects (point.o from gcc; tagged.o from
// clang, with type and decl tags, a per-CPU variable, a 64-bit enum;
// modules: over point.btf) and requires the same type graph: a command line with a
// feature flag means what pahole makes of it, one without means kbuild
// 6.12's set (pahole run with that set).
func TestKbuildSpellingsVsPahole(t *testing.T) {
	pahole := referencePahole(t)
	base, _ := filepath.Abs(filepath.Join("testdata", "corrupt", "point.btf"))
	dir := t.TempDir()
	i := 0
	for _, c := range kbuildCases() {
		for _, o := range []string{"point.o", "tagged.o"} {
			i++
			t.Run(c.name+"/"+o, func(t *testing.T) { kbuildVsPahole(t, pahole, c, o, base, filepath.Join(dir, strconv.Itoa(i))) })
		}
	}
}

func kbuildVsPahole(t *testing.T, pahole string, c kbuildCase, o, base, dir string) {
	obj, _ := filepath.Abs(filepath.Join("testdata", "corrupt", o))
	args := strings.Fields(c.cmd)
	f, _ := parseEncode(t, args...)
	args = args[:len(args)-1]
	var ours, ref []string
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case strings.HasPrefix(strings.ReplaceAll(a, "-", "_"), "__btf_encode_detached"):
			if !strings.Contains(a, "=") {
				j++
			}
			continue
		case a == "--btf_base":
			j++
			ours = append(ours, a, base)
			ref = append(ref, a, base)
			continue
		}
		ours = append(ours, a)
		ref = append(ref, a)
	}
	if !f.explicit {
		ref = []string{"-J", "--btf_features=" + kbuildSet.String(), "--lang_exclude=rust"}
		if c.base != "" {
			ref = append(ref, "--btf_base", base)
		}
	}
	outOurs, outRef := filepath.Join(dir, "ours.btf"), filepath.Join(dir, "ref.btf")
	os.MkdirAll(dir, 0o755)
	if code, _, errOut := runCaptured(append(ours, "-q", "--btf_encode_detached", outOurs, obj)...); code != 0 {
		t.Fatalf("btfstream %q: exit %d: %s", ours, code, errOut)
	}
	if out, err := exec.Command(pahole, append(ref, "--btf_encode_detached", outRef, obj)...).CombinedOutput(); err != nil {
		t.Fatalf("pahole %q: %v\n%s", ref, err, out)
	}
	baseSpec, err := loadBase(map[bool]string{true: base}[c.base != ""])
	if err != nil {
		t.Fatal(err)
	}
	a, errA := loadValid(outOurs, baseSpec)
	b, errB := loadValid(outRef, baseSpec)
	if errA != nil || errB != nil {
		t.Fatalf("loading: %v / %v", errA, errB)
	}
	cmp, err := dedup.Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal() {
		onlyA, onlyB := cmp.Unmatched()
		t.Errorf("btfstream %q and pahole %q differ: %d types only in ours, %d only in pahole's", ours, ref, len(onlyA), len(onlyB))
	}
}
