package elfwrite

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/outfile"
)

// WriteSection puts data into section name (".BTF") of the ELF file at
// path, replacing the section or adding it, like `pahole -J`. The file is
// rewritten atomically through an outfile.File: the input is copied range
// by range into an unnamed file in the same directory, the planned pieces
// written, and the result linked over path with path's permission bits
// (outfile). Until then path is not written; on any error, a signal or a
// crash it is untouched and nothing is left beside it. A symbolic link is
// followed and its target replaced; hard links to the old file keep the
// old contents.
func WriteSection(path, name string, data []byte) error {
	return WriteSections(path, Section{Name: name, Data: data})
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
	f, st, err := elffile.OpenInput(real, path)
	if err != nil {
		return nil, nil, nil, err
	}
	e, err := readLayout(path, f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return f, st, e, nil
}

// WriteFileAtomic writes data to path through an outfile.File, so readers
// see the old or the new file, never a part, and nothing is left behind on
// an error, a signal or a crash. An existing file's permission bits are
// kept; a new file gets 0666 less the umask. A path that exists and is not
// a regular file (/dev/null, a pipe) is written directly.
func WriteFileAtomic(path string, data []byte) error {
	if err := outfile.WriteFile(path, data); err != nil {
		return &elffile.Error{File: path, Err: ioErr(err)}
	}
	return nil
}

// output is what write fills: an outfile.File (its Name is the user's
// path; ReadFrom lets the kernel copy the input).
type output interface {
	io.Writer
	io.WriterAt
	Truncate(size int64) error
	Name() string
}

// ioErr strips the *os.PathError around an I/O error: the *elffile.Error
// that carries it names the file already.
func ioErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// write builds the output in w: the input's [0, cut), then the pieces.
func (p *elfPlan) write(w output, r io.ReaderAt) error {
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
		return &elffile.Error{File: w.Name(), Msg: fmt.Sprintf("copying %#x bytes of the input (%d done)", p.cut, n), Err: ioErr(err)}
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
				return &elffile.Error{File: w.Name(), Msg: fmt.Sprintf("write at offset %#x", off), Err: ioErr(err)}
			}
			off += k
			left -= k
		}
		if len(data) > 0 {
			if _, err := w.WriteAt(data, int64(off)); err != nil {
				return &elffile.Error{File: w.Name(), Msg: fmt.Sprintf("write of %d bytes at offset %#x", len(data), off), Err: ioErr(err)}
			}
		}
	}
	if err := w.Truncate(int64(p.size)); err != nil {
		return &elffile.Error{File: w.Name(), Msg: "truncate", Err: ioErr(err)}
	}
	return nil
}
