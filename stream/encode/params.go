package encode

import "github.com/btfstream/btfstream/stream/elffile"

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
func regParams(m uint16) (int, [8]int) {
	r := [8]int{-1, -1, -1, -1, -1, -1, -1, -1}
	switch m {
	case elffile.EMS390:
		copy(r[:], []int{opReg0 + 2, opReg0 + 3, opReg0 + 4, opReg0 + 5, opReg0 + 6})
		return 5, r
	case elffile.EMX86_64:
		copy(r[:], []int{opReg0 + 5, opReg0 + 4, opReg0 + 1, opReg0 + 2, opReg0 + 8, opReg0 + 9})
		return 6, r
	case elffile.EMSPARC, elffile.EMSPARCV9:
		return 6, r
	case elffile.EMARM, elffile.EMAARCH64:
		for i := range r {
			r[i] = opReg0 + i
		}
		return 8, r
	case elffile.EMARC, elffile.EMMIPS, elffile.EMPPC, elffile.EMPPC64, elffile.EMRISCV:
		return 8, r
	}
	return 0, r
}

// lebLen is the length of the LEB128 number at the start of b, or -1 if
// it is truncated.
func lebLen(b []byte) int {
	for i, c := range b {
		if c&0x80 == 0 {
			return i + 1
		}
	}
	return -1
}

// opLen is the length in bytes of the DWARF expression operation at the
// start of expr, operands included, or -1 if the opcode is unknown or
// the operands are truncated. Address and section-offset operands are
// taken as 4 bytes wide except DW_OP_addr, which only appears inside an
// entry value in theory; an unknown width there just means a miss.
func opLen(expr []byte) int {
	if len(expr) == 0 {
		return -1
	}
	op := expr[0]
	n := 1
	// leb reads one LEB128 operand.
	leb := func() bool {
		if n > len(expr) {
			return false
		}
		k := lebLen(expr[n:])
		if k < 0 {
			return false
		}
		n += k
		return true
	}
	// block reads a ULEB128 length and that many bytes.
	block := func() bool {
		if n > len(expr) {
			return false
		}
		v, k := uleb(expr[n:])
		if lebLen(expr[n:]) < 0 {
			return false
		}
		n += k
		if v > uint64(len(expr)-n) {
			return false
		}
		n += int(v)
		return true
	}
	fixed := func(k int) bool { n += k; return true }
	var ok bool
	switch {
	case op >= 0x30 && op <= 0x6f, // lit, reg
		op == 0x06, op >= 0x12 && op <= 0x14, op >= 0x16 && op <= 0x27,
		op >= 0x29 && op <= 0x2e, op == 0x96, op == 0x97, op == 0x9b,
		op == 0x9c, op == opStackValue, op == 0xe0, op == 0xf0:
		ok = true
	case op >= opBreg0 && op <= opBreg31, op == opFbreg,
		op == 0x10, op == 0x11, op == 0x23, op == opRegx, op == 0x93,
		op == opAddrx, op == 0xa2, op == 0xa8, op == 0xa9, op == 0xf7,
		op == 0xf9, op == 0xfb, op == 0xfc:
		ok = leb()
	case op == opBregx, op == 0x9d, op == 0xa5, op == 0xf5: // bregx, bit_piece, regval_type
		ok = leb() && leb()
	case op == 0x08, op == 0x09, op == 0x15, op == 0x94, op == 0x95:
		ok = fixed(1)
	case op == 0x0a, op == 0x0b, op == 0x28, op == 0x2f, op == 0x98:
		ok = fixed(2)
	case op == 0x0c, op == 0x0d, op == 0x99, op == 0x9a, op == opAddr, op == 0xfa, op == 0xfd:
		ok = fixed(4)
	case op == 0x0e, op == 0x0f:
		ok = fixed(8)
	case op == 0x9e, op == opEntryValue, op == opGNUEntryVal: // implicit_value, entry_value
		ok = block()
	case op == 0xa0, op == 0xf2: // implicit_pointer
		ok = fixed(4) && leb()
	case op == 0xa4, op == 0xf4: // const_type: type, 1-byte size, bytes
		ok = leb()
		if ok && n < len(expr) {
			sz := int(expr[n])
			n += 1 + sz
		} else {
			ok = false
		}
	case op == 0xa6, op == 0xa7, op == 0xf6: // deref_type
		ok = fixed(1) && leb()
	}
	if !ok || n > len(expr) {
		return -1
	}
	return n
}
