package elfwrite

import (
	"io"
	"os"
	"path/filepath"

	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/outfile"
)

// Section is one section for WriteSections: its name and contents.
type Section struct {
	Name string
	Data []byte
}

// WriteSections puts several sections into the ELF file at path, in
// order, each as WriteSection would (replaced, or added after the ones
// before it), and replaces the file once: an out-of-tree module gets .BTF
// and .BTF.base together or not at all. Each section after the first is
// planned against the file the previous one produced, an unnamed
// temporary file (outfile.Temp) beside path that vanishes when closed.
func WriteSections(path string, secs ...Section) error { return WriteSectionsIf(path, nil, secs...) }

// WriteSectionsIf is WriteSections that, once the new file is written,
// calls ok (if not nil) before it replaces path: an error from ok drops
// the new file (path is left as it was) and is returned as it is.
func WriteSectionsIf(path string, ok func() error, secs ...Section) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return &elffile.Error{File: path, Err: err}
	}
	f, _, e, err := openELFLayout(path, real)
	if err != nil {
		return err
	}
	defer f.Close()
	var src io.ReaderAt = f
	for i, sec := range secs {
		plan, err := e.planSection(sec.Name, sec.Data)
		if err != nil {
			return err
		}
		if i == len(secs)-1 {
			return commit(path, plan, src, ok)
		}
		tmp, err := outfile.Temp(filepath.Dir(real), ".btfstream-*")
		if err != nil {
			return &elffile.Error{File: path, Msg: "creating a temporary file", Err: ioErr(err)}
		}
		defer tmp.Close()
		if err := plan.write(namedAs{tmp, path}, src); err != nil {
			return err
		}
		// Errors in the intermediate file name the user's file: it is
		// that file with the sections written so far.
		if e, err = readLayout(path, tmp, int64(plan.size)); err != nil {
			return err
		}
		src = tmp
	}
	return nil
}

// commit writes plan over src into an outfile.File and, unless ok (if
// not nil) returns an error, links it at path.
func commit(path string, plan *elfPlan, src io.ReaderAt, ok func() error) error {
	o, err := outfile.Create(path)
	if err != nil {
		return &elffile.Error{File: path, Msg: "creating the output", Err: ioErr(err)}
	}
	if err := plan.write(o, src); err != nil {
		o.Abort()
		return err
	}
	if ok != nil {
		if err := ok(); err != nil {
			o.Abort()
			return err
		}
	}
	if err := o.Commit(); err != nil {
		return &elffile.Error{File: path, Err: ioErr(err)}
	}
	return nil
}

// namedAs is a temporary file that errors call by the user's path.
type namedAs struct {
	*os.File
	name string
}

func (n namedAs) Name() string { return n.name }
