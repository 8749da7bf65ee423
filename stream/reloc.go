package stream

import (
	"bytes"
	"encoding/binary"
	"io"
)

// ELF machines whose debug-section relocations are applied.
const (
	emSPARCV9 = 43
	em386     = 3
	emPPC     = 20
	emPPC64   = 21
	emS390    = 22
	emARM     = 40
	emX86_64  = 62
	emAARCH64 = 183
	emRISCV   = 243
)

// relocatable reports whether relocations must be applied to debug
// sections: only in ET_REL objects (.o, .ko). A vmlinux linked with
// --emit-relocs keeps .rela.debug_* sections, which must be ignored.
func (e *ELF) relocatable() bool { return e.Type == etRel }

func (e *ELF) hasRelocs(target uint32) bool {
	for i := range e.Sections {
		s := &e.Sections[i]
		if (s.Type == shtRela || s.Type == shtRel) && s.Info == target {
			return true
		}
	}
	return false
}

// relocation kinds.
const (
	rkNone = iota
	rkAbs  // S + A
	rkAdd  // P + S + A (RISC-V ADDn)
	rkSub  // P - S - A (RISC-V SUBn)
	rkSet  // S + A, narrow (RISC-V SETn)
)

// relocKind maps a relocation type to its kind and width in bytes.
func (e *ELF) relocKind(typ uint32) (kind int, size uint8) {
	switch {
	case e.Machine == emX86_64 && e.Class64:
		switch typ {
		case 1: // R_X86_64_64
			return rkAbs, 8
		case 10, 11: // R_X86_64_32, R_X86_64_32S
			return rkAbs, 4
		}
	case e.Machine == em386 && !e.Class64:
		if typ == 1 { // R_386_32
			return rkAbs, 4
		}
	case e.Machine == emARM && !e.Class64:
		if typ == 2 { // R_ARM_ABS32
			return rkAbs, 4
		}
	case e.Machine == emAARCH64 && e.Class64:
		switch typ {
		case 257: // R_AARCH64_ABS64
			return rkAbs, 8
		case 258: // R_AARCH64_ABS32
			return rkAbs, 4
		}
	case e.Machine == emPPC && !e.Class64:
		if typ == 1 { // R_PPC_ADDR32
			return rkAbs, 4
		}
	case e.Machine == emPPC64 && e.Class64:
		switch typ {
		case 38: // R_PPC64_ADDR64
			return rkAbs, 8
		case 1: // R_PPC64_ADDR32
			return rkAbs, 4
		}
	case e.Machine == emS390 && e.Class64:
		switch typ {
		case 22: // R_390_64
			return rkAbs, 8
		case 4: // R_390_32
			return rkAbs, 4
		}
	case e.Machine == emRISCV && e.Class64:
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
	case e.Machine == emSPARCV9 && e.Class64:
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

func (rs *relSource) entry(e *ELF, i uint64) (relEntry, error) {
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
			return relEntry{}, &DecodeError{Section: rs.sec.Name, Offset: rs.chunkN * rs.ent, Msg: "read", Err: err}
		}
	}
	p := rs.chunk[(i-rs.chunkN)*rs.ent:]
	o := e.Order
	var r relEntry
	if e.Class64 {
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

// relocator applies the relocations of one target section to windows of
// its contents (one unit at a time for .debug_info).
type relocator struct {
	e      *ELF
	target string
	srcs   []*relSource
	syms   *symtab
	cache  map[uint32]symVal
}

type symVal struct {
	val uint64
	ok  bool // defined: relocation can be applied
}

// newRelocator returns nil if s has no relocations.
func (e *ELF) newRelocator(s *SectionHeader) (*relocator, error) {
	rl := &relocator{e: e, target: s.Name, cache: make(map[uint32]symVal)}
	for i := range e.Sections {
		rs := &e.Sections[i]
		if (rs.Type != shtRela && rs.Type != shtRel) || rs.Info != s.Index || rs.Size == 0 {
			continue
		}
		src := &relSource{sec: rs, rela: rs.Type == shtRela, sorted: true}
		switch {
		case e.Class64 && src.rela:
			src.ent = 24
		case e.Class64:
			src.ent = 16
		case src.rela:
			src.ent = 12
		default:
			src.ent = 8
		}
		if rs.Size%src.ent != 0 {
			return nil, formatErr(rs.Name, 0, "size %d is not a multiple of the entry size %d", rs.Size, src.ent)
		}
		src.n = rs.Size / src.ent
		if rs.Compressed() {
			b, err := e.loadSectionRaw(rs)
			if err != nil {
				return nil, err
			}
			src.r = bytes.NewReader(b)
		} else {
			src.r = io.NewSectionReader(e.r, int64(rs.Offset), int64(rs.Size))
		}
		// One pass to learn whether offsets ascend, which lets apply
		// stream through the entries once for all windows.
		last := uint64(0)
		for i := uint64(0); i < src.n; i++ {
			r, err := src.entry(e, i)
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
	st, err := e.openSymtab()
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, formatErr(s.Name, 0, "relocations without a symbol table")
	}
	rl.syms = st
	return rl, nil
}

// loadSectionRaw loads a section whole (inflated if compressed) without
// applying relocations; loadSection applies them on top.
func (e *ELF) loadSectionRaw(s *SectionHeader) ([]byte, error) {
	rc, size, err := e.openStream(s)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := readAllBounded(rc, size)
	if err != nil {
		return nil, formatErr(s.Name, uint64(len(b)), "read: %v", err)
	}
	return b, nil
}

func (rl *relocator) sym(i uint32) (symVal, error) {
	if v, ok := rl.cache[i]; ok {
		return v, nil
	}
	s, _, err := rl.syms.entry(i)
	if err != nil {
		return symVal{}, err
	}
	v := symVal{val: s.Value, ok: s.Section != shnUndef && (s.Section < shnLoReserve || s.Section > 0xffff)}
	if len(rl.cache) > 1<<16 {
		clear(rl.cache)
	}
	rl.cache[i] = v
	return v, nil
}

// apply relocates dst, which holds the target section's bytes at offsets
// [base, base+len(dst)). With sorted sources, successive calls must use
// ascending, non-overlapping windows.
func (rl *relocator) apply(dst []byte, base uint64) error {
	end := base + uint64(len(dst))
	for _, src := range rl.srcs {
		i := uint64(0)
		if src.sorted {
			i = src.next
		}
		for ; i < src.n; i++ {
			r, err := src.entry(rl.e, i)
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

func (rl *relocator) one(dst []byte, at uint64, r relEntry, rela bool) error {
	kind, size := rl.e.relocKind(r.typ)
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
	o := rl.e.Order
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
