package encode

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"unsafe"

	"github.com/btfstream/btfstream/stream/elffile"
)

// symRec is one name of a compact symbol table: the name as an offset and
// length into the table's name bytes, an address and two words whose
// meaning depends on the table. Size: 24 bytes on every host.
type symRec struct {
	off, n uint32 // name bytes: names[off : off+n]
	addr   uint64
	aux    uint32 // objSyms: section index
	// flags: while the table is built, the record's sequence number
	// (sortRecs' tiebreak); in elfFuncs after finish, funcAmbiguous.
	flags uint32
}

// funcAmbiguous flags a name whose symbols sit at different addresses.
const funcAmbiguous = 1 << 0

// symTable is a table of symbol names sorted by name (ties in symbol
// order), kept as one byte buffer and fixed-size records: no string or
// map per symbol, so it costs the same on 32- and 64-bit hosts.
type symTable struct {
	names []byte
	recs  []symRec
}

func (t *symTable) add(name string, addr uint64, aux uint32) {
	t.recs = append(t.recs, symRec{off: uint32(len(t.names)), n: uint32(len(name)), addr: addr, aux: aux, flags: uint32(len(t.recs))})
	t.names = append(t.names, name...)
}

func (t *symTable) nameBytes(i int) []byte {
	r := &t.recs[i]
	return t.names[r.off : r.off+r.n]
}

// name returns record i's name (allocates).
func (t *symTable) name(i int) string { return string(t.nameBytes(i)) }

// sort orders the records by name, stably, and rewrites the name bytes in
// that order, records of one name sharing its bytes.
func (t *symTable) sort() {
	t.sortRecs()
	names := make([]byte, 0, len(t.names))
	for i := range t.recs {
		r := &t.recs[i]
		r.flags = 0
		nb := t.names[r.off : r.off+r.n]
		if i > 0 && bytes.Equal(nb, names[t.recs[i-1].off:]) {
			r.off = t.recs[i-1].off // same name: share the bytes
		} else {
			r.off = uint32(len(names))
			names = append(names, nb...)
		}
	}
	t.names, t.recs = bytes.Clone(names), slices.Clone(t.recs) // exact sizes: the table lives all run
}

// sortRecs orders the records by name, ties in symbol order (the
// records' sequence numbers, flags). It sorts keys holding each name's
// first 16 bytes, so most comparisons read neither a record nor its name
// (scattered over the name bytes: each a cache miss), then lays the
// records out in that order: on the 7.2 vmlinux's symbols about a third
// of the instructions of sorting the records by their names.
func (t *symTable) sortRecs() {
	keys := make([]symSortKey, len(t.recs))
	for i := range t.recs {
		var pre [16]byte
		copy(pre[:], t.nameBytes(i)) // zero padded: names hold no NUL
		keys[i] = symSortKey{hi: binary.BigEndian.Uint64(pre[:8]), lo: binary.BigEndian.Uint64(pre[8:]), i: uint32(i)}
	}
	slices.SortFunc(keys, func(a, b symSortKey) int {
		if a.hi != b.hi {
			return cmp.Compare(a.hi, b.hi)
		}
		if a.lo != b.lo {
			return cmp.Compare(a.lo, b.lo)
		}
		if c := bytes.Compare(t.nameBytes(int(a.i)), t.nameBytes(int(b.i))); c != 0 {
			return c
		}
		return cmp.Compare(t.recs[a.i].flags, t.recs[b.i].flags)
	})
	sorted := make([]symRec, len(t.recs))
	for k, key := range keys {
		sorted[k] = t.recs[key.i]
	}
	t.recs = sorted
}

// symSortKey is a record while sortRecs sorts: the first 16 bytes of its
// name, big-endian (ordered as the bytes are), and its index. 24 bytes
// on every host.
type symSortKey struct {
	hi, lo uint64
	i      uint32
	_      uint32
}

// span returns the records named name: [lo, hi).
func (t *symTable) span(name string) (int, int) {
	// The names are read in place (no string per comparison): t.names is
	// not modified after sort.
	cmp := func(r symRec, n string) int {
		return strings.Compare(unsafe.String(unsafe.SliceData(t.names[r.off:]), r.n), n)
	}
	lo, ok := slices.BinarySearchFunc(t.recs, name, cmp)
	if !ok {
		return lo, lo
	}
	hi := lo + 1
	for hi < len(t.recs) && cmp(t.recs[hi], name) == 0 {
		hi++
	}
	return lo, hi
}

// bytesSize is the table's memory.
func (t *symTable) bytesSize() int64 { return int64(cap(t.names)) + 24*int64(cap(t.recs)) }

