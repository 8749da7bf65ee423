package dwarfread

import (
	"encoding/binary"

	"github.com/btfstream/btfstream/stream/elffile"
)

// A tiny ELF and DWARF assembler for exact byte sequences in tests and
// fuzz seeds.

type asm struct {
	order binary.ByteOrder
	b     []byte
}

func (a *asm) u8(v uint8) *asm            { a.b = append(a.b, v); return a }
func (a *asm) ao() binary.AppendByteOrder { return a.order.(binary.AppendByteOrder) }
func (a *asm) u16(v uint16) *asm          { a.b = a.ao().AppendUint16(a.b, v); return a }
func (a *asm) u32(v uint32) *asm          { a.b = a.ao().AppendUint32(a.b, v); return a }
func (a *asm) u64(v uint64) *asm          { a.b = a.ao().AppendUint64(a.b, v); return a }
func (a *asm) str(s string) *asm          { a.b = append(append(a.b, s...), 0); return a }
func (a *asm) raw(p ...byte) *asm {
	a.b = append(a.b, p...)
	return a
}
func (a *asm) uleb(v uint64) *asm {
	for {
		c := uint8(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		a.b = append(a.b, c)
		if v == 0 {
			return a
		}
	}
}

type tsec struct {
	name    string
	typ     uint32
	flags   uint64
	data    []byte
	link    uint32
	info    uint32
	entsize uint64
}

// buildELF lays out an ELF file: header, section contents, .shstrtab,
// section header table.
func buildELF(class64 bool, order binary.ByteOrder, etype uint16, machine uint16, secs []tsec) []byte {
	a := &asm{order: order}
	ehsize, shentsize := 52, 40
	if class64 {
		ehsize, shentsize = 64, 64
	}
	a.b = make([]byte, ehsize)
	copy(a.b, "\x7fELF")
	if class64 {
		a.b[4] = 2
	} else {
		a.b[4] = 1
	}
	if order == binary.LittleEndian {
		a.b[5] = 1
	} else {
		a.b[5] = 2
	}
	a.b[6] = 1
	all := append([]tsec{{}}, secs...)
	var shstr asm
	shstr.b = []byte{0}
	nameOff := make([]uint32, len(all)+1)
	dataOff := make([]uint64, len(all)+1)
	for i := 1; i < len(all); i++ {
		nameOff[i] = uint32(len(shstr.b))
		shstr.str(all[i].name)
	}
	nameOff[len(all)] = uint32(len(shstr.b))
	shstr.str(".shstrtab")
	all = append(all, tsec{name: ".shstrtab", typ: 3, data: shstr.b})
	for i := 1; i < len(all); i++ {
		for len(a.b)%8 != 0 {
			a.b = append(a.b, 0)
		}
		dataOff[i] = uint64(len(a.b))
		a.b = append(a.b, all[i].data...)
	}
	for len(a.b)%8 != 0 {
		a.b = append(a.b, 0)
	}
	shoff := uint64(len(a.b))
	for i, s := range all {
		if class64 {
			a.u32(nameOff[i]).u32(s.typ).u64(s.flags).u64(0).u64(dataOff[i]).u64(uint64(len(s.data))).
				u32(s.link).u32(s.info).u64(1).u64(s.entsize)
		} else {
			a.u32(nameOff[i]).u32(s.typ).u32(uint32(s.flags)).u32(0).u32(uint32(dataOff[i])).u32(uint32(len(s.data))).
				u32(s.link).u32(s.info).u32(1).u32(uint32(s.entsize))
		}
	}
	h := &asm{order: order}
	h.u16(etype).u16(machine).u32(1)
	if class64 {
		h.u64(0).u64(0).u64(shoff).u32(0).u16(uint16(ehsize)).u16(0).u16(0).u16(uint16(shentsize)).u16(uint16(len(all))).u16(uint16(len(all) - 1))
	} else {
		h.u32(0).u32(0).u32(uint32(shoff)).u32(0).u16(uint16(ehsize)).u16(0).u16(0).u16(uint16(shentsize)).u16(uint16(len(all))).u16(uint16(len(all) - 1))
	}
	copy(a.b[16:], h.b)
	return a.b
}

// dwarfELF wraps a .debug_abbrev, .debug_info and .debug_str into an
// ET_EXEC x86-64 ELF64 file.
func dwarfELF(order binary.ByteOrder, abbrev, info, str []byte) []byte {
	return buildELF(true, order, 2, elffile.EMX86_64, []tsec{
		{name: ".debug_abbrev", typ: 1, data: abbrev},
		{name: ".debug_info", typ: 1, data: info},
		{name: ".debug_str", typ: 1, flags: 0x30, data: str},
	})
}

// sampleDWARF returns a small DWARF 4 unit: a compile unit (C11) with a
// base type, a structure with one member, and a variable using
// DW_FORM_indirect, plus its abbreviations and string section.
func sampleDWARF(order binary.ByteOrder, lang uint16) (abbrev, info, str []byte) {
	s := &asm{order: order}
	s.str("int").str("point")
	ab := &asm{order: order}
	// 1: compile_unit, children: producer(string) language(data2) name(strp)
	ab.uleb(1).uleb(0x11).u8(1).uleb(0x25).uleb(formString).uleb(0x13).uleb(formData2).uleb(0x03).uleb(formStrp).uleb(0).uleb(0)
	// 2: base_type: name(strp) byte_size(data1) encoding(data1)
	ab.uleb(2).uleb(0x24).u8(0).uleb(0x03).uleb(formStrp).uleb(0x0b).uleb(formData1).uleb(0x3e).uleb(formData1).uleb(0).uleb(0)
	// 3: structure_type, children: name(strp) byte_size(udata)
	ab.uleb(3).uleb(0x13).u8(1).uleb(0x03).uleb(formStrp).uleb(0x0b).uleb(formUdata).uleb(0).uleb(0)
	// 4: member: name(string) type(ref4) data_member_location(sdata)
	ab.uleb(4).uleb(0x0d).u8(0).uleb(0x03).uleb(formString).uleb(0x49).uleb(formRef4).uleb(0x38).uleb(formSdata).uleb(0).uleb(0)
	// 5: variable: name(indirect) type(ref_addr) external(flag_present) location(exprloc)
	ab.uleb(5).uleb(0x34).u8(0).uleb(0x03).uleb(formIndirect).uleb(0x49).uleb(formRefAddr).uleb(0x3f).uleb(formFlagPresent).uleb(0x02).uleb(formExprloc).uleb(0).uleb(0)
	ab.uleb(0)
	body := &asm{order: order}
	body.u16(4).u32(0).u8(8) // version, abbrev offset, address size
	body.uleb(1).str("test-cc").u16(lang).u32(0)
	intOff := uint32(4 + len(body.b))
	body.uleb(2).u32(0).u8(4).u8(5)
	body.uleb(3).u32(4).uleb(8)
	body.uleb(4).str("x").u32(intOff).raw(0)
	body.uleb(4).str("y").u32(intOff).raw(4)
	body.u8(0)
	body.uleb(5).uleb(formString).str("v").u32(intOff).uleb(2).raw(0x30, 0x9f)
	body.u8(0)
	in := &asm{order: order}
	in.u32(uint32(len(body.b))).raw(body.b...)
	return ab.b, in.b, s.b
}
