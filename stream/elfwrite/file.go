package elfwrite

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/btfstream/btfstream/stream/elffile"
)

// WriteSection puts data into section name (".BTF") of the ELF file at
// path, replacing the section or adding it, like `pahole -J`. The file is
// rewritten atomically: a temporary file in the same directory is filled by
// copying the input range by range, synced and renamed over path, with
// path's permission bits. On any error path is untouched and the temporary
// file removed. A symbolic link is followed and its target replaced; hard
// links to the old file keep the old contents.
func WriteSection(path, name string, data []byte) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return &elffile.Error{File: path, Err: err}
	}
	f, st, e, err := openELFLayout(path, real)
	if err != nil {
		return err
	}
	defer f.Close()
	plan, err := e.planSection(name, data)
	if err != nil {
		return err
	}
	return replaceFile(real, path, st.Mode(), func(w *os.File) error { return plan.write(w, f) })
}

// Check reads the ELF, program and section headers and the section
// name table of the file at path, which WriteSection needs, and reports
// the first problem (truncation, a section past the end of the file, ...)
// as an *Error naming the file, the section and the offset. Call it before
// a long encoding to fail early.
func Check(path string) error {
	f, _, _, err := openELFLayout(path, path)
	if err == nil {
		f.Close()
	}
	return err
}

// openELFLayout opens the regular file real (path is the name errors use)
// and reads its ELF layout. On success the caller closes the file.
func openELFLayout(path, real string) (*os.File, os.FileInfo, *layout, error) {
	f, err := os.Open(real)
	if err != nil {
		return nil, nil, nil, &elffile.Error{File: path, Err: err}
	}
	var e *layout
	st, err := f.Stat()
	switch {
	case err != nil:
		err = &elffile.Error{File: path, Err: err}
	case !st.Mode().IsRegular():
		err = &elffile.Error{File: path, Msg: "not a regular file", Err: elffile.ErrFormat}
	default:
		e, err = readLayout(path, f, st.Size())
	}
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return f, st, e, nil
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, synced and renamed over path, so readers see the old or the new
// file, never a part. An existing file's permission bits are kept; a new
// file gets 0666 less the umask. A path that exists and is not a regular
// file (/dev/null, a pipe) is written directly.
func WriteFileAtomic(path string, data []byte) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return &elffile.Error{File: path, Err: err}
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return &elffile.Error{File: path, Err: err}
		}
		if err := f.Close(); err != nil {
			return &elffile.Error{File: path, Err: err}
		}
		return nil
	case err == nil:
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return &elffile.Error{File: path, Err: err}
		}
		return replaceFile(real, path, st.Mode(), func(w *os.File) error { return writeAll(w, path, data) })
	case errors.Is(err, os.ErrNotExist):
		return replaceFile(path, path, 0, func(w *os.File) error { return writeAll(w, path, data) })
	}
	return &elffile.Error{File: path, Err: err}
}

func writeAll(w *os.File, name string, data []byte) error {
	if _, err := w.Write(data); err != nil {
		return &elffile.Error{File: name, Msg: fmt.Sprintf("writing %d bytes", len(data)), Err: err}
	}
	return nil
}

// replaceFile creates a temporary file next to real, lets fill write it,
// then syncs it, sets mode (unless 0) and renames it to real. name is the
// path to print in errors.
func replaceFile(real, name string, mode os.FileMode, fill func(*os.File) error) (err error) {
	dir := filepath.Dir(real)
	tmp, err := createTemp(dir, filepath.Base(real))
	if err != nil {
		return &elffile.Error{File: name, Msg: "creating a temporary file in " + dir, Err: err}
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := fill(tmp); err != nil {
		return err
	}
	if mode != 0 {
		if err := tmp.Chmod(mode & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)); err != nil {
			return &elffile.Error{File: tmp.Name(), Err: err}
		}
	}
	if err := tmp.Sync(); err != nil {
		return &elffile.Error{File: tmp.Name(), Msg: "sync", Err: err}
	}
	if err := tmp.Close(); err != nil {
		return &elffile.Error{File: tmp.Name(), Msg: "close", Err: err}
	}
	if err := os.Rename(tmp.Name(), real); err != nil {
		return &elffile.Error{File: name, Err: err}
	}
	// Make the rename durable; a failure here leaves a complete file.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// createTemp creates a new file ".BASE.btfstream-RANDOM" in dir with mode
// 0666 less the umask.
func createTemp(dir, base string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, fmt.Sprintf(".%s.btfstream-%08x", base, rand.Uint32()))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil || !errors.Is(err, os.ErrExist) || try == 100 {
			return f, err
		}
	}
}

// write builds the output in w: the input's [0, cut), then the pieces.
func (p *elfPlan) write(w *os.File, r io.ReaderAt) error {
	var src io.Reader = io.NewSectionReader(r, 0, int64(p.cut))
	if f, ok := r.(*os.File); ok {
		// A LimitedReader over an *os.File lets the kernel copy
		// (copy_file_range) instead of going through user space.
		if _, err := f.Seek(0, io.SeekStart); err == nil {
			src = &io.LimitedReader{R: f, N: int64(p.cut)}
		}
	}
	n, err := io.Copy(w, src)
	if err == nil && uint64(n) != p.cut {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return &elffile.Error{File: w.Name(), Msg: fmt.Sprintf("copying %#x bytes of the input (%d done)", p.cut, n), Err: err}
	}
	var zeros []byte
	for _, pc := range p.pieces {
		data := pc.data
		off := pc.off
		for left := pc.zeros; left > 0; {
			if zeros == nil {
				zeros = make([]byte, 64<<10)
			}
			k := min(left, uint64(len(zeros)))
			if _, err := w.WriteAt(zeros[:k], int64(off)); err != nil {
				return &elffile.Error{File: w.Name(), Msg: fmt.Sprintf("write at offset %#x", off), Err: err}
			}
			off += k
			left -= k
		}
		if len(data) > 0 {
			if _, err := w.WriteAt(data, int64(off)); err != nil {
				return &elffile.Error{File: w.Name(), Msg: fmt.Sprintf("write of %d bytes at offset %#x", len(data), off), Err: err}
			}
		}
	}
	if err := w.Truncate(int64(p.size)); err != nil {
		return &elffile.Error{File: w.Name(), Msg: "truncate", Err: err}
	}
	return nil
}
