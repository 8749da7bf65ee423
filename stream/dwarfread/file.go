package dwarfread

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/btfstream/btfstream/arena"
	"github.com/btfstream/btfstream/stream/elffile"
)

// Options configure Open.
type Options struct {
	// CacheBytes bounds the page cache of string and index sections
	// (.debug_str, .debug_line_str, .debug_str_offsets, .debug_addr,
	// .debug_rnglists, .strtab). 0 means 4 MiB.
	CacheBytes int64
	// StrOutside is the largest .debug_str read whole outside the Go
	// heap when it is larger than the page cache (strwhole.go); 0: none.
	StrOutside uint64
	// Name is used in error messages instead of the path.
	Name string
	// ArenaKeep: a unit's arena with a larger footprint (bytes) is freed
	// when the unit is released instead of kept for the next unit (0:
	// every arena is kept). With -j N each decoder's arena grows to the
	// largest unit it met and stays that big; under a small memory limit
	// only the common sizes should stay.
	ArenaKeep uint64
}

// DWARF sections read at random through paged readers.
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

// File is the DWARF of an ELF file, opened for streaming decoding. It is
// safe for concurrent use by the Units pipeline; its exported methods
// other than Units and Close may be called concurrently.
type File struct {
	name string
	elf  *elffile.File
	own  bool // Close closes elf

	info  *elffile.SectionHeader   // .debug_info or .zdebug_info
	types []*elffile.SectionHeader // .debug_types sections (there can be several in a .o)

	secOnce [numSecs]sync.Once
	secs    [numSecs]*elffile.Paged
	secErr  [numSecs]error

	abbrevCache abbrevCache
	strs        *strCache // .debug_str strings by offset (strcache.go); nil after DropCaches and in ET_REL files
	strWhole    uint64    // a .debug_str up to this size is read whole (strwhole.go)
	strOutside  uint64    // a larger one up to this size is read whole outside the heap
	strRelease  func()    // releases .debug_str read outside the heap; nil if it was not
	pool        arena.Pool
}

// Open opens the ELF file at path for DWARF decoding. The file is read
// through io.ReaderAt, never mapped or read whole.
func Open(path string, opts Options) (*File, error) {
	e, err := elffile.Open(path, elffile.Options{CacheBytes: opts.CacheBytes, Name: opts.Name})
	if err != nil {
		return nil, err
	}
	f := fileOf(e)
	f.own = true
	f.sizeCaches(opts.CacheBytes)
	f.strOutside = opts.StrOutside
	f.pool.MaxKeep = opts.ArenaKeep
	return f, nil
}

// New returns the DWARF view of an opened ELF file. Closing the File does
// not close e.
func New(e *elffile.File) *File {
	f := fileOf(e)
	f.sizeCaches(0)
	return f
}

// fileOf returns the DWARF view of e, its caches not sized yet.
func fileOf(e *elffile.File) *File {
	f := &File{name: e.Name(), elf: e}
	for i := range e.Sections {
		s := &e.Sections[i]
		switch s.Name {
		case ".debug_info", ".zdebug_info":
			// A relocatable object can hold several: type units in
			// COMDAT groups (SHF_GROUP) besides the main one.
			if s.Flags&elffile.SHFGroup == 0 && f.info == nil {
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
	return f
}

// sizeCaches sizes the string and abbreviation caches for a page cache of
// cacheBytes (0: the default, 4 MiB): with a small memory limit they
// shrink with it (a 32 MiB limit gives a 1 MiB page cache, 16k string
// slots and 16 abbreviation tables, about 1.2 MiB in all, where the
// defaults hold about 5 MiB).
//
// The string cache has no more slots than an eighth of .debug_str's bytes
// (a string takes a few bytes at least): a module's .debug_str is often a
// few hundred KiB, where the default 64k slots (1.5 MiB) would be most of
// a small module's encoding memory.
func (f *File) sizeCaches(cacheBytes int64) {
	bits := strCacheBitsFor(cacheBytes)
	for i := range f.elf.Sections {
		if s := &f.elf.Sections[i]; s.Name == ".debug_str" && !s.Compressed() {
			for bits > 10 && uint64(1)<<bits > s.Size/8 {
				bits--
			}
		}
	}
	if f.keepStrCache() {
		f.strs = newStrCache(bits)
	}
	f.strWhole = strWholeMax(cacheBytes)
	f.abbrevCache.max = 64
	if cacheBytes > 0 {
		f.abbrevCache.max = int(min(max(cacheBytes/(64<<10), 8), 64))
	}
}

// DropCaches releases the string, abbreviation and page caches once the
// units are read: decoding still works, without them. Not safe to call
// while other goroutines decode.
func (f *File) DropCaches() {
	f.strs = nil
	f.releaseStr()
	f.abbrevCache.drop()
	f.elf.DropCache()
}

// Close releases the file (if Open opened it) and the page cache.
func (f *File) Close() error {
	f.pool = arena.Pool{}
	f.releaseStr()
	if f.own {
		return f.elf.Close()
	}
	return nil
}

// ELF returns the ELF file.
func (f *File) ELF() *elffile.File { return f.elf }

// Name returns the name used in error messages.
func (f *File) Name() string { return f.name }

// ByteOrder returns the file's byte order.
func (f *File) ByteOrder() binary.ByteOrder { return f.elf.Order }

// Class64 reports whether the file is ELFCLASS64.
func (f *File) Class64() bool { return f.elf.Class64 }

// Machine returns e_machine.
func (f *File) Machine() uint16 { return f.elf.Machine }

// Info returns the .debug_info section header, or nil if there is none.
func (f *File) Info() *elffile.SectionHeader { return f.info }

// sec returns the random-access reader of a DWARF section, or an error
// wrapping ErrNoSection if the file lacks it.
func (f *File) sec(k int) (*elffile.Paged, error) {
	f.secOnce[k].Do(func() {
		s := f.findDebug(secNames[k])
		if s == nil {
			f.secErr[k] = &elffile.Error{File: f.name, Section: ".debug_" + secNames[k], Msg: "section missing", Err: elffile.ErrNoSection}
			return
		}
		f.secs[k], f.secErr[k] = f.pagedSection(k, s)
	})
	return f.secs[k], f.secErr[k]
}

func (f *File) findDebug(suffix string) *elffile.SectionHeader {
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
	return f.stringBytesVia(nil, k, off)
}

// stringBytesVia is stringBytes reading the section's pages through m
// (may be nil; elffile.Paged.CStringVia).
func (f *File) stringBytesVia(m *elffile.PageMemo, k int, off uint64) ([]byte, error) {
	r, err := f.sec(k)
	if err != nil {
		return nil, err
	}
	b, err := r.CStringVia(m, off)
	if err != nil {
		return nil, &elffile.Error{File: f.name, Section: ".debug_" + secNames[k], Offset: off, Msg: fmt.Sprintf("bad string offset (%v)", err), Err: elffile.ErrFormat}
	}
	return b, nil
}

func (f *File) errorf(section string, off uint64, format string, args ...any) error {
	return &elffile.Error{File: f.name, Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: elffile.ErrFormat}
}
