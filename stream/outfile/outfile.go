package outfile

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
)

// noUnnamed makes Create and Temp use named files, as on systems without
// O_TMPFILE (tests).
var noUnnamed bool

// ErrInterrupted is returned by Commit and Create after Cleanup.
var ErrInterrupted = errors.New("interrupted: output not written")

// File is an output file being written; see the package doc.
type File struct {
	f     *os.File
	path  string      // the user's path: what errors name
	real  string      // path with symbolic links resolved: what Commit replaces
	tmp   string      // named temporary file, "" when unnamed or direct
	mode  os.FileMode // permission bits to set on Commit (0: keep)
	dirct bool        // writing the path itself (not a regular file: /dev/null, a pipe)
	done  bool
}

// registry holds the named temporary files alive now, for Cleanup. Its
// lock also covers Commit's link-and-rename, so Cleanup never runs in the
// middle of one.
var registry struct {
	sync.Mutex
	names  map[string]struct{}
	closed bool
}

func register(name string) error {
	registry.Lock()
	defer registry.Unlock()
	if registry.closed {
		return ErrInterrupted
	}
	if registry.names == nil {
		registry.names = map[string]struct{}{}
	}
	registry.names[name] = struct{}{}
	return nil
}

func unregister(name string) {
	registry.Lock()
	delete(registry.names, name)
	registry.Unlock()
}

// Cleanup removes every named temporary file of this package and makes
// later Creates and Commits fail with ErrInterrupted. It waits for a Commit
// that is linking or renaming. Call it from a signal handler before exiting.
func Cleanup() {
	registry.Lock()
	defer registry.Unlock()
	registry.closed = true
	for n := range registry.names {
		os.Remove(n)
	}
	registry.names = nil
}

// Create starts the output file path. An existing regular file keeps its
// permission bits (and is replaced, not written, so hard links to it keep
// the old contents); a symbolic link is followed and its target replaced; a
// new file gets 0666 less the umask. An existing path that is not a regular
// file (/dev/null, a pipe) is written directly.
func Create(path string) (*File, error) {
	real, mode := path, os.FileMode(0)
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, pathErr(path, err)
		}
		return &File{f: f, path: path, real: path, dirct: true}, nil
	case err == nil:
		if real, err = filepath.EvalSymlinks(path); err != nil {
			return nil, pathErr(path, err)
		}
		mode = st.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
	case !errors.Is(err, os.ErrNotExist):
		return nil, pathErr(path, err)
	}
	o := &File{path: path, real: real, mode: mode}
	dir := filepath.Dir(real)
	if !noUnnamed {
		if o.f, err = openUnnamed(dir, 0o666); err == nil {
			return o, nil
		}
	}
	if o.f, o.tmp, err = createNamed(dir, filepath.Base(real)); err != nil {
		return nil, &os.PathError{Op: "create a temporary file in " + dir + " for", Path: path, Err: unwrapPath(err)}
	}
	return o, nil
}

// createNamed creates ".BASE.btfstream-RANDOM" in dir, registered for
// Cleanup.
func createNamed(dir, base string) (*os.File, string, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, fmt.Sprintf(".%s.btfstream-%08x", base, rand.Uint32()))
		if err := register(name); err != nil {
			return nil, "", err
		}
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, name, nil
		}
		unregister(name)
		if !errors.Is(err, os.ErrExist) || try == 100 {
			return nil, "", err
		}
	}
}

// Name returns the user's path (errors and messages use it).
func (o *File) Name() string { return o.path }

// Write, WriteAt, ReadFrom, Truncate and Sync work on the file being
// written; their errors name the user's path.
func (o *File) Write(b []byte) (int, error) {
	n, err := o.f.Write(b)
	return n, o.err(err)
}

func (o *File) WriteAt(b []byte, off int64) (int, error) {
	n, err := o.f.WriteAt(b, off)
	return n, o.err(err)
}

// ReadFrom copies r to the file; from an *os.File (or an io.LimitedReader
// of one) the kernel copies (copy_file_range) without user space.
func (o *File) ReadFrom(r io.Reader) (int64, error) {
	n, err := o.f.ReadFrom(r)
	return n, o.err(err)
}

func (o *File) Truncate(size int64) error { return o.err(o.f.Truncate(size)) }

