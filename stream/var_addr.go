package stream

import (
	"debug/dwarf"
	"debug/elf"
)

// addrTable is .debug_addr, with relocations applied for ET_REL files, to
// resolve DW_OP_addrx in variable locations.
type addrTable struct {
	data []byte
	f    *elf.File
	size int
}

func newAddrTable(f *elf.File, syms []elf.Symbol, size int) *addrTable {
	a := &addrTable{f: f, size: size}
	s := f.Section(".debug_addr")
	if s == nil {
		return a
	}
	data, err := s.Data()
	if err != nil {
		return a
	}
	a.data = data
	if f.Type != elf.ET_REL {
		return a
	}
	for _, r := range f.Sections {
		if r.Type != elf.SHT_RELA || int(r.Info) >= len(f.Sections) || f.Sections[r.Info] != s {
			continue
		}
		rd, err := r.Data()
		if err != nil {
			return a
		}
		ent := 24
		if f.Class == elf.ELFCLASS32 {
			ent = 12
		}
		for p := 0; p+ent <= len(rd); p += ent {
			var off, info uint64
			var add int64
			if ent == 24 {
				off, info, add = f.ByteOrder.Uint64(rd[p:]), f.ByteOrder.Uint64(rd[p+8:]), int64(f.ByteOrder.Uint64(rd[p+16:]))
			} else {
				off, info, add = uint64(f.ByteOrder.Uint32(rd[p:])), uint64(f.ByteOrder.Uint32(rd[p+4:])), int64(int32(f.ByteOrder.Uint32(rd[p+8:])))
				info = info>>8<<32 | info&0xff
			}
			si := int(info >> 32)
			var v uint64
			if si > 0 && si <= len(syms) {
				v = syms[si-1].Value
			}
			v += uint64(add)
			if ent == 24 && int(off)+8 <= len(a.data) {
				f.ByteOrder.PutUint64(a.data[off:], v)
			} else if int(off)+4 <= len(a.data) {
				f.ByteOrder.PutUint32(a.data[off:], uint32(v))
			}
		}
	}
	return a
}

// lookup returns entry index of the table at base.
func (a *addrTable) lookup(base, index uint64) (uint64, bool) {
	p := base + index*uint64(a.size)
	if p+uint64(a.size) > uint64(len(a.data)) {
		return 0, false
	}
	if a.size == 8 {
		return a.f.ByteOrder.Uint64(a.data[p:]), true
	}
	return uint64(a.f.ByteOrder.Uint32(a.data[p:])), true
}

// addrBase is the unit's DW_AT_addr_base (8, the DWARF 5 header size, if absent).
func addrBase(t *encTree) uint64 {
	if v, ok := t.udata(0, dwarf.AttrAddrBase); ok {
		return v
	}
	return 8
}
