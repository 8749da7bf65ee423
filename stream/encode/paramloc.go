package encode

import (
	"debug/dwarf"
	"math/bits"
)

// Where pahole 1.32 finds a parameter on entry (dwarf_loader's per-parameter
// location decode, then a per-function pass over the ABI's argument
// registers). The verdicts: optimized (a register parameter the function
// does not receive in a register, or a constant), unexpected (in another
// register than the ABI's), and for true_signature the one member of a
// by-value aggregate the function really receives.

const (
	opLit0                           = 0x30
	opLit31                          = 0x4f
	opConstu                         = 0x10
	opConsts                         = 0x11
	opPiece                          = 0x93
	dwCCNocall                       = 0x3
	noReg                            = -1
	fieldBits                        = 64 // pahole's unsigned long on a 64-bit host
	tagGNUAnnot                      = 0x4213
	attrCallingConvention dwarf.Attr = 0x36
)

// paramInfo is what pahole keeps of one parameter for the location
// verdicts (struct parameter's location fields).
type paramInfo struct {
	locReg        int16  // DW_OP_regN the value is in on entry; noReg: unknown
	typeSize      uint16 // byte size of its type (pahole's uint16_t)
	idx           uint8  // its index among its function's parameters (pahole's uint8_t)
	hasLoc        bool
	hasConst      bool // DW_AT_const_value
	locConst      bool // first location is a constant
	locStack      bool // first location is on the frame base
	inMemory      bool // too big for the argument registers
	optimized     bool
	unexpected    bool
	first, second uint64 // bytes of an aggregate held in the first/second register
	member        int32  // true_signature: the member the function receives (-1)
	memberApplied bool   // the member's type replaces the parameter's
}

// abi is what the location verdicts need of the target.
type abi struct {
	nRegs      int
	regs       [8]int
	addr       int  // address size
	aggTwoRegs bool // an aggregate of two words goes in two registers (not s390)
}

// exprOp is one operation of a location expression: its opcode and first
// operand (piece size, register number) if it has one.
type exprOp struct {
	code byte
	num  uint64
}

// splitOps splits a location expression into operations, as libdw does;
// ok is false if an operation cannot be decoded.
func splitOps(expr []byte, addrSize int, ops []exprOp) ([]exprOp, bool) {
	ops = ops[:0]
	for len(expr) > 0 {
		op := expr[0]
		n := opLen(expr)
		if op == opAddr {
			n = 1 + addrSize
		}
		if n < 0 || n > len(expr) {
			return ops, false
		}
		var num uint64
		if n > 1 && op != opAddr {
			num, _ = uleb(expr[1:])
		}
		ops = append(ops, exprOp{op, num})
		expr = expr[n:]
	}
	return ops, true
}

func isRegOp(op byte) bool  { return op >= opReg0 && op <= opReg31 }
func isBregOp(op byte) bool { return op >= opBreg0 && op <= opBreg31 }
func isConstOp(op byte) bool {
	return op >= opLit0 && op <= opLit31 || op == opConstu || op == opConsts
}

func (pi *paramInfo) setReg(op byte) {
	if pi.locReg == noReg {
		pi.locReg = int16(op)
	}
}

// decodeLoc reads one location expression (entry locNum of the list) as
// pahole's parameter__decode_location does. entryReg reads a
// DW_OP_entry_value's inner expression.
func (pi *paramInfo) decodeLoc(ops []exprOp, raw []byte, locNum int, a *abi) {
	if len(ops) == 0 {
		return
	}
	stackValue := ops[len(ops)-1].code == opStackValue
	n := len(ops)
	if n == 2 && stackValue {
		n = 1
	}
	if n != 1 {
		pi.decodePieces(ops[:n], locNum, a)
		return
	}
	op := ops[0].code
	switch {
	case isRegOp(op):
		if locNum == 0 {
			pi.setReg(op)
		}
	case isBregOp(op):
		if locNum == 0 && stackValue {
			pi.setReg(op - opBreg0 + opReg0)
		}
	case op == opFbreg:
		if locNum == 0 {
			pi.locStack = true
		}
	case isConstOp(op):
		if locNum == 0 {
			pi.locConst = true
		}
	case op == opEntryValue || op == opGNUEntryVal:
		v, k := uleb(raw[1:])
		if uint64(len(raw)-1-k) < v {
			return
		}
		inner := raw[1+k : 1+k+int(v)]
		if len(inner) > 0 && isRegOp(inner[0]) && opLen(inner) == len(inner) {
			pi.setReg(inner[0])
		}
	}
}

