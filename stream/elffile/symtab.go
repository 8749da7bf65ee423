package elffile

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"unsafe"
)

// Symbol is one ELF symbol table entry.
type Symbol struct {
	Index   uint32 // index in the symbol table
	Name    string
	Value   uint64
	Size    uint64
	Section uint32 // section index, resolved through SHT_SYMTAB_SHNDX; else an SHN_* value
	Info    uint8  // ST_BIND<<4 | ST_TYPE
	Other   uint8
}

// Symbol types and bindings (ELF st_info).
const (
	STTNotype  = 0
	STTObject  = 1
	STTFunc    = 2
	STTSection = 3
	STTFile    = 4

	STBLocal  = 0
	STBGlobal = 1
	STBWeak   = 2
)

// Type returns ST_TYPE (STTFunc, STTObject, ...).
func (s *Symbol) Type() uint8 { return s.Info & 0xf }

// Bind returns ST_BIND (STBLocal, STBGlobal, STBWeak).
func (s *Symbol) Bind() uint8 { return s.Info >> 4 }

// symtab reads one symbol table in chunks.
type symtab struct {
	f      *File
	sec    *SectionHeader
	ent    uint64
	count  uint32
	names  strWindow
	shndx  *Paged // SHT_SYMTAB_SHNDX entries, or nil
	chunk  []byte
	chunkN uint32 // index of chunk[0]
	chunkK uint32 // entries in chunk
}

// openSymtab opens the first SHT_SYMTAB section, or returns nil if there
// is none.
func (f *File) openSymtab() (*symtab, error) {
	var sec *SectionHeader
	for i := range f.Sections {
		if f.Sections[i].Type == SHTSymtab {
			sec = &f.Sections[i]
			break
		}
	}
	if sec == nil {
		return nil, nil
	}
	ent := uint64(16)
	if f.Class64 {
		ent = 24
	}
	if sec.Entsize != 0 && (sec.Entsize < ent || sec.Entsize > 1024) {
		return nil, FormatErr(sec.Name, 0, "bad symbol entry size %d", sec.Entsize)
	}
	if sec.Entsize != 0 {
		ent = sec.Entsize
	}
	st := &symtab{f: f, sec: sec, ent: ent}
	n := sec.Size / ent
	if n > 1<<31 {
		return nil, FormatErr(sec.Name, 0, "too many symbols")
	}
	st.count = uint32(n)
	if sec.Link != 0 && sec.Link < uint32(len(f.Sections)) && f.Sections[sec.Link].Type != SHTNobits {
		names := &f.Sections[sec.Link]
		st.names = strWindow{r: f.r, off: names.Offset, size: names.Size}
	}
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Type == SHTSymtabShndx && s.Link == sec.Index {
			st.shndx = f.RawPaged(s)
		}
	}
	return st, nil
}

// entry decodes symbol i without its name.
func (st *symtab) entry(i uint32) (Symbol, uint32, error) {
	const per = 256
	if i >= st.count {
		return Symbol{}, 0, FormatErr(st.sec.Name, uint64(i)*st.ent, "symbol index %d out of range", i)
	}
	if st.chunk == nil || i < st.chunkN || i >= st.chunkN+st.chunkK {
		if st.chunk == nil {
			st.chunk = make([]byte, per*st.ent)
		}
		st.chunkN = i / per * per
		st.chunkK = min(st.count-st.chunkN, per)
		p := st.chunk[:uint64(st.chunkK)*st.ent]
		if _, err := st.f.r.ReadAt(p, int64(st.sec.Offset+uint64(st.chunkN)*st.ent)); err != nil {
			st.chunk = nil
			return Symbol{}, 0, ReadErr(st.sec.Name, uint64(st.chunkN)*st.ent, err)
		}
	}
	p := st.chunk[uint64(i-st.chunkN)*st.ent:]
	o := st.f.Order
	var s Symbol
	var name uint32
	s.Index = i
	name = o.Uint32(p)
	if st.f.Class64 {
		s.Info, s.Other = p[4], p[5]
		s.Section = uint32(o.Uint16(p[6:]))
		s.Value = o.Uint64(p[8:])
		s.Size = o.Uint64(p[16:])
	} else {
		s.Value = uint64(o.Uint32(p[4:]))
		s.Size = uint64(o.Uint32(p[8:]))
		s.Info, s.Other = p[12], p[13]
		s.Section = uint32(o.Uint16(p[14:]))
	}
	if s.Section == SHNXIndex && st.shndx != nil {
		x, err := st.shndx.Uint(uint64(i)*4, 4, o)
		if err != nil {
			return Symbol{}, 0, FormatErr(".symtab_shndx", uint64(i)*4, "missing extended section index")
		}
		s.Section = uint32(x)
	}
	return s, name, nil
}

