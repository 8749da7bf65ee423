package main

import (
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
