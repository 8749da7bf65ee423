package main

import (
	"github.com/btfstream/btfstream/btf"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runWithin runs the command line like runCaptured and fails the test
// if it has not returned within d (an open that blocks would hang).
func runWithin(t *testing.T, d time.Duration, args ...string) (code int, out, errOut string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		c, o, e := runCaptured(args...)
		done <- result{c, o, e}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(d):
		t.Fatalf("%q still running after %v", args, d)
	}
	return
}

// Inputs that are not regular files are refused at once, naming the file
// and what it is; a FIFO no longer blocks the open (issue 19).
func TestInputNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	src, _ := os.ReadFile(filepath.Join("testdata", "corrupt", "point.o"))
	obj := filepath.Join(dir, "point.o")
	os.WriteFile(obj, src, 0o644)
	out := filepath.Join(dir, "out.btf")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{fifo}, fifo + ": is a FIFO (named pipe), not a regular file"},
		{[]string{"--btf_encode_detached", out, fifo}, fifo + ": is a FIFO (named pipe), not a regular file"},
		{[]string{"--btf_encode_detached", out, "--btf_base", fifo, obj}, fifo + ": is a FIFO (named pipe), not a regular file"},
		{[]string{"--btf_encode_detached", out, dir}, dir + ": is a directory, not a regular file"},
		{[]string{"--btf_encode_detached", out, "/dev/null"}, "/dev/null: is a character device, not a regular file"},
		{[]string{"--mem-floor", fifo}, "is a FIFO"},
		{[]string{"dump", fifo}, "is a FIFO"},
		{[]string{"diff", fifo, obj}, "is a FIFO"},
	} {
		code, _, errOut := runWithin(t, 20*time.Second, c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q; want %q", c.args, code, errOut, c.want)
		}
	}
}

// The free-space check refuses only an output that cannot fit (less room
// than its least size) and warns below the upper bound; the bound is
// never below the real output (issue 19: a 4.5 MiB vmlinux BTF was
// refused on an 8 MiB file system).
func TestOutputSpace(t *testing.T) {
	dir := t.TempDir()
	var objs []string
	for _, name := range []string{"point.o", "tagged.o", "point-btf.o"} {
		src, err := os.ReadFile(filepath.Join("testdata", "corrupt", name))
		if err != nil {
			t.Fatal(err)
		}
		obj := filepath.Join(dir, name)
		os.WriteFile(obj, src, 0o644)
		objs = append(objs, obj)
	}
	defer func(f func(string) (int64, error)) { freeSpace = f }(freeSpace)
	for _, obj := range objs {
		st, _ := os.Stat(obj)
		out := obj + ".btf"
		freeSpace = func(string) (int64, error) { return 1 << 40, nil }
		if code, _, errOut := runCaptured("--btf_encode_detached", out, obj); code != 0 {
			t.Fatalf("%s: exit %d, %s", obj, code, errOut)
		}
		got, _ := os.Stat(out)
		if bound := outputBound(st.Size()); got.Size() > bound || got.Size() < btf.HeaderLen {
			t.Errorf("%s: %d bytes of BTF outside [%d, %d]", obj, got.Size(), btf.HeaderLen, bound)
		}
		for _, c := range []struct {
			free       int64
			code       int
			warn, fail bool
		}{
			{got.Size(), 0, true, false},        // fits exactly, below the bound: a warning
			{btf.HeaderLen - 1, 1, false, true}, // cannot fit
			{outputBound(st.Size()), 0, false, false},
		} {
			freeSpace = func(string) (int64, error) { return c.free, nil }
			code, _, errOut := runCaptured("--btf_encode_detached", out, obj)
			if code != c.code || strings.Contains(errOut, "warning: "+out+": ") != c.warn ||
				strings.Contains(errOut, "the output needs at least") != c.fail {
				t.Errorf("%s with %d bytes free: exit %d, %q", obj, c.free, code, errOut)
			}
		}
		// In place: the output is a copy of the input without its old .BTF.
		freeSpace = func(string) (int64, error) { return st.Size() - oldBTFSize(obj) - 1, nil }
		if code, _, errOut := runCaptured(obj); code != 1 || !strings.Contains(errOut, obj+": ") || !strings.Contains(errOut, "needs at least") {
			t.Errorf("%s in place, one byte short: exit %d, %q", obj, code, errOut)
		}
	}
}

// --btf_base of another kernel: the module's vermagic and the base's
// banner differ, and the encoder warns (and still encodes); the same
// release, a raw BTF base or a module without .modinfo: no warning.
func TestBaseReleaseWarning(t *testing.T) {
	dir := t.TempDir()
	rel := func(name string) string { return filepath.Join("testdata", "release", name) }
	base, raw := rel("base-7.2.0-test.o"), filepath.Join("testdata", "corrupt", "point.btf")
	if got := moduleRelease(rel("mod-6.12.0-test.o")); got != "6.12.0-test" {
		t.Errorf("moduleRelease = %q", got)
	}
	if got := vmlinuxRelease(base); got != "7.2.0-test" {
		t.Errorf("vmlinuxRelease = %q", got)
	}
	for _, c := range []struct {
		mod, base string
		warn      bool
	}{
		{rel("mod-6.12.0-test.o"), base, true},
		{rel("mod-7.2.0-test.o"), base, false},
		{rel("mod-6.12.0-test.o"), raw, false},
		{filepath.Join("testdata", "corrupt", "point.o"), base, false},
	} {
		code, _, errOut := runCaptured("--btf_encode_detached", filepath.Join(dir, "out.btf"), "--btf_base", c.base, c.mod)
		want := "btfstream: warning: " + c.mod + " was built for kernel 6.12.0-test (vermagic), but --btf_base " + c.base + " is kernel 7.2.0-test"
		if code != 0 || strings.Contains(errOut, want) != c.warn || !c.warn && errOut != "" {
			t.Errorf("%s over %s: exit %d, %q; want warning %v", c.mod, c.base, code, errOut, c.warn)
		}
	}
}
