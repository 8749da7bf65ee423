package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return n
}

// modes runs f once with unnamed files (where the system has them) and
// once with named ones.
func modes(t *testing.T, f func(t *testing.T, named bool)) {
	for _, named := range []bool{false, true} {
		name := "unnamed"
		if named {
			name = "named"
		}
		t.Run(name, func(t *testing.T) {
			defer func(old bool) { noUnnamed = old }(noUnnamed)
			noUnnamed = named
			if !named && runtime.GOOS != "linux" {
				t.Skip("O_TMPFILE is Linux only")
			}
			f(t, named)
		})
	}
}

func TestWriteReplace(t *testing.T) {
	modes(t, func(t *testing.T, named bool) {
		dir := t.TempDir()
		p := filepath.Join(dir, "out.btf")
		o, err := Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		// While it is written: nothing at the path; a named file beside it
		// only in the fallback mode.
		got := names(t, dir)
		if named && (len(got) != 1 || !strings.HasPrefix(got[0], ".out.btf.btfstream-")) || !named && len(got) != 0 {
			t.Errorf("while writing, %s holds %q", dir, got)
		}
		if err := o.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != "hello" {
			t.Errorf("got %q", b)
		}
		if got := names(t, dir); len(got) != 1 {
			t.Errorf("after Commit, %s holds %q", dir, got)
		}

		// Replace: the mode stays, a hard link keeps the old contents, a
		// symbolic link's target is replaced.
		os.Chmod(p, 0o640)
		old := filepath.Join(dir, "old")
		os.Link(p, old)
		sym := filepath.Join(dir, "sym")
		os.Symlink("out.btf", sym)
		if err := WriteFile(sym, []byte("second")); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != "second" {
			t.Errorf("target: %q", b)
		}
		if b, _ := os.ReadFile(old); string(b) != "hello" {
			t.Errorf("hard link: %q", b)
		}
		if fi, _ := os.Lstat(sym); fi.Mode()&os.ModeSymlink == 0 {
			t.Error("symbolic link replaced by a file")
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want 0640", fi.Mode().Perm())
		}
		if got := names(t, dir); strings.Join(got, " ") != "old out.btf sym" {
			t.Errorf("left: %q", got)
		}
	})
}

func TestAbortAndCleanup(t *testing.T) {
	modes(t, func(t *testing.T, named bool) {
		dir := t.TempDir()
		p := filepath.Join(dir, "in.ko")
		os.WriteFile(p, []byte("input"), 0o644)
		o, err := Create(p)
		if err != nil {
			t.Fatal(err)
		}
		o.Write([]byte("partial"))
		o.Abort()
		o.Abort() // twice is harmless
		if b, _ := os.ReadFile(p); string(b) != "input" {
			t.Errorf("Abort changed the path: %q", b)
		}
		if got := names(t, dir); len(got) != 1 {
			t.Errorf("after Abort: %q", got)
		}
		if err := o.Commit(); err == nil {
			t.Error("Commit after Abort succeeded")
		}

		// Cleanup (a signal) while a file is being written: the temporary
		// file goes, the path stays, Commit and Create fail.
		o, err = Create(p)
		if err != nil {
			t.Fatal(err)
		}
		o.Write([]byte("partial"))
		Cleanup()
		defer func() { registry.Lock(); registry.closed = false; registry.Unlock() }()
		if got := names(t, dir); len(got) != 1 {
			t.Errorf("after Cleanup: %q", got)
		}
		if err := o.Commit(); !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), p) {
			t.Errorf("Commit after Cleanup: %v", err)
		}
		if b, _ := os.ReadFile(p); string(b) != "input" {
			t.Errorf("Cleanup changed the path: %q", b)
		}
		if got := names(t, dir); len(got) != 1 {
			t.Errorf("after the failed Commit: %q", got)
		}
		if named {
			if _, err := Create(p); !errors.Is(err, ErrInterrupted) {
				t.Errorf("Create after Cleanup: %v", err)
			}
		}
	})
}