// Symbols iterates over the .symtab entries in order (index 0, the null
// symbol, is skipped). It reads the table in small chunks and symbol names
// through the page cache, so memory does not grow with the table.
// Iteration stops at the first error, which is yielded once.
func (f *File) Symbols() iter.Seq2[Symbol, error] { return f.symbols(false, 0) }

// SymbolsBorrowed is Symbols without a string per symbol: each Symbol's
// Name is valid only until the iteration moves on (a caller that keeps
// one clones it). A symbol table of a vmlinux has over 100k names.
//
// A name table (.strtab) of at most namesWhole bytes is read whole, in
// one read, before the first symbol; a larger one (or with namesWhole 0)
// through a small window. A vmlinux's symbols name their strings far out
// of table order: the 7.2 vmlinux's 4.4 MB .strtab took 75k window reads
// of 4 KiB (setup's system time), xfs.ko's 535 KB 7.6k.
func (f *File) SymbolsBorrowed(namesWhole uint64) iter.Seq2[Symbol, error] {
	return f.symbols(true, namesWhole)
}

func (f *File) symbols(borrowed bool, namesWhole uint64) iter.Seq2[Symbol, error] {
	return func(yield func(Symbol, error) bool) {
		st, err := f.openSymtab()
		if err == nil && st != nil && st.names.size > 0 && st.names.size <= namesWhole {
			err = st.names.readWhole()
		}
		if err != nil {
			yield(Symbol{}, WithFile(f.name, err))
			return
		}
		if st == nil {
			return
		}
		var buf []byte // borrowed: the current name
		for i := uint32(1); i < st.count; i++ {
			s, nameOff, err := st.entry(i)
			if err == nil && nameOff != 0 {
				var nb []byte
				nb, err = st.names.cstring(uint64(nameOff))
				if err != nil {
					err = FormatErr(".strtab", uint64(nameOff), "symbol %d name", i)
				}
				if !borrowed {
					s.Name = string(nb)
				} else if len(nb) > 0 {
					buf = append(buf[:0], nb...)
					s.Name = unsafe.String(&buf[0], len(buf))
				}
			}
			if err != nil {
				yield(Symbol{}, WithFile(f.name, err))
				return
			}
			if !yield(s, nil) {
				return
			}
		}
	}
}

func (s Symbol) String() string {
	return fmt.Sprintf("[%d] %s value=%#x size=%d shndx=%d info=%#x", s.Index, s.Name, s.Value, s.Size, s.Section, s.Info)
}

// strWindow reads a string table's names through a window of it of its
// own: a symbol table's names lie in about the order of its symbols, so
// the window moves forward through the table, each byte read about once,
// without the shared page cache's per-lookup cost (and without filling
// it with pages no other reader wants).
type strWindow struct {
	r         io.ReaderAt
	off, size uint64 // the table's place in the file
	buf       []byte // the table's bytes [at, at+len(buf))
	at        uint64
}

// strWindowSize is how much of the table a window read takes at least.
// A vmlinux's symbols name their strings far out of table order: with
// 64 KiB windows the 6.12 vmlinux made 60k window reads (3.9 GB copied,
// system time 0.25 s -> 0.55 s at -j2, invisible to callgrind); 4 KiB
// copies a sixteenth of that for the same number of reads.
const strWindowSize = 4 << 10

// readWhole reads the whole table into the window.
func (w *strWindow) readWhole() error {
	w.buf, w.at = make([]byte, w.size), 0
	if _, err := w.r.ReadAt(w.buf, int64(w.off)); err != nil {
		w.buf = w.buf[:0]
		return ReadErr(".strtab", 0, err)
	}
	return nil
}

// cstring returns the NUL-terminated string at off, valid until the next
// call; ErrFormat if off is outside the table or no NUL ends the string.
func (w *strWindow) cstring(off uint64) ([]byte, error) {
	if off >= w.size {
		return nil, ErrFormat
	}
	if off >= w.at && off < w.at+uint64(len(w.buf)) {
		if i := bytes.IndexByte(w.buf[off-w.at:], 0); i >= 0 {
			return w.buf[off-w.at : off-w.at+uint64(i)], nil
		}
	}
	// Read from off on, more each time no NUL is found.
	for n := uint64(strWindowSize); ; n *= 2 {
		n = min(n, w.size-off)
		if uint64(cap(w.buf)) < n {
			w.buf = make([]byte, n)
		}
		w.buf, w.at = w.buf[:n], off
		if _, err := w.r.ReadAt(w.buf, int64(w.off+off)); err != nil {
			w.buf = w.buf[:0]
			return nil, err
		}
		if i := bytes.IndexByte(w.buf, 0); i >= 0 {
			return w.buf[:i], nil
		}
		if n == w.size-off {
			return nil, ErrFormat
		}
	}
}