// elfFuncs is pahole's elf_functions table: one entry per function name
// (the symbol name up to its first '.', every FUNC symbol of that name,
// ".isra.0", ".constprop.0", ..., folded in), sorted by name. While the
// symbols are read the names sit in a symTable (build); finish turns
// them into front-coded names (funcNames) and two bitsets, about an
// eighth of a symTable's 24 bytes per record and the names: the table
// lives until the function states are merged, through the whole run.
type elfFuncs struct {
	build  symTable
	names  funcNames
	amb    []uint64          // bitset by index: funcAmbiguous
	kfunc  []uint64          // bitset by index: funcKfunc
	kflags map[uint32]uint32 // by index: a kfunc's flags word
	syms   funcSyms          // every symbol's address and suffix, by name
	sfx    suffixes          // while built: the suffixes (aux of build's records)
}

// hasNonFuncSuffix reports suffixes that are parts of functions, not
// functions: ".cold" and ".part" anywhere after the first '.'.
func hasNonFuncSuffix(name string) bool {
	i := strings.IndexByte(name, '.')
	if i < 0 {
		return false
	}
	s := name[i:]
	return strings.Contains(s, ".cold") || strings.Contains(s, ".part")
}

// addSym adds a FUNC symbol (call finish after the last).
func (fs *elfFuncs) addSym(name string, addr uint64) {
	if name == "" || hasNonFuncSuffix(name) {
		return
	}
	var sfx uint32
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name, sfx = name[:i], fs.sfx.intern(name[i:])
	}
	fs.build.add(name, addr, sfx)
}

// finish sorts the names, keeps the first record of each and codes them.
// A name is ambiguous as pahole 1.31's elf_function__has_ambiguous_address
// decides: in symbol order, a symbol whose address differs from the last
// one seen, where an address of 0 counts as none seen yet (so in an
// ET_REL file, where the first function of a section sits at 0, [0, 0x60]
// is not ambiguous but [0x60, 0] is). pahole checks each name when the
// next name begins, so the last name of the table is never flagged; that
// is kept too. Unlike sort, finish neither lays the names out again nor
// copies the records: the build table goes right after (at -j N this
// runs beside the first units).
func (fs *elfFuncs) finish(indexMax int64) {
	t := &fs.build
	t.sortRecs()
	out := t.recs[:0] // in place: out never passes the record read
	var last []byte
	var seen uint64 // address of the name's last symbol; 0: none yet
	sb := funcSymsBuilder{}
	for _, r := range t.recs {
		nb := t.names[r.off : r.off+r.n]
		same := len(out) > 0 && bytes.Equal(nb, last)
		idx := len(out) - 1
		if !same {
			idx = len(out)
		}
		sb.add(uint32(idx), !same, r.addr, r.aux)
		if same {
			if seen != 0 && seen != r.addr {
				out[len(out)-1].flags |= funcAmbiguous
			} else {
				seen = r.addr
			}
			continue
		}
		last, seen = nb, r.addr
		r.flags = 0
		out = append(out, r)
	}
	if len(out) > 0 {
		out[len(out)-1].flags &^= funcAmbiguous // pahole never checks the last name
	}
	fs.syms = sb.finish(fs.sfx)
	fs.sfx = suffixes{}
	fs.names = buildFuncNames(len(out), func(i int) []byte { return t.names[out[i].off : out[i].off+out[i].n] }, indexMax)
	fs.amb = make([]uint64, (len(out)+63)/64)
	fs.kfunc = make([]uint64, len(fs.amb))
	for i := range out {
		if out[i].flags&funcAmbiguous != 0 {
			fs.amb[i/64] |= 1 << (i % 64)
		}
	}
	*t = symTable{}
}

func (fs *elfFuncs) len() int { return fs.names.n }

// find returns the index of name, or -1.
func (fs *elfFuncs) find(name string) int { return fs.names.find(name) }

// markKfunc flags function i as a kfunc with flags word flags.
func (fs *elfFuncs) markKfunc(i int, flags uint32) {
	fs.kfunc[i/64] |= 1 << (i % 64)
	if fs.kflags == nil {
		fs.kflags = make(map[uint32]uint32)
	}
	fs.kflags[uint32(i)] = flags
}

func bit(set []uint64, i uint32) bool { return set[i/64]&(1<<(i%64)) != 0 }

func (fs *elfFuncs) bytesSize() int64 {
	return fs.names.bytesSize() + 8*int64(cap(fs.amb)+cap(fs.kfunc)) + 8*int64(len(fs.kflags)) + fs.syms.bytesSize()
}

