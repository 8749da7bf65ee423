package encode

import "testing"

// x86-64's argument registers, as regParams gives them.
func x86ABI() abi {
	n, r := regParams(62) // EM_X86_64
	return abi{nRegs: n, regs: r, addr: 8, aggTwoRegs: true}
}

// decodeList runs the location decode over a list of expressions.
func decodeList(t *testing.T, size uint16, a *abi, exprs ...[]byte) *paramInfo {
	t.Helper()
	pi := &paramInfo{locReg: noReg, member: -1, typeSize: size, hasLoc: true}
	for i, e := range exprs {
		ops, ok := splitOps(e, a.addr, nil)
		if !ok {
			continue
		}
		pi.decodeLoc(ops, e, i, a)
	}
	return pi
}

// TestDecodeLoc checks pahole 1.32's location decode on location lists
// shaped like GCC's and clang's, without a compiler.
func TestDecodeLoc(t *testing.T) {
	a := x86ABI()
	arm := abi{nRegs: 8, addr: 4, aggTwoRegs: true}
	for i := range arm.regs {
		arm.regs[i] = opReg0 + i
	}
	pair := []byte{opReg0 + 2, opPiece, 4, opReg0 + 3, opPiece, 4}             // r2 piece 4, r3 piece 4
	regvalType := []byte{opEntryValue, 3, 0xa5, 2, 0x26, opStackValue}         // entry_value(regval_type R2 <0x26>)
	entryReg1 := []byte{opEntryValue, 1, opReg0 + 1, opStackValue}             // entry_value(reg1)
	twoInner := []byte{opEntryValue, 3, opReg0 + 1, 0x94, 4, opStackValue}     // entry_value(reg1 deref_size 4)
	bregSV := []byte{opBreg0 + 5, 0, opStackValue}                             // breg5 0, stack_value
	bregOffSV := []byte{opBreg0 + 4, 0x10, opStackValue}                       // breg4 16, stack_value
	fbreg := []byte{opFbreg, 0x70}                                             // fbreg -16
	lit := []byte{opLit0 + 1, opStackValue}                                    // lit1, stack_value
	agg := []byte{opReg0 + 5, opPiece, 8, opReg0 + 4, opPiece, 8}              // rdi piece 8, rsi piece 8
	aggLow := []byte{opReg0 + 5, opPiece, 4, opPiece, 12}                      // first word's low half only
	aggHigh := []byte{opPiece, 8, opReg0 + 4, opPiece, 8}                      // second word only
	narrow := []byte{opReg0 + 5, opPiece, 4}                                   // a 4-byte piece of an int
	constPieces := []byte{opConstu, 3, opStackValue, opPiece, 8, opLit0, 0x9f} // constant parts
	for _, tc := range []struct {
		name          string
		a             *abi
		size          uint16
		exprs         [][]byte
		reg           int16
		stack, cnst   bool
		first, second uint64
	}{
		{"arm pair only", &arm, 8, [][]byte{pair}, opReg0 + 2, false, false, 1, 1},
		{"arm pair then regval_type", &arm, 4, [][]byte{regvalType}, noReg, false, false, 0, 0},
		{"entry reg1 later", &a, 8, [][]byte{fbreg, entryReg1}, opReg0 + 1, true, false, 0, 0},
		{"two inner ops", &a, 8, [][]byte{twoInner}, noReg, false, false, 0, 0},
		{"reg first", &a, 8, [][]byte{{opReg0 + 1}, {opReg0 + 2}}, opReg0 + 1, false, false, 0, 0},
		{"reg later", &a, 8, [][]byte{fbreg, {opReg0 + 1}}, noReg, true, false, 0, 0},
		{"breg stack_value", &a, 8, [][]byte{bregSV}, opReg0 + 5, false, false, 0, 0},
		{"breg offset stack_value", &a, 8, [][]byte{bregOffSV}, opReg0 + 4, false, false, 0, 0},
		{"breg without stack_value", &a, 8, [][]byte{{opBreg0 + 5, 0}}, noReg, false, false, 0, 0},
		{"constant", &a, 8, [][]byte{lit}, noReg, false, true, 0, 0},
		{"aggregate in two registers", &a, 16, [][]byte{agg}, opReg0 + 5, false, false, 1, 1},
		{"aggregate low half, empty piece after", &a, 16, [][]byte{aggLow}, opReg0 + 5, false, false, 0b10001, 0},
		{"aggregate second word", &a, 16, [][]byte{aggHigh}, opReg0 + 4, false, false, 0, 1},
		{"narrow piece", &a, 4, [][]byte{narrow}, opReg0 + 5, false, false, 0, 0},
		{"constant pieces", &a, 16, [][]byte{constPieces}, noReg, false, true, 0, 0},
	} {
		pi := decodeList(t, tc.size, tc.a, tc.exprs...)
		if pi.locReg != tc.reg || pi.locStack != tc.stack || pi.locConst != tc.cnst || pi.first != tc.first || pi.second != tc.second {
			t.Errorf("%s: reg %#x stack %v const %v fields %b/%b, want %#x %v %v %b/%b", tc.name,
				pi.locReg, pi.locStack, pi.locConst, pi.first, pi.second, tc.reg, tc.stack, tc.cnst, tc.first, tc.second)
		}
	}
	for _, tc := range []struct {
		expr []byte
		want int
	}{
		{[]byte{0xa5, 2, 0x26}, 3},
		{[]byte{0xa5, 2}, -1},
		{[]byte{0x93, 0x84, 0x01}, 3},
		{[]byte{0x0e, 1, 2, 3}, -1},
		{[]byte{0xa4, 0x26, 2, 0, 0}, 5},
		{[]byte{opEntryValue, 1, opReg0}, 3},
		{[]byte{0x01}, -1}, // reserved opcode
	} {
		if got := opLen(tc.expr); got != tc.want {
			t.Errorf("opLen(% x) = %d, want %d", tc.expr, got, tc.want)
		}
	}
}

