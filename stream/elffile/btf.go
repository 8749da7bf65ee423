package elffile

import (
	"io"

	"github.com/btfstream/btfstream/btf"
)

// ReadBTF returns the raw BTF of a file: the .BTF section of an ELF file
// (inflated if compressed; an error wrapping btf.ErrNoBTF if it has none),
// or, for any other file, the raw BTF it holds (btf.ReadRaw). Only the
// headers and the BTF itself are read. Errors are *Error naming the file.
func ReadBTF(name string, r io.ReaderAt, size int64) ([]byte, error) {
	var magic [4]byte
	if n, _ := r.ReadAt(magic[:], 0); n < 4 || string(magic[:]) != "\x7fELF" {
		if n < 2 || string(magic[:2]) != "\x9f\xeb" && string(magic[:2]) != "\xeb\x9f" {
			return nil, notBTF(name, r)
		}
		raw, err := btf.ReadRaw(r)
		if err != nil {
			return nil, &Error{File: name, Err: err}
		}
		return raw, nil
	}
	f, err := New(name, r, size, Options{CacheBytes: -1})
	if err != nil {
		return nil, err
	}
	s, ok := f.Section(".BTF")
	if !ok {
		return nil, &Error{File: name, Msg: "no .BTF section", Err: btf.ErrNoBTF}
	}
	if s.Type == SHTNobits {
		return nil, &Error{File: name, Section: ".BTF", Msg: "section has no data (SHT_NOBITS)", Err: ErrFormat}
	}
	return f.ReadSectionRaw(s)
}

// LoadBTF parses the BTF of the file at path (an ELF file's .BTF section,
// or raw BTF). With a base, the BTF is split BTF on top of it. Errors are
// *Error naming path and wrap the cause (a *btf.FormatError, btf.ErrNoBTF,
// an I/O error).
func LoadBTF(path string, base *btf.Spec) (*btf.Spec, error) {
	raw, err := readBTFFile(path)
	if err != nil {
		return nil, err
	}
	s, err := btf.Parse(raw, base)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	// raw is parsed: only its strings are read from now on. A vmlinux's
	// .BTF (a module's base) is 2 MB of strings after 2.8 MB of types.
	s.Strings().Own()
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

func readBTFFile(path string) ([]byte, error) {
	f, st, err := OpenInput(path, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadBTF(path, f, st.Size())
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