// Errors name the user's path, never a temporary name or /proc/self/fd.
func TestErrorsNamePath(t *testing.T) {
	modes(t, func(t *testing.T, named bool) {
		dir := t.TempDir()
		missing := filepath.Join(dir, "no", "such", "out.btf")
		_, err := Create(missing)
		if err == nil || !strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), "btfstream-") {
			t.Errorf("Create in a missing directory: %v", err)
		}
		p := filepath.Join(dir, "out.btf")
		o, err := Create(p)
		if err != nil {
			t.Fatal(err)
		}
		o.f.Close() // make the next write fail
		_, err = o.WriteAt([]byte("x"), 0)
		if err == nil || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "btfstream-") || strings.Contains(err.Error(), "/proc") {
			t.Errorf("write error: %v", err)
		}
		if err := o.Truncate(10); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("truncate error: %v", err)
		}
		o.Abort()
		if got := names(t, dir); len(got) != 0 {
			t.Errorf("left: %q", got)
		}
	})
}

// A path that is not a regular file is written directly.
func TestNotRegular(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("x")); err != nil {
		t.Fatal(err)
	}
}

func TestTemp(t *testing.T) {
	modes(t, func(t *testing.T, named bool) {
		dir := t.TempDir()
		f, err := Temp(dir, "spill-*")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte("data"), 100); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 4)
		if _, err := f.ReadAt(b, 100); err != nil || string(b) != "data" {
			t.Errorf("read back %q, %v", b, err)
		}
		if got := names(t, dir); len(got) != 0 {
			t.Errorf("a temp file has a name: %q", got)
		}
	})
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if err := Check(filepath.Join(dir, "new.btf"), 1<<20); err != nil {
		t.Errorf("writable directory: %v", err)
	}
	if err := Check(file, 0); err != nil {
		t.Errorf("existing file: %v", err)
	}
	if err := Check(os.DevNull, 1<<62); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	for _, c := range []struct {
		path string
		need int64
		want string
	}{
		{filepath.Join(dir, "missing", "out.btf"), 0, "no such file or directory"},
		{filepath.Join(file, "out.btf"), 0, "is not a directory"},
		{filepath.Join(dir, "big.btf"), 1 << 62, "needed"},
	} {
		err := Check(c.path, c.need)
		if runtime.GOOS != "linux" && c.need > 0 {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.path+": ") {
			t.Errorf("Check(%s): %v, want an error starting with the path, containing %q", c.path, err, c.want)
		}
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o500)
		if err := Check(filepath.Join(ro, "out"), 0); !errors.Is(err, syscall.EACCES) && (err == nil || !strings.Contains(err.Error(), "cannot create files")) {
			t.Errorf("read-only directory: %v", err)
		}
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("Check left %q", got)
	}
}

// TestWriteFileIf: the check runs once the data is written, before the
// commit; its error leaves the path as it was, nothing beside it, and is
// returned as it is; a nil check or one that passes commits.
func TestWriteFileIf(t *testing.T) {
	modes(t, func(t *testing.T, named bool) {
		dir := t.TempDir()
		p := filepath.Join(dir, "out.btf")
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		bad := errors.New("invalid output")
		for _, c := range []struct {
			name string
			ok   func() error
			want string
			err  error
		}{
			{"refused", func() error { return bad }, "old", bad},
			{"nil", nil, "nil", nil},
			{"passed", func() error { return nil }, "passed", nil},
		} {
			calls := 0
			ok := c.ok
			if ok != nil {
				ok = func() error {
					calls++
					if got := names(t, dir); !named && strings.Join(got, " ") != "out.btf" {
						t.Errorf("%s: while checking, %s holds %q", c.name, dir, got)
					}
					return c.ok()
				}
			}
			if err := WriteFileIf(p, []byte(c.name), ok); err != c.err {
				t.Errorf("%s: err %v, want %v", c.name, err, c.err)
			}
			if b, _ := os.ReadFile(p); string(b) != c.want {
				t.Errorf("%s: file holds %q, want %q", c.name, b, c.want)
			}
			if c.ok != nil && calls != 1 {
				t.Errorf("%s: check called %d times", c.name, calls)
			}
			if got := names(t, dir); strings.Join(got, " ") != "out.btf" {
				t.Errorf("%s: left %q", c.name, got)
			}
		}
	})
}