type analyzeCase struct {
	name       string
	ps         []paramInfo
	clang      bool
	optimized  string // per parameter: o optimized, - not
	unexpected string // per parameter: u unexpected, - not
	trueSig    bool   // signature changed, true_signature on
}

// TestAnalyzeParams checks the per-function verdicts: registers counted
// in ABI slots (a 16-byte aggregate takes two, a bigger one goes on the
// stack but still counts one), GCC's optimized parameters, clang's
// unexpected ones only.
func TestAnalyzeParams(t *testing.T) {
	a := x86ABI()
	reg := func(i int) paramInfo {
		return paramInfo{hasLoc: true, locReg: int16(a.regs[i]), typeSize: 8, member: -1}
	}
	noLoc := paramInfo{locReg: noReg, typeSize: 8, member: -1}
	lost := paramInfo{hasLoc: true, locReg: noReg, typeSize: 8, member: -1}
	cnst := paramInfo{hasConst: true, locReg: noReg, typeSize: 8, member: -1}
	agg := paramInfo{hasLoc: true, locReg: int16(a.regs[0]), typeSize: 16, member: -1}
	big := paramInfo{hasLoc: true, locReg: noReg, typeSize: 32, inMemory: true, member: -1}
	var cases []analyzeCase
	for _, tc := range []analyzeCase{
		{"all in place", []paramInfo{reg(0), reg(1), reg(2)}, false, "---", "---", false},
		{"gcc: no location is not optimized", []paramInfo{reg(0), noLoc, reg(2)}, false, "---", "---", false},
		{"gcc: location without register", []paramInfo{reg(0), lost, reg(2)}, false, "-o-", "---", false},
		{"gcc: constant", []paramInfo{cnst, reg(1)}, false, "o-", "--", false},
		{"clang: constant is fine", []paramInfo{cnst, reg(1)}, true, "--", "--", false},
		{"shifted register", []paramInfo{reg(1), reg(2)}, false, "--", "uu", false},
		{"aggregate takes two slots", []paramInfo{agg, reg(2)}, false, "--", "--", false},
		{"aggregate then next in slot two", []paramInfo{agg, reg(1)}, false, "--", "-u", false},
		{"big aggregate counts one slot", []paramInfo{big, reg(1)}, false, "o-", "--", false},
		{"clang skips big aggregates", []paramInfo{big, reg(0)}, true, "--", "--", false},
		{"clang window", []paramInfo{{hasLoc: true, locReg: int16(a.regs[1]), typeSize: 16, member: -1}, reg(2)}, true, "--", "--", false},
		{"clang outside window", []paramInfo{reg(1)}, true, "-", "u", false},
	} {
		tc := tc
		tc.trueSig = false
		cases = append(cases, tc)
	}
	// true_signature on a function whose signature changed (clang's
	// DW_CC_nocall): constants and lost parameters are dropped, stack
	// copies and unknown registers are unexpected, an aggregate reduced to
	// one member takes one register.
	member := paramInfo{hasLoc: true, locReg: int16(a.regs[0]), typeSize: 16, first: 1, member: 7}
	whole := paramInfo{hasLoc: true, locReg: int16(a.regs[0]), typeSize: 16, first: 1, second: 1, member: -1}
	stack := paramInfo{hasLoc: true, locReg: noReg, locStack: true, typeSize: 8, member: -1}
	for _, tc := range []analyzeCase{
		{"ts: constant dropped, next keeps its register", []paramInfo{{hasLoc: true, locConst: true, locReg: noReg, typeSize: 8, member: -1}, reg(0)}, true, "o-", "--", true},
		{"ts: no location dropped", []paramInfo{noLoc, reg(0)}, true, "o-", "--", true},
		{"ts: no location, next in its slot kept", []paramInfo{noLoc, reg(1)}, true, "--", "--", true},
		{"ts: stack copy unexpected", []paramInfo{stack}, true, "-", "u", true},
		{"ts: unknown register unexpected", []paramInfo{lost}, true, "-", "u", true},
		{"ts: one member in one register", []paramInfo{member, reg(1)}, true, "--", "--", true},
		{"ts: whole aggregate in two", []paramInfo{whole, reg(2)}, true, "--", "--", true},
	} {
		cases = append(cases, tc)
	}
	for _, tc := range cases {
		ps := make([]*paramInfo, len(tc.ps))
		for i := range tc.ps {
			p := tc.ps[i]
			ps[i] = &p
		}
		analyzeParams(ps, &a, tc.clang, tc.trueSig, tc.trueSig)
		var o, u []byte
		for _, p := range ps {
			o = append(o, "-o"[b2i(p.optimized)])
			u = append(u, "-u"[b2i(p.unexpected)])
		}
		if string(o) != tc.optimized || string(u) != tc.unexpected {
			t.Errorf("%s: optimized %s unexpected %s, want %s %s", tc.name, o, u, tc.optimized, tc.unexpected)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
