package elffile

import (
	"bytes"
	"encoding/binary"
	"io"
)

// relocation kinds.
const (
	rkNone = iota
	rkAbs  // S + A
	rkAdd  // P + S + A (RISC-V ADDn)
	rkSub  // P - S - A (RISC-V SUBn)
	rkSet  // S + A, narrow (RISC-V SETn)
)

// relocKind maps a relocation type to its kind and width in bytes.
func (f *File) relocKind(typ uint32) (kind int, size uint8) {
	switch {
	case f.Machine == EMX86_64 && f.Class64:
		switch typ {
		case 1: // R_X86_64_64
			return rkAbs, 8
		case 10, 11: // R_X86_64_32, R_X86_64_32S
			return rkAbs, 4
		}
	case f.Machine == EM386 && !f.Class64:
		if typ == 1 { // R_386_32
			return rkAbs, 4
		}
	case f.Machine == EMARM && !f.Class64:
		if typ == 2 { // R_ARM_ABS32
			return rkAbs, 4
		}
	case f.Machine == EMAARCH64 && f.Class64:
		switch typ {
		case 257: // R_AARCH64_ABS64
			return rkAbs, 8
		case 258: // R_AARCH64_ABS32
			return rkAbs, 4
		}
	case f.Machine == EMPPC && !f.Class64:
		if typ == 1 { // R_PPC_ADDR32
			return rkAbs, 4
		}
	case f.Machine == EMPPC64 && f.Class64:
		switch typ {
		case 38: // R_PPC64_ADDR64
			return rkAbs, 8
		case 1: // R_PPC64_ADDR32
			return rkAbs, 4
		}
	case f.Machine == EMS390 && f.Class64:
		switch typ {
		case 22: // R_390_64
			return rkAbs, 8
		case 4: // R_390_32
			return rkAbs, 4
		}
	case f.Machine == EMRISCV && f.Class64:
		switch typ {
		case 2: // R_RISCV_64
			return rkAbs, 8
		case 1: // R_RISCV_32
			return rkAbs, 4
		case 33, 34, 35, 36: // R_RISCV_ADD8..ADD64
			return rkAdd, [...]uint8{1, 2, 4, 8}[typ-33]
		case 37, 38, 39, 40: // R_RISCV_SUB8..SUB64
			return rkSub, [...]uint8{1, 2, 4, 8}[typ-37]
		case 54, 55, 56: // R_RISCV_SET8, SET16, SET32
			return rkSet, [...]uint8{1, 2, 4}[typ-54]
		}
	case f.Machine == EMSPARCV9 && f.Class64:
		switch typ {
		case 32, 54: // R_SPARC_64, R_SPARC_UA64
			return rkAbs, 8
		case 3, 23: // R_SPARC_32, R_SPARC_UA32
			return rkAbs, 4
		}
	}
	return rkNone, 0
}

// relEntry is one decoded relocation.
type relEntry struct {
	off    uint64
	addend int64
	sym    uint32
	typ    uint32
}

// relChunk is how many entries a relSource reads at a time (48 KiB of
// ELF64 RELA entries: a large module's .rela.debug_info holds 1.5M).
const relChunk = 2048

// relSource streams the entries of one SHT_REL/SHT_RELA section in chunks.
type relSource struct {
	sec    *SectionHeader
	r      io.ReaderAt
	rela   bool
	ent    uint64
	n      uint64
	sorted bool
	le     bool   // little-endian: read without the File's ByteOrder interface
	next   uint64 // cursor for sorted mode: first entry not yet consumed
	chunk  []byte
	chunkN uint64
	chunkK uint64
}

// load makes the chunk that holds entry i current and returns the bytes
// of entries i to the chunk's end.
func (rs *relSource) load(i uint64) ([]byte, error) {
	if rs.chunk == nil || i < rs.chunkN || i >= rs.chunkN+rs.chunkK {
		if rs.chunk == nil {
			rs.chunk = make([]byte, min(rs.n, relChunk)*rs.ent)
		}
		rs.chunkN = i / relChunk * relChunk
		rs.chunkK = min(rs.n-rs.chunkN, relChunk)
		p := rs.chunk[:rs.chunkK*rs.ent]
		if _, err := rs.r.ReadAt(p, int64(rs.chunkN*rs.ent)); err != nil {
			rs.chunk, rs.chunkK = nil, 0
			return nil, ReadErr(rs.sec.Name, rs.chunkN*rs.ent, err)
		}
	}
	return rs.chunk[(i-rs.chunkN)*rs.ent : rs.chunkK*rs.ent], nil
}