// decodePieces is pahole's parameter__multi_exprs: an expression of
// several operations (pieces of an aggregate, a register with an offset).
func (pi *paramInfo) decodePieces(ops []exprOp, locNum int, a *abi) {
	op := ops[0].code
	if isConstOp(op) {
		if locNum == 0 {
			pi.locConst = true
		}
		return
	}
	if int(pi.typeSize) <= a.addr || !a.aggTwoRegs {
		switch {
		case isRegOp(op):
			if locNum == 0 {
				pi.setReg(op)
			}
		case isBregOp(op):
			if locNum == 0 {
				for _, o := range ops[1:] {
					if o.code == opStackValue {
						pi.setReg(op - opBreg0 + opReg0)
						break
					}
				}
			}
		}
		return
	}
	off := 0
	for i, o := range ops {
		switch {
		case o.code == opPiece:
			if i == 0 {
				off = int(o.num)
				continue
			}
			if off < a.addr {
				setField(&pi.first, off)
			} else {
				setField(&pi.second, off-a.addr)
			}
			off += int(o.num)
		case isRegOp(o.code):
			pi.setReg(o.code)
		}
	}
}

func setField(f *uint64, off int) {
	if off >= 0 && off < fieldBits {
		*f |= 1 << off
	}
}

// typeByteSize is pahole's get_type_byte_size: the parameter's type size
// (through its abstract origin), pointers the address size, typedefs and
// qualifiers followed while there is no byte size.
func (c *cuConv) typeByteSize(p int32) int {
	t := c.t
	if t.has(p, dwarf.AttrAbstractOrigin) {
		if p = t.ref(p, dwarf.AttrAbstractOrigin); p < 0 {
			return 0
		}
	}
	for n := 0; n < 64; n++ {
		j := t.ref(p, dwarf.AttrType)
		if j < 0 {
			return 0
		}
		if t.tag(j) == dwarf.TagPointerType {
			return int(c.addr)
		}
		if sz := t.num(j, dwarf.AttrByteSize); sz != 0 {
			return int(sz)
		}
		p = j
	}
	return 0
}

// memberAt is pahole's get_member_with_offset: the member at byte offset
// off of the struct the parameter p's type names (-1 if none).
func (c *cuConv) memberAt(p int32, off int) int32 {
	t := c.t
	for n := 0; n < 64; n++ {
		j := t.ref(p, dwarf.AttrType)
		if j < 0 {
			return -1
		}
		if t.num(j, dwarf.AttrByteSize) == 0 {
			p = j
			continue
		}
		if t.tag(j) != dwarf.TagStructType {
			return -1
		}
		found := int32(-1)
		t.children(j, func(m int32) {
			if found >= 0 || t.tag(m) != dwarf.TagMember {
				return
			}
			var bitOff uint64
			if v, ok := t.udata(m, dwarf.AttrDataBitOffset); ok {
				bitOff = v
			} else if v, ok := c.memberLocation(m); ok {
				bitOff = v * 8
			} else {
				return
			}
			if bitOff == uint64(off)*8 {
				found = m
			}
		})
		return found
	}
	return -1
}

// memberLocation reads DW_AT_data_member_location as a constant or a
// DW_OP_plus_uconst expression.
func (c *cuConv) memberLocation(m int32) (uint64, bool) {
	at, ok := c.t.attr(m, dwarf.AttrDataMemberLoc)
	if !ok {
		return 0, false
	}
	switch at.Class() {
	case dwarf.ClassConstant:
		return at.Val, true
	case dwarf.ClassExprLoc, dwarf.ClassBlock:
		b := at.Block()
		if len(b) > 1 && b[0] == 0x23 {
			v, _ := uleb(b[1:])
			return v, true
		}
		return 0, true
	}
	return 0, false
}

// finishPieces is pahole's parameter__finish_piece_decode: an aggregate
// of which exactly one field arrives in exactly one register names that
// member (named parameters only).
func (c *cuConv) finishPieces(pi *paramInfo, p int32, named bool) {
	first, second := pi.first, pi.second
	if first == 0 && second == 0 || first != 0 && second != 0 {
		return
	}
	if bits.OnesCount64(first) >= 2 || bits.OnesCount64(second) >= 2 {
		return
	}
	off := bits.TrailingZeros64(first)
	if first == 0 {
		off = int(c.addr) + bits.TrailingZeros64(second)
	}
	if pi.member >= 0 || !named {
		return
	}
	m := c.memberAt(p, off)
	if m < 0 || !c.t.has(m, dwarf.AttrName) || c.t.str(m, dwarf.AttrName) == "" || c.t.ref(m, dwarf.AttrType) < 0 {
		return
	}
	pi.member = m
}