// objSyms lists the STT_OBJECT symbols by name with their section index
// (aux) and value (addr), for the variable encoder.
type objSyms struct{ symTable }

// inSection reports whether an object symbol name lives in section shndx.
func (o *objSyms) inSection(name string, shndx uint32) bool {
	lo, hi := o.span(name)
	for i := lo; i < hi; i++ {
		if o.recs[i].aux == shndx {
			return true
		}
	}
	return false
}

// sectionAt returns the section of the object symbol name whose value is
// addr (0: none), in symbol order.
func (o *objSyms) sectionAt(name string, addr uint64) uint32 {
	lo, hi := o.span(name)
	for i := lo; i < hi; i++ {
		if o.recs[i].addr == addr {
			return o.recs[i].aux
		}
	}
	return 0
}

// btfIDSym is a symbol of the .BTF_ids section, kept for the kfunc scan.
type btfIDSym struct {
	name       string
	value, siz uint64
}

// Symbols is what the encoder keeps of the symbol table, read in one
// streaming pass: the function names (pahole's elf_functions), the object
// symbols the variable encoder asks about, and the .BTF_ids symbols until
// MarkKfuncs has used them.
type Symbols struct {
	funcs   elfFuncs
	objects objSyms
	btfIDs  []btfIDSym // symbols in .BTF_ids (a few thousand at most)
	any     bool       // the file has a symbol table
}

// FuncSym is what the function merge needs of one function name.
type FuncSym struct {
	Name       []byte // the caller's buffer (Func)
	Ambiguous  bool   // symbols of this name sit at different addresses
	Kfunc      bool   // listed in a BTF_SET8_KFUNCS set
	KfuncFlags uint32 // its flags word (KF_*)
}

// Func returns function i (FuncState.Elf), its name appended to buf[:0].
func (es *Symbols) Func(i uint32, buf []byte) FuncSym {
	fs := &es.funcs
	return FuncSym{Name: fs.names.appendName(buf[:0], int(i)), Ambiguous: bit(fs.amb, i),
		Kfunc: bit(fs.kfunc, i), KfuncFlags: fs.kflags[i]}
}

// BytesSize is the memory the tables hold.
func (es *Symbols) BytesSize() int64 { return es.funcs.bytesSize() + es.objects.bytesSize() }

// ReadSymbols reads the function symbols, the .BTF_ids symbols, and the
// object symbols the variable encoder can ask about: in a linked file only
// those of sections keepObj accepts (with default features, .data..percpu
// alone), in an ET_REL file all (it finds sections through them).
func ReadSymbols(f *elffile.File, keepObj func(shndx uint32) bool) (*Symbols, error) {
	return ReadSymbolsWith(f, keepObj, SymbolOptions{IndexMax: -1})
}

// SymbolOptions tune how ReadSymbolsWith reads the symbol table; the
// memory plan (stream/mem.go) chooses them.
type SymbolOptions struct {
	// NamesWhole is the largest symbol name table read whole, in one
	// read, instead of through a small window (elffile.SymbolsBorrowed).
	NamesWhole uint64
	// IndexMax is the most the function names' hash index may take
	// (faster lookups by name than a binary search; 8 bytes a slot, 2 MiB
	// on a vmlinux); without it they are binary-searched. Negative:
	// whatever it takes.
	IndexMax int64
}

// ReadSymbolsWith is ReadSymbols with options.
func ReadSymbolsWith(f *elffile.File, keepObj func(shndx uint32) bool, opts SymbolOptions) (*Symbols, error) {
	es := &Symbols{}
	rel := f.Relocatable()
	idsIdx := uint32(0)
	if s, ok := f.Section(btfIDsSection); ok {
		idsIdx = s.Index
	}
	// The names are borrowed: the tables copy them; .BTF_ids' are cloned.
	for s, err := range f.SymbolsBorrowed(opts.NamesWhole) {
		if err != nil {
			return nil, err
		}
		es.any = true
		switch s.Type() {
		case elffile.STTFunc:
			es.funcs.addSym(s.Name, s.Value)
		case elffile.STTObject:
			if rel || keepObj(s.Section) {
				es.objects.add(s.Name, s.Value, s.Section)
			}
		}
		if idsIdx != 0 && s.Section == idsIdx {
			es.btfIDs = append(es.btfIDs, btfIDSym{strings.Clone(s.Name), s.Value, s.Size})
		}
	}
	es.funcs.finish(opts.IndexMax)
	es.objects.sort()
	return es, nil
}