// decode reads the entry at the start of p.
func (rs *relSource) decode(f *File, p []byte) relEntry {
	if rs.le && f.Class64 && rs.rela && len(p) >= 24 {
		// ELF64 RELA, little-endian: every 64-bit module of x86-64,
		// arm64, riscv64, ...
		le := binary.LittleEndian
		info := le.Uint64(p[8:])
		return relEntry{off: le.Uint64(p), addend: int64(le.Uint64(p[16:])), sym: uint32(info >> 32), typ: uint32(info)}
	}
	o := f.Order
	var r relEntry
	if f.Class64 {
		r.off = o.Uint64(p)
		info := o.Uint64(p[8:])
		r.sym, r.typ = uint32(info>>32), uint32(info)
		if rs.rela {
			r.addend = int64(o.Uint64(p[16:]))
		}
	} else {
		r.off = uint64(o.Uint32(p))
		info := o.Uint32(p[4:])
		r.sym, r.typ = info>>8, info&0xff
		if rs.rela {
			r.addend = int64(int32(o.Uint32(p[8:])))
		}
	}
	return r
}

// ascending reports whether the entries' offsets never decrease, reading
// only the offsets.
func (rs *relSource) ascending(f *File) (bool, error) {
	last := uint64(0)
	for i := uint64(0); i < rs.n; {
		p, err := rs.load(i)
		if err != nil {
			return false, err
		}
		k := uint64(len(p)) / rs.ent
		for e := uint64(0); e < k; e++ {
			var off uint64
			switch {
			case f.Class64 && rs.le:
				off = binary.LittleEndian.Uint64(p[e*rs.ent:])
			case f.Class64:
				off = f.Order.Uint64(p[e*rs.ent:])
			default:
				off = uint64(f.Order.Uint32(p[e*rs.ent:]))
			}
			if off < last {
				return false, nil
			}
			last = off
		}
		i += k
	}
	return true, nil
}

// Relocator applies the relocations of one target section to windows of
// its contents (one unit at a time for .debug_info).
type Relocator struct {
	f      *File
	target string
	srcs   []*relSource
	syms   *symtab
	le     bool // little-endian
	// The kind and width of relocation type typ, the last one met (a
	// section's relocations are nearly all of one or two types).
	typ32            uint32
	typKind, typSize uint8
	typKnown         bool
	// cache holds symbol values, direct-mapped by index: a section's
	// relocations name few symbols (in .debug_info, mostly the sections
	// .debug_str, .debug_abbrev, .debug_line, ...).
	cache [symCacheSize]symVal
}

const symCacheSize = 256

type symVal struct {
	val uint64
	idx uint32 // symbol index + 1 (0: empty slot)
	ok  bool   // defined: relocation can be applied
}

// NewRelocator returns the relocator of section s of an ET_REL file, or
// nil if s has no relocations.
func (f *File) NewRelocator(s *SectionHeader) (*Relocator, error) {
	rl, err := f.newRelocator(s)
	return rl, WithFile(f.name, err)
}

func (f *File) newRelocator(s *SectionHeader) (*Relocator, error) {
	rl := &Relocator{f: f, target: s.Name, le: f.Order == binary.LittleEndian}
	for i := range f.Sections {
		rs := &f.Sections[i]
		if (rs.Type != SHTRela && rs.Type != SHTRel) || rs.Info != s.Index || rs.Size == 0 {
			continue
		}
		src := &relSource{sec: rs, rela: rs.Type == SHTRela, sorted: true, le: f.Order == binary.LittleEndian}
		switch {
		case f.Class64 && src.rela:
			src.ent = 24
		case f.Class64:
			src.ent = 16
		case src.rela:
			src.ent = 12
		default:
			src.ent = 8
		}
		if rs.Size%src.ent != 0 {
			return nil, FormatErr(rs.Name, 0, "size %d is not a multiple of the entry size %d", rs.Size, src.ent)
		}
		src.n = rs.Size / src.ent
		if rs.Compressed() {
			b, err := f.readSectionRaw(rs)
			if err != nil {
				return nil, err
			}
			src.r = bytes.NewReader(b)
		} else {
			src.r = io.NewSectionReader(f.r, int64(rs.Offset), int64(rs.Size))
		}
		// One pass to learn whether offsets ascend, which lets apply
		// stream through the entries once for all windows.
		sorted, err := src.ascending(f)
		if err != nil {
			return nil, err
		}
		src.sorted = sorted
		rl.srcs = append(rl.srcs, src)
	}
	if len(rl.srcs) == 0 {
		return nil, nil
	}
	st, err := f.openSymtab()
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, FormatErr(s.Name, 0, "relocations without a symbol table")
	}
	rl.syms = st
	return rl, nil
}

