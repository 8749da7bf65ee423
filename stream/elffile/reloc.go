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

// relSource streams the entries of one SHT_REL/SHT_RELA section in chunks.
type relSource struct {
	sec    *SectionHeader
	r      io.ReaderAt
	rela   bool
	ent    uint64
	n      uint64
	sorted bool
	next   uint64 // cursor for sorted mode: first entry not yet consumed
	chunk  []byte
	chunkN uint64
	chunkK uint64
}

func (rs *relSource) entry(f *File, i uint64) (relEntry, error) {
	const per = 512
	if rs.chunk == nil || i < rs.chunkN || i >= rs.chunkN+rs.chunkK {
		if rs.chunk == nil {
			rs.chunk = make([]byte, per*rs.ent)
		}
		rs.chunkN = i / per * per
		rs.chunkK = min(rs.n-rs.chunkN, per)
		p := rs.chunk[:rs.chunkK*rs.ent]
		if _, err := rs.r.ReadAt(p, int64(rs.chunkN*rs.ent)); err != nil {
			rs.chunk = nil
			return relEntry{}, ReadErr(rs.sec.Name, rs.chunkN*rs.ent, err)
		}
	}
	p := rs.chunk[(i-rs.chunkN)*rs.ent:]
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
	return r, nil
}

// Relocator applies the relocations of one target section to windows of
// its contents (one unit at a time for .debug_info).
type Relocator struct {
	f      *File
	target string
	srcs   []*relSource
	syms   *symtab
	cache  map[uint32]symVal
}

type symVal struct {
	val uint64
	ok  bool // defined: relocation can be applied
}

// NewRelocator returns the relocator of section s of an ET_REL file, or
// nil if s has no relocations.
func (f *File) NewRelocator(s *SectionHeader) (*Relocator, error) {
	rl, err := f.newRelocator(s)
	return rl, WithFile(f.name, err)
}

func (f *File) newRelocator(s *SectionHeader) (*Relocator, error) {
	rl := &Relocator{f: f, target: s.Name, cache: make(map[uint32]symVal)}
	for i := range f.Sections {
		rs := &f.Sections[i]
		if (rs.Type != SHTRela && rs.Type != SHTRel) || rs.Info != s.Index || rs.Size == 0 {
			continue
		}
		src := &relSource{sec: rs, rela: rs.Type == SHTRela, sorted: true}
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
		last := uint64(0)
		for i := uint64(0); i < src.n; i++ {
			r, err := src.entry(f, i)
			if err != nil {
				return nil, err
			}
			if r.off < last {
				src.sorted = false
				break
			}
			last = r.off
		}
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
	if v, ok := rl.cache[i]; ok {
		return v, nil
	}
	s, _, err := rl.syms.entry(i)
	if err != nil {
		return symVal{}, err
	}
	v := symVal{val: s.Value, ok: s.Section != SHNUndef && (s.Section < SHNLoReserve || s.Section > 0xffff)}
	if len(rl.cache) > 1<<16 {
		clear(rl.cache)
	}
	rl.cache[i] = v
	return v, nil
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
		for ; i < src.n; i++ {
			r, err := src.entry(rl.f, i)
			if err != nil {
				return err
			}
			if r.off >= end {
				if src.sorted {
					break
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
		if src.sorted {
			src.next = i
		}
	}
	return nil
}

func (rl *Relocator) one(dst []byte, at uint64, r relEntry, rela bool) error {
	kind, size := rl.f.relocKind(r.typ)
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
