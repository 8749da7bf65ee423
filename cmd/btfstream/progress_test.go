package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := newProgressLine(&b, "vmlinux")
	p.Update(1, 3, 1<<20)
	p.Update(2, 3, 2<<20) // within the interval: not drawn
	p.Update(3, 3, 3<<20) // the last unit is always drawn
	p.done()
	got := b.String()
	if n := strings.Count(got, "\r"); n != 3 {
		t.Errorf("%d redraws in %q, want 2 and the erase", n, got)
	}
	if !strings.Contains(got, "btfstream: vmlinux: 1/3 units, 1.0 MiB read, ") || !strings.Contains(got, "3/3 units, 3.0 MiB read") {
		t.Errorf("got %q", got)
	}
	if !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("not erased at the end: %q", got)
	}
}

// No progress line when stderr is not a terminal (kbuild's logs), none
// with -q, always with --progress=always.
func TestWantProgress(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	if isTerminal(int(f.Fd())) || isTerminal(int(null.Fd())) {
		t.Error("a file or /dev/null taken for a terminal")
	}
	if wantProgress("always", true) || wantProgress("never", false) || !wantProgress("always", false) {
		t.Error("--progress / -q not honoured")
	}
}