// abiSlots is how many argument registers the parameter takes.
func (pi *paramInfo) abiSlots(a *abi) int {
	if !a.aggTwoRegs || int(pi.typeSize) <= a.addr {
		return 1
	}
	return max((int(pi.typeSize)+a.addr-1)/a.addr, 1)
}

func (pi *paramInfo) inWindow(reg, slots int, a *abi) bool {
	for i := 0; i < slots; i++ {
		if reg+i >= a.nRegs {
			break
		}
		if int(pi.locReg) == a.regs[reg+i] {
			return true
		}
	}
	return false
}

// analyzeParams is pahole's function__analyze_parameter_locations for one
// function's parameters (in order): it sets optimized and unexpected, and
// with trueSig (true_signature on a function whose signature changed)
// picks the member an aggregate is reduced to.
func analyzeParams(ps []*paramInfo, a *abi, clang, sigChanged, trueSig bool) {
	if clang && !sigChanged {
		reg := 0
		for _, p := range ps {
			slots := p.abiSlots(a)
			if p.inMemory {
				continue
			}
			if reg >= a.nRegs {
				break
			}
			if p.locReg != noReg && !p.inWindow(reg, slots, a) {
				p.unexpected = true
			}
			reg += slots
		}
		return
	}
	// nextKeeps: the next parameter arrives where the ABI puts it after
	// this one's slots (the aggregate is whole).
	nextKeeps := func(k, reg, slots int) bool {
		if k+1 >= len(ps) || ps[k+1].locReg == noReg {
			return false
		}
		r := reg + slots
		return r < a.nRegs && int(ps[k+1].locReg) == a.regs[r]
	}
	reg := 0
	for k, p := range ps {
		consumes := true
		avail := reg < a.nRegs
		slots := p.abiSlots(a)
		expected := -1
		if avail {
			expected = a.regs[reg]
		}
		regSlots := slots
		if p.inMemory {
			regSlots = 1
		}
		switch {
		case p.hasLoc:
			switch {
			case trueSig && p.locConst:
				p.optimized, consumes = true, false
			case !avail:
				consumes = false
			case trueSig && p.locStack:
				if p.inMemory {
					consumes = false
				} else {
					p.unexpected = true
				}
			case p.locReg == noReg:
				if trueSig {
					p.unexpected = true
				} else {
					p.optimized = true
				}
			case expected >= 0 && expected != int(p.locReg):
				p.unexpected = true
			case trueSig && (p.first != 0 || p.second != 0):
				if p.first != 0 && p.second != 0 {
					reg += slots
					continue
				}
				if nextKeeps(k, reg, slots) {
					p.member = -1
					reg += slots
					continue
				}
				if p.member >= 0 {
					p.memberApplied = true
					reg++
					continue
				}
			}
		case p.hasConst && !clang:
			p.optimized = true
		case trueSig:
			if avail && nextKeeps(k, reg, slots) {
				reg += slots
				continue
			}
			p.optimized, consumes = true, false
		}
		if consumes {
			reg += regSlots
		}
	}
}

// decodeParam reads parameter p's DW_AT_location (an expression or a
// location list) into pi.
func (fc *funcCtx) decodeParam(t *encTree, p int32, pi *paramInfo, up *unitParams) {
	f, ok := t.attr(p, dwarf.AttrLocation)
	if !ok {
		return
	}
	pi.hasLoc = true
	locNum := 0
	one := func(expr []byte) bool {
		var ok bool
		up.ops, ok = splitOps(expr, fc.abi.addr, up.ops)
		if ok {
			pi.decodeLoc(up.ops, expr, locNum, &fc.abi)
		}
		locNum++
		return true
	}
	switch f.Class() {
	case dwarf.ClassExprLoc, dwarf.ClassBlock:
		one(f.Block())
	case dwarf.ClassLocListPtr, dwarf.ClassLocList:
		off := f.Val
		v5 := t.cu.Version() >= 5
		if f.Class() == dwarf.ClassLocList {
			base := t.cu.LoclistsBase()
			if base == 0 {
				base = 12
			}
			o, ok := fc.locs.LoclistsOffset(base, off)
			if !ok {
				return
			}
			off, v5 = o, true
		}
		fc.locs.Exprs(&t.locPages, off, v5, one)
	}
}
