package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gccObject compiles C source src to DIR/NAME.o with gcc -g -O1 and
// returns its path; without gcc, or when gcc fails, the test is skipped.
func gccObject(t *testing.T, dir, name, src string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	c := filepath.Join(dir, name+".c")
	o := filepath.Join(dir, name+".o")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-g", "-O1", "-c", "-o", o, c).CombinedOutput(); err != nil {
		t.Skipf("gcc: %v\n%s", err, out)
	}
	return o
}
