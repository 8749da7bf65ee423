package stream

import (
	"debug/elf"
	"encoding/binary"
)

// DWARF expression opcodes used to judge parameter locations.
const (
	opAddr        = 0x03
	opAddrx       = 0xa1
	opReg0        = 0x50
	opReg31       = 0x6f
	opBreg0       = 0x70
	opBreg31      = 0x8f
	opRegx        = 0x90
	opFbreg       = 0x91
	opBregx       = 0x92
	opStackValue  = 0x9f
	opEntryValue  = 0xa3
	opGNUEntryVal = 0xf3
)

// regParams returns how many parameters the ABI passes in registers and
// the DW_OP_regN each arrives in (-1: unknown), as pahole's
// arch__set_register_params.
func regParams(m elf.Machine) (int, [8]int) {
	r := [8]int{-1, -1, -1, -1, -1, -1, -1, -1}
	switch m {
	case elf.EM_S390:
		copy(r[:], []int{opReg0 + 2, opReg0 + 3, opReg0 + 4, opReg0 + 5, opReg0 + 6})
		return 5, r
	case elf.EM_X86_64:
		copy(r[:], []int{opReg0 + 5, opReg0 + 4, opReg0 + 1, opReg0 + 2, opReg0 + 8, opReg0 + 9})
		return 6, r
	case elf.EM_SPARC, elf.EM_SPARCV9:
		return 6, r
	case elf.EM_ARM, elf.EM_AARCH64:
		for i := range r {
			r[i] = opReg0 + i
		}
		return 8, r
	case elf.EM_ARC, elf.EM_MIPS, elf.EM_PPC, elf.EM_PPC64, elf.EM_RISCV:
		return 8, r
	}
	return 0, r
}

// locLists reads location lists (.debug_loc for DWARF 2-4, .debug_loclists
// for DWARF 5) just far enough to list each entry's expression.
type locLists struct {
	loc, loclists []byte
	order         binary.ByteOrder
	addr          int
}

func newLocLists(f *elf.File) *locLists {
	l := &locLists{order: f.ByteOrder, addr: 8}
	if f.Class == elf.ELFCLASS32 {
		l.addr = 4
	}
	if s := f.Section(".debug_loc"); s != nil {
		l.loc, _ = s.Data()
	}
	if s := f.Section(".debug_loclists"); s != nil {
		l.loclists, _ = s.Data()
	}
	return l
}

// exprs calls fn with each location expression of the list at off, in
// order; fn returns false to stop. v5 selects the .debug_loclists format.
func (l *locLists) exprs(off uint64, v5 bool, fn func(expr []byte) bool) {
	if v5 {
		l.exprs5(off, fn)
		return
	}
	b := l.loc
	for off+uint64(2*l.addr) <= uint64(len(b)) {
		var lo, hi uint64
		if l.addr == 8 {
			lo, hi = l.order.Uint64(b[off:]), l.order.Uint64(b[off+8:])
		} else {
			lo, hi = uint64(l.order.Uint32(b[off:])), uint64(l.order.Uint32(b[off+4:]))
		}
		off += uint64(2 * l.addr)
		if lo == 0 && hi == 0 {
			return
		}
		if (l.addr == 8 && lo == ^uint64(0)) || (l.addr == 4 && lo == 0xffffffff) {
			continue // base address selection
		}
		if off+2 > uint64(len(b)) {
			return
		}
		n := uint64(l.order.Uint16(b[off:]))
		off += 2
		if off+n > uint64(len(b)) {
			return
		}
		if !fn(b[off : off+n]) {
			return
		}
		off += n
	}
}

func (l *locLists) exprs5(off uint64, fn func(expr []byte) bool) {
	b := l.loclists
	u := func() uint64 {
		if off >= uint64(len(b)) {
			off = uint64(len(b))
			return 0
		}
		v, n := uleb(b[off:])
		off += uint64(n)
		return v
	}
	expr := func() ([]byte, bool) {
		n := u()
		if off+n > uint64(len(b)) {
			return nil, false
		}
		e := b[off : off+n]
		off += n
		return e, true
	}
	for off < uint64(len(b)) {
		kind := b[off]
		off++
		switch kind {
		case 0: // end_of_list
			return
		case 1: // base_addressx
			u()
			continue
		case 2, 3, 4: // startx_endx, startx_length, offset_pair
			u()
			u()
		case 5: // default_location
		case 6: // base_address
			off += uint64(l.addr)
			continue
		case 7: // start_end
			off += uint64(2 * l.addr)
		case 8: // start_length
			off += uint64(l.addr)
			u()
		default:
			return
		}
		e, ok := expr()
		if !ok || !fn(e) {
			return
		}
	}
}

// loclistsOffset resolves a DW_FORM_loclistx index through the offsets
// table at base (DW_AT_loclists_base).
func (l *locLists) loclistsOffset(base, index uint64) (uint64, bool) {
	p := base + 4*index
	if p+4 > uint64(len(l.loclists)) {
		return 0, false
	}
	return base + uint64(l.order.Uint32(l.loclists[p:])), true
}

// singleOp returns the first operation of expr and its operand bytes if
// the expression is exactly one operation, ignoring a trailing
// DW_OP_stack_value.
func singleOp(expr []byte) (op byte, operand []byte, ok bool) { return oneOp(expr, true) }

// oneOp is singleOp with the stack_value rule optional.
func oneOp(expr []byte, stripStackValue bool) (op byte, operand []byte, ok bool) {
	if len(expr) == 0 {
		return 0, nil, false
	}
	op = expr[0]
	n := 1
	switch {
	case op >= opReg0 && op <= opReg31:
	case op >= opBreg0 && op <= opBreg31, op == opFbreg, op == opRegx:
		_, k := uleb(expr[1:])
		n += k
	case op == opBregx:
		_, k := uleb(expr[1:])
		_, k2 := uleb(expr[1+k:])
		n += k + k2
	case op == opEntryValue || op == opGNUEntryVal:
		v, k := uleb(expr[1:])
		n += k + int(v)
	default:
		return 0, nil, false
	}
	if n > len(expr) {
		return 0, nil, false
	}
	rest := expr[n:]
	if stripStackValue && len(rest) == 1 && rest[0] == opStackValue {
		rest = nil
	}
	if len(rest) != 0 {
		return 0, nil, false
	}
	return op, expr[1:n], true
}

// paramReg is pahole's parameter__reg: the register a parameter is in on
// entry judging by its location list: a DW_OP_regN as the first location,
// or DW_OP_entry_value(DW_OP_regN) anywhere; it stops early at the
// expected register. -1 if no register was found.
func paramReg(each func(fn func(expr []byte) bool), expected int) int {
	ret := -1
	locNum := -1
	each(func(expr []byte) bool {
		locNum++
		op, operand, ok := singleOp(expr)
		if !ok {
			return true
		}
		switch {
		case op >= opReg0 && op <= opReg31:
			if locNum != 0 {
				return true
			}
			ret = int(op)
		case op == opEntryValue || op == opGNUEntryVal:
			_, k := uleb(operand)
			sub := operand[k:]
			sop, _, ok := oneOp(sub, false)
			if !ok {
				return true
			}
			ret = int(sop)
		default:
			return true
		}
		return ret != expected
	})
	return ret
}
