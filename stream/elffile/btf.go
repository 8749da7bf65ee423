package elffile

import (
	"bytes"
	"io"

	"github.com/btfstream/btfstream/btf"
)

// ReadBTF returns the raw BTF of a file: the .BTF section of an ELF file
// (inflated if compressed; an error wrapping btf.ErrNoBTF if it has none),
// or, for any other file, the raw BTF it holds (btf.ReadRaw). Only the
// headers and the BTF itself are read. Errors are *Error naming the file.
func ReadBTF(name string, r io.ReaderAt, size int64) ([]byte, error) {
	raw, err := findBTF(name, r, size, false, func(r io.ReaderAt) ([]byte, error) { return btf.ReadRaw(r) })
	return raw.data, err
}

// btfBytes is where a file's BTF is: in memory (data), or the size bytes
// at the start of r.
type btfBytes struct {
	data []byte
	r    io.ReaderAt
	size int64
}

// findBTF finds the BTF of a file as ReadBTF says; readRaw reads a file
// that is not ELF. With lazy, an uncompressed .BTF section is not read:
// its reader is returned.
func findBTF(name string, r io.ReaderAt, size int64, lazy bool, readRaw func(io.ReaderAt) ([]byte, error)) (btfBytes, error) {
	var magic [4]byte
	if n, _ := r.ReadAt(magic[:], 0); n < 4 || string(magic[:]) != "\x7fELF" {
		if n < 2 || string(magic[:2]) != "\x9f\xeb" && string(magic[:2]) != "\xeb\x9f" {
			return btfBytes{}, notBTF(name, r)
		}
		raw, err := readRaw(r)
		if err != nil {
			return btfBytes{}, &Error{File: name, Err: err}
		}
		return btfBytes{data: raw}, nil
	}
	f, err := New(name, r, size, Options{CacheBytes: -1})
	if err != nil {
		return btfBytes{}, err
	}
	s, ok := f.Section(".BTF")
	if !ok {
		return btfBytes{}, &Error{File: name, Msg: "no .BTF section", Err: btf.ErrNoBTF}
	}
	if s.Type == SHTNobits {
		return btfBytes{}, &Error{File: name, Section: ".BTF", Msg: "section has no data (SHT_NOBITS)", Err: ErrFormat}
	}
	if lazy && !s.Compressed() {
		// New checked that the section lies inside the file.
		return btfBytes{r: f.SectionReader(s), size: int64(s.Size)}, nil
	}
	raw, err := f.ReadSectionRaw(s)
	if err != nil {
		return btfBytes{}, err
	}
	return btfBytes{data: raw}, nil
}

// LoadBTF parses the BTF of the file at path (an ELF file's .BTF section,
// or raw BTF). With a base, the BTF is split BTF on top of it. Errors are
// *Error naming path and wrap the cause (a *btf.FormatError, btf.ErrNoBTF,
// an I/O error).
//
// The BTF is read without a copy of it (btf.LoadRaw, btf.LoadAt): the
// string section straight into the Spec's buffer, the types through a
// small one. Reading a vmlinux's 5 MB of raw BTF and then copying its 2 MB
// of strings out of it allocated 7 MB, whose garbage a collection could
// find live and pace the rest of a module's encode by.
func LoadBTF(path string, base *btf.Spec) (*btf.Spec, error) {
	return loadBTFVia(path, btfLoaders{
		raw: func(r io.ReaderAt) (*btf.Spec, error) { return btf.LoadRaw(r, base) },
		at:  func(r io.ReaderAt, size int64) (*btf.Spec, error) { return btf.LoadAt(r, size, base) },
		whole: func(data []byte) (*btf.Spec, error) {
			s, err := btf.Parse(data, base)
			if err == nil {
				// Only the strings are read from now on.
				s.Strings().Own()
			}
			return s, err
		},
	})
}

// LoadBaseForProcess is LoadSoundBTF(path, nil) for a base BTF used until
// the process exits (a module encode's --btf_base): its types, strings and
// string index are outside the Go heap (btf.LoadAtForProcess), so they do
// not count toward the collector's goal, and are never freed. Compressed
// .BTF is inflated, then copied there.
func LoadBaseForProcess(path string) (*btf.Spec, error) {
	s, err := loadBTFVia(path, btfLoaders{
		raw: btf.LoadRawForProcess,
		at:  btf.LoadAtForProcess,
		whole: func(data []byte) (*btf.Spec, error) {
			return btf.LoadAtForProcess(bytes.NewReader(data), int64(len(data)))
		},
	})
	if err != nil {
		return nil, err
	}
	if err := s.CheckStructure(); err != nil {
		return nil, &Error{File: path, Err: err}
	}
	return s, nil
}

// btfLoaders load BTF from a file of raw BTF (raw), an uncompressed .BTF
// section in place (at), or a section read whole or inflated (whole).
type btfLoaders struct {
	raw   func(r io.ReaderAt) (*btf.Spec, error)
	at    func(r io.ReaderAt, size int64) (*btf.Spec, error)
	whole func(data []byte) (*btf.Spec, error)
}

// loadBTFVia finds the BTF of the file at path and loads it with the
// loader its form asks for. Errors are *Error naming path.
func loadBTFVia(path string, load btfLoaders) (*btf.Spec, error) {
	f, st, err := OpenInput(path, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A file of raw BTF is loaded through the reader, not read whole.
	var direct *btf.Spec
	raw, err := findBTF(path, f, st.Size(), true, func(r io.ReaderAt) ([]byte, error) {
		s, err := load.raw(r)
		direct = s
		return nil, err
	})
	var s *btf.Spec
	switch {
	case err != nil:
		return nil, err
	case direct != nil:
		s = direct
	case raw.data != nil:
		s, err = load.whole(raw.data)
	default:
		s, err = load.at(raw.r, raw.size)
	}
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	return s, nil
}

// LoadSoundBTF is LoadBTF followed by the format's structural checks
// (btf.Spec.CheckStructure), what every reader of foreign BTF needs: the
// kernel verifier's rules (btf.Spec.Validate) are left to whoever asks.
// A structural error names path, the type id and the byte offset.
func LoadSoundBTF(path string, base *btf.Spec) (*btf.Spec, error) {
	s, err := LoadBTF(path, base)
	if err != nil {
		return nil, err
	}
	if err := s.CheckStructure(); err != nil {
		return nil, &Error{File: path, Err: err}
	}
	return s, nil
}

// ReadNamedSection returns the contents of the section called name of the
// ELF file at path (inflated if compressed, never relocated). The error
// wraps ErrNoSection if the file has no such section.
func ReadNamedSection(path, name string) ([]byte, error) {
	f, err := Open(path, Options{CacheBytes: -1})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, ok := f.Section(name)
	if !ok {
		return nil, &Error{File: path, Msg: "no section " + name, Err: ErrNoSection}
	}
	if s.Type == SHTNobits {
		return nil, &Error{File: path, Section: name, Msg: "section has no data (SHT_NOBITS)", Err: ErrFormat}
	}
	return f.ReadSectionRaw(s)
}