// Commit makes the written file appear at its path: it sets the mode,
// syncs, links or renames it into place and syncs the directory. After an
// error the path is unchanged and nothing is left beside it.
func (o *File) Commit() (err error) {
	if o.done {
		return pathErr(o.path, os.ErrClosed)
	}
	defer func() {
		if err != nil {
			o.Abort()
		}
	}()
	if o.dirct {
		o.done = true
		return o.err(o.f.Close())
	}
	if o.mode != 0 {
		if err := o.f.Chmod(o.mode); err != nil {
			return o.err(err)
		}
	}
	if err := o.f.Sync(); err != nil {
		return o.err(err)
	}
	registry.Lock()
	if registry.closed {
		registry.Unlock()
		return pathErr(o.path, ErrInterrupted)
	}
	if o.tmp == "" {
		err = o.linkUnnamed()
	} else if err = os.Rename(o.tmp, o.real); err == nil {
		delete(registry.names, o.tmp)
		o.tmp = ""
	}
	registry.Unlock()
	if err != nil {
		return pathErr(o.path, unwrapPath(err))
	}
	o.done = true
	if err := o.f.Close(); err != nil {
		return o.err(err) // the file is in place and complete
	}
	// Make the rename durable; a failure here leaves a complete file.
	if d, err := os.Open(filepath.Dir(o.real)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// linkUnnamed puts the unnamed file at o.real: linked there directly when
// the name is free, else linked at a temporary name and renamed over it.
// The caller holds the registry lock.
func (o *File) linkUnnamed() error {
	err := linkFD(o.f, o.real)
	if err == nil || !errors.Is(err, os.ErrExist) {
		return err
	}
	dir, base := filepath.Dir(o.real), filepath.Base(o.real)
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.btfstream-%08x", base, rand.Uint32()))
		err = linkFD(o.f, tmp)
		if err == nil {
			if err = os.Rename(tmp, o.real); err != nil {
				os.Remove(tmp)
			}
			return err
		}
		if !errors.Is(err, os.ErrExist) || try == 100 {
			return err
		}
	}
}

// Abort discards the file: the path is unchanged and the temporary file
// gone. It is safe to call after Commit (it does nothing then).
func (o *File) Abort() {
	if o.done {
		return
	}
	o.done = true
	o.f.Close()
	if o.tmp != "" {
		os.Remove(o.tmp)
		unregister(o.tmp)
	}
}

// WriteFile writes data to path through a File: readers see the old file
// or all of data.
func WriteFile(path string, data []byte) error { return WriteFileIf(path, data, nil) }

// WriteFileIf is WriteFile that, once data is written, calls ok (if not
// nil) before it commits: an error from ok aborts the file (path is left
// as it was) and is returned as it is. The caller can thus check the data
// while it is being written.
func WriteFileIf(path string, data []byte, ok func() error) error {
	o, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := o.Write(data); err != nil {
		o.Abort()
		return fmt.Errorf("writing %d bytes: %w", len(data), err)
	}
	if ok != nil {
		if err := ok(); err != nil {
			o.Abort()
			return err
		}
	}
	return o.Commit()
}

// Temp returns a temporary file in dir ("": os.TempDir) that has no name:
// unnamed (O_TMPFILE) where possible, else created and unlinked at once
// (registered for Cleanup in between). It vanishes when closed or when the
// process ends, however it ends.
func Temp(dir, pattern string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if !noUnnamed {
		if f, err := openUnnamed(dir, 0o600); err == nil {
			return f, nil
		}
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.closed {
		return nil, ErrInterrupted
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// err rewrites an *os.PathError about the temporary file to name the
// user's path.
func (o *File) err(err error) error {
	if err == nil {
		return nil
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return &os.PathError{Op: pe.Op, Path: o.path, Err: pe.Err}
	}
	return pathErr(o.path, err)
}

func pathErr(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return &os.PathError{Op: "write", Path: path, Err: unwrapPath(err)}
}

// unwrapPath strips *os.PathError and *os.LinkError, whose names may be
// temporary ones.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Check reports early whether path can be written with about need bytes:
// its directory exists and is one, a file can be created in it, and its
// file system has need bytes free. Call it before a long run so that a
// missing or read-only directory or a full disk is reported at once. An
// existing path that is not a regular file (/dev/null) passes.
func Check(path string, need int64) error {
	real := path
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return nil
		}
		if real, err = filepath.EvalSymlinks(path); err != nil {
			return pathErr(path, err)
		}
	}
	dir := filepath.Dir(real)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("%s: directory %s: %w", path, dir, unwrapPath(err))
	case !st.IsDir():
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	probe, err := Temp(dir, ".btfstream-probe-*")
	if err != nil {
		return fmt.Errorf("%s: cannot create files in %s: %w", path, dir, unwrapPath(err))
	}
	probe.Close()
	if free, err := FreeSpace(dir); err == nil && free < need {
		return fmt.Errorf("%s: %s free in %s, about %s needed", path, mib(free), dir, mib(need))
	}
	return nil
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// SetNamedForTest makes Create and Temp use named files, as where O_TMPFILE
// is missing. For tests of other packages (signal handling); not for use.
func SetNamedForTest() { noUnnamed = true }
