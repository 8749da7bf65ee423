package encode

import "strings"

// funcSyms keeps, for each function name of elfFuncs, the address and the
// '.' suffix (".isra.0", ".constprop.0", ...) of each of its symbols, in
// symbol order: pahole 1.32 compares a function's DW_AT_low_pc with them
// (the strong definition is the one at a symbol's address; a symbol with
// an .isra/.constprop suffix says the compiler changed the function's
// ABI; true_signature names a FUNC after its suffixed symbol). Most names
// have one symbol without a suffix: that costs 4 bytes (the address as an
// offset from the lowest one, 8 where that does not fit); the others sit
// in a short sorted list. Read-only after build.
type funcSyms struct {
	base  uint64
	lo    []uint32 // by name: first symbol's address - base (low half)
	hi    []uint32 // by name: the high half, nil if every offset fits
	extra []symExtra
	sfx   []string // suffix i+1
}

// symExtra is a symbol other than its name's first, or a first one with
// a suffix. Size: 16 bytes.
type symExtra struct {
	name   uint32
	ord    uint16 // symbol's rank among its name's
	suffix uint16 // 0: none
	addr   uint64
}

// funcSym is one symbol of a function name.
type funcSym struct {
	addr   uint64
	suffix string // "" or from the first '.'
}

// optimized reports the suffixes pahole 1.32 reads as a changed ABI.
func (s funcSym) optimized() bool {
	return strings.Contains(s.suffix, ".constprop") || strings.Contains(s.suffix, ".isra")
}

// suffixes interns symbol suffixes (index+1; 0 is none).
type suffixes struct {
	list []string
	idx  map[string]uint32
}

func (s *suffixes) intern(sfx string) uint32 {
	if i, ok := s.idx[sfx]; ok {
		return i
	}
	if s.idx == nil {
		s.idx = make(map[string]uint32)
	}
	sfx = strings.Clone(sfx) // the caller's may be borrowed
	s.list = append(s.list, sfx)
	s.idx[sfx] = uint32(len(s.list))
	return uint32(len(s.list))
}

type funcSymsBuilder struct {
	addrs []uint64
	extra []symExtra
	ord   uint16
}

// add records a symbol of name index name (new: its first).
func (b *funcSymsBuilder) add(name uint32, first bool, addr uint64, sfx uint32) {
	if first {
		b.addrs = append(b.addrs, addr)
		b.ord = 0
	} else if b.ord < ^uint16(0) {
		b.ord++
	}
	if !first || sfx != 0 {
		b.extra = append(b.extra, symExtra{name: name, ord: b.ord, suffix: uint16(min(sfx, 0xffff)), addr: addr})
	}
}

func (b *funcSymsBuilder) finish(sfx suffixes) funcSyms {
	fs := funcSyms{extra: append([]symExtra(nil), b.extra...), sfx: sfx.list}
	if len(b.addrs) == 0 {
		return fs
	}
	fs.base = b.addrs[0]
	for _, a := range b.addrs {
		fs.base = min(fs.base, a)
	}
	fs.lo = make([]uint32, len(b.addrs))
	for i, a := range b.addrs {
		d := a - fs.base
		fs.lo[i] = uint32(d)
		if d>>32 != 0 {
			if fs.hi == nil {
				fs.hi = make([]uint32, len(b.addrs))
			}
			fs.hi[i] = uint32(d >> 32)
		}
	}
	return fs
}

// each calls fn with the symbols of name i in symbol order until fn
// returns false.
func (fs *funcSyms) each(i uint32, fn func(s funcSym) bool) {
	if int(i) >= len(fs.lo) {
		return
	}
	d := uint64(fs.lo[i])
	if fs.hi != nil {
		d |= uint64(fs.hi[i]) << 32
	}
	// The extra records of name i.
	lo, hi := 0, len(fs.extra)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if fs.extra[m].name < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	k := lo
	first := funcSym{addr: fs.base + d}
	if k < len(fs.extra) && fs.extra[k].name == i && fs.extra[k].ord == 0 {
		first.suffix = fs.suffix(fs.extra[k].suffix)
		k++
	}
	if !fn(first) {
		return
	}
	for ; k < len(fs.extra) && fs.extra[k].name == i; k++ {
		e := &fs.extra[k]
		if !fn(funcSym{addr: e.addr, suffix: fs.suffix(e.suffix)}) {
			return
		}
	}
}

// nth returns symbol ord of name i.
func (fs *funcSyms) nth(i uint32, ord int) funcSym {
	var got funcSym
	k := 0
	fs.each(i, func(s funcSym) bool {
		if k == ord {
			got = s
			return false
		}
		k++
		return true
	})
	return got
}

func (fs *funcSyms) suffix(i uint16) string {
	if i == 0 || int(i) > len(fs.sfx) {
		return ""
	}
	return fs.sfx[i-1]
}

func (fs *funcSyms) bytesSize() int64 {
	return 4*int64(cap(fs.lo)+cap(fs.hi)) + 16*int64(cap(fs.extra)) + 16*int64(len(fs.sfx))
}

// TrueName returns function i's symbol of rank r (FuncState.TrueSym-1)
// with its suffix, appended to buf[:0].
func (es *Symbols) TrueName(i uint32, r int, buf []byte) []byte {
	fs := &es.funcs
	buf = fs.names.appendName(buf[:0], int(i))
	return append(buf, fs.syms.nth(i, r).suffix...)
}
