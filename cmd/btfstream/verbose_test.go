package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerboseVariables: -V names each variable left out for a reason the
// user may want to know, with the input file, section and DIE offset;
// without -V nothing is said. The output is the same either way.
func TestVerboseVariables(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatalf("gcc is needed: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "vars.c")
	os.WriteFile(src, []byte("struct empty { };\nstruct empty empty_var;\nint kept_var = 1;\n"), 0o644)
	obj := filepath.Join(dir, "vars.o")
	if out, err := exec.Command("gcc", "-g", "-c", "-o", obj, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	encode := func(verbose bool) (string, []byte) {
		out := filepath.Join(dir, "vars.btf")
		args := []string{"-J", "--btf_features=encode_force,var,global_var", "--btf_encode_detached", out, obj}
		if verbose {
			args = append([]string{"-V"}, args...)
		}
		code, _, errOut := runCaptured(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return errOut, b
	}
	quiet, want := encode(false)
	if strings.Contains(quiet, "skipped") {
		t.Errorf("without -V: %q", quiet)
	}
	loud, got := encode(true)
	line := obj + `: .debug_info+0x`
	if !strings.Contains(loud, line) || !strings.Contains(loud, `variable "empty_var" skipped: size 0`) {
		t.Errorf("-V says %q; want a line with %q and empty_var's size", loud, line)
	}
	if strings.Contains(loud, "kept_var") {
		t.Errorf("-V names a variable that was encoded: %q", loud)
	}
	if string(got) != string(want) {
		t.Error("-V changed the output")
	}
}