// ReadSectionRaw loads a section whole (inflated if compressed) without
// applying relocations; ReadSection applies them on top.
func (f *File) ReadSectionRaw(s *SectionHeader) ([]byte, error) {
	b, err := f.readSectionRaw(s)
	return b, WithFile(f.name, err)
}

func (f *File) readSectionRaw(s *SectionHeader) ([]byte, error) {
	rc, size, err := f.openStream(s)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var b []byte
	if s.Compressed() {
		b, err = readAllBounded(rc, size)
	} else {
		// Open checked that the section lies within the file: its size
		// is real, so the buffer is allocated once and exactly (a
		// vmlinux's .BTF, the base of every module, is 5 MB).
		b = make([]byte, size)
		var n int
		n, err = io.ReadFull(rc, b)
		b = b[:n]
	}
	if err != nil {
		return nil, FormatErr(s.Name, uint64(len(b)), "read: %v", err)
	}
	return b, nil
}

func (rl *Relocator) sym(i uint32) (symVal, error) {
	c := &rl.cache[i%symCacheSize]
	if c.idx == i+1 {
		return *c, nil
	}
	s, _, err := rl.syms.entry(i)
	if err != nil {
		return symVal{}, err
	}
	*c = symVal{val: s.Value, idx: i + 1, ok: s.Section != SHNUndef && (s.Section < SHNLoReserve || s.Section > 0xffff)}
	return *c, nil
}

// Apply relocates dst, which holds the target section's bytes at offsets
// [base, base+len(dst)). With sorted sources, successive calls must use
// ascending, non-overlapping windows.
func (rl *Relocator) Apply(dst []byte, base uint64) error {
	end := base + uint64(len(dst))
	for _, src := range rl.srcs {
		i := uint64(0)
		if src.sorted {
			i = src.next
		}
	chunks:
		for i < src.n {
			p, err := src.load(i)
			if err != nil {
				return err
			}
			for ; len(p) > 0; p, i = p[src.ent:], i+1 {
				r := src.decode(rl.f, p)
				if r.off >= end {
					if src.sorted {
						break chunks
					}
					continue
				}
				if r.off < base {
					continue
				}
				if err := rl.one(dst, r.off-base, r, src.rela); err != nil {
					return err
				}
			}
		}
		if src.sorted {
			src.next = i
		}
	}
	return nil
}

func (rl *Relocator) one(dst []byte, at uint64, r relEntry, rela bool) error {
	if !rl.typKnown || r.typ != rl.typ32 {
		k, size := rl.f.relocKind(r.typ)
		rl.typ32, rl.typKind, rl.typSize, rl.typKnown = r.typ, uint8(k), size, true
	}
	kind, size := int(rl.typKind), rl.typSize
	if kind == rkNone || r.sym == 0 {
		return nil
	}
	if at+uint64(size) > uint64(len(dst)) {
		return nil
	}
	s, err := rl.sym(r.sym)
	if err != nil {
		return err
	}
	if !s.ok {
		return nil
	}
	p := dst[at : at+uint64(size)]
	if rela && kind == rkAbs && rl.le {
		// The common case, without the ByteOrder interface.
		switch v := s.val + uint64(r.addend); size {
		case 4:
			binary.LittleEndian.PutUint32(p, uint32(v))
			return nil
		case 8:
			binary.LittleEndian.PutUint64(p, v)
			return nil
		}
	}
	o := rl.f.Order
	old := getUint(o, p)
	a := uint64(r.addend)
	if !rela {
		a = old // REL: the addend is stored in place
	}
	var v uint64
	switch kind {
	case rkAbs, rkSet:
		v = s.val + a
	case rkAdd:
		v = old + s.val + uint64(r.addend)
	case rkSub:
		v = old - s.val - uint64(r.addend)
	}
	putUint(o, p, v)
	return nil
}

func getUint(o binary.ByteOrder, p []byte) uint64 {
	switch len(p) {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(o.Uint16(p))
	case 4:
		return uint64(o.Uint32(p))
	case 8:
		return o.Uint64(p)
	}
	return 0
}

func putUint(o binary.ByteOrder, p []byte, v uint64) {
	switch len(p) {
	case 1:
		p[0] = uint8(v)
	case 2:
		o.PutUint16(p, uint16(v))
	case 4:
		o.PutUint32(p, uint32(v))
	case 8:
		o.PutUint64(p, v)
	}
}
