package stream

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/btfstream/btfstream/arena"
)

// Options configure a File.
type Options struct {
	// CacheBytes bounds the page cache of string and index sections
	// (.debug_str, .debug_line_str, .debug_str_offsets, .debug_addr,
	// .debug_rnglists, .strtab). 0 means 4 MiB.
	CacheBytes int64
	// Name is used in error messages instead of the path's base name.
	Name string
}

// DWARF sections read at random through section readers.
const (
	secAbbrev = iota
	secStr
	secLineStr
	secStrOffsets
	secAddr
	secRnglists
	numSecs
)

var secNames = [numSecs]string{"abbrev", "str", "line_str", "str_offsets", "addr", "rnglists"}

// File is an ELF file opened for streaming DWARF decoding. It is safe for
// concurrent use by the Units pipeline; its exported methods other than
// Units and Close may be called concurrently.
type File struct {
	name   string
	closer io.Closer
	elf    *ELF

	info  *SectionHeader   // .debug_info or .zdebug_info
	types []*SectionHeader // .debug_types sections (there can be several in a .o)

	secOnce [numSecs]sync.Once
	secs    [numSecs]*pagedReader
	secErr  [numSecs]error

	abbrevCache abbrevCache
	strs        strCache // .debug_str strings by offset (strcache.go)
	pool        arena.Pool
}

// Open opens the ELF file at path. The file is read through io.ReaderAt,
// never mapped or read whole.
func Open(path string, opts Options) (*File, error) {
	name := opts.Name
	if name == "" {
		name = filepath.Base(path)
	}
	osf, size, err := openFile(path)
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	f, err := NewFile(name, osf, size, opts)
	if err != nil {
		osf.Close()
		return nil, err
	}
	f.closer = osf
	return f, nil
}

// NewFile reads an ELF file from r, of the given size.
func NewFile(name string, r io.ReaderAt, size int64, opts Options) (*File, error) {
	e, err := NewELF(name, r, size, opts.CacheBytes)
	if err != nil {
		return nil, err
	}
	f := &File{name: name, elf: e}
	f.abbrevCache.max = 64
	for i := range e.Sections {
		s := &e.Sections[i]
		switch s.Name {
		case ".debug_info", ".zdebug_info":
			// A relocatable object can hold several: type units in
			// COMDAT groups (SHF_GROUP) besides the main one.
			if s.Flags&shfGroup == 0 && f.info == nil {
				f.info = s
			} else {
				f.types = append(f.types, s)
			}
		case ".debug_types", ".zdebug_types":
			f.types = append(f.types, s)
		}
	}
	if f.info == nil && len(f.types) > 0 && (f.types[0].Name == ".debug_info" || f.types[0].Name == ".zdebug_info") {
		f.info, f.types = f.types[0], f.types[1:]
	}
	return f, nil
}

// Close releases the file and the page cache.
func (f *File) Close() error {
	f.elf.Close()
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Name returns the name used in error messages.
func (f *File) Name() string { return f.name }

// ByteOrder returns the file's byte order.
func (f *File) ByteOrder() binary.ByteOrder { return f.elf.Order }

// Class64 reports whether the file is ELFCLASS64.
func (f *File) Class64() bool { return f.elf.Class64 }

// Machine returns e_machine; Type returns e_type.
func (f *File) Machine() uint16 { return f.elf.Machine }

// Type returns e_type (1 = ET_REL, 2 = ET_EXEC, 3 = ET_DYN).
func (f *File) Type() uint16 { return f.elf.Type }

// Sections returns every section header, in index order.
func (f *File) Sections() []SectionHeader { return f.elf.Sections }

// Section returns the first section named name.
func (f *File) Section(name string) (*SectionHeader, bool) { return f.elf.Section(name) }

// ReadSection returns the whole uncompressed contents of s (relocated in an
// ET_REL file). Meant for small sections (.BTF_ids, .data..percpu headers);
// stream large ones with SectionReader.
func (f *File) ReadSection(s *SectionHeader) ([]byte, error) {
	b, err := f.elf.loadSection(s)
	return b, fileErr(f.name, err)
}

// SectionReader returns a random-access reader of the section as stored in
// the file (compressed sections are not inflated).
func (f *File) SectionReader(s *SectionHeader) *io.SectionReader {
	return io.NewSectionReader(f.elf.r, int64(s.Offset), int64(s.Size))
}

// sec returns the random-access reader of a DWARF section, or an error
// wrapping ErrNoSection if the file lacks it.
func (f *File) sec(k int) (*pagedReader, error) {
	f.secOnce[k].Do(func() {
		s := f.findDebug(secNames[k])
		if s == nil {
			f.secErr[k] = &DecodeError{Section: ".debug_" + secNames[k], Msg: "section missing", Err: ErrNoSection}
			return
		}
		f.secs[k], f.secErr[k] = f.elf.sectionReader(s)
	})
	return f.secs[k], f.secErr[k]
}

func (f *File) findDebug(suffix string) *SectionHeader {
	if s, ok := f.elf.Section(".debug_" + suffix); ok {
		return s
	}
	if s, ok := f.elf.Section(".zdebug_" + suffix); ok {
		return s
	}
	return nil
}

// String returns the NUL-terminated string at off in .debug_str.
func (f *File) String(off uint64) (string, error) {
	b, err := f.stringBytes(secStr, off)
	return string(b), err
}

func (f *File) stringBytes(k int, off uint64) ([]byte, error) {
	r, err := f.sec(k)
	if err != nil {
		return nil, fileErr(f.name, err)
	}
	b, err := r.cstring(off)
	if err != nil {
		return nil, &Error{File: f.name, Section: ".debug_" + secNames[k], Offset: off, Msg: fmt.Sprintf("bad string offset (%v)", err), Err: ErrFormat}
	}
	return b, nil
}

func (f *File) errorf(section string, off uint64, format string, args ...any) error {
	return &Error{File: f.name, Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

var _ = strings.HasPrefix
var _ = os.Open
