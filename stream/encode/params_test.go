package encode

import "testing"

// TestParamRegEntryValue checks paramReg on location lists shaped like
// GCC's for 32-bit ARM, without a compiler.
func TestParamRegEntryValue(t *testing.T) {
	pair := []byte{opReg0 + 2, 0x93, 4, opReg0 + 3, 0x93, 4}               // r2 piece 4, r3 piece 4
	regvalType := []byte{opEntryValue, 3, 0xa5, 2, 0x26, opStackValue}     // entry_value(regval_type R2 <0x26>)
	entryReg1 := []byte{opEntryValue, 1, opReg0 + 1, opStackValue}         // entry_value(reg1)
	twoInner := []byte{opEntryValue, 3, opReg0 + 1, 0x94, 4, opStackValue} // entry_value(reg1 deref_size 4): two ops
	list := func(exprs ...[]byte) func(func([]byte) bool) {
		return func(fn func([]byte) bool) {
			for _, e := range exprs {
				if !fn(e) {
					return
				}
			}
		}
	}
	for _, tc := range []struct {
		name  string
		exprs [][]byte
		want  int
	}{
		{"pair only", [][]byte{pair}, -1},
		{"pair then regval_type", [][]byte{pair, regvalType}, 0xa5},
		{"pair then entry reg1", [][]byte{pair, entryReg1}, opReg0 + 1},
		{"two inner ops", [][]byte{pair, twoInner}, -1},
		{"reg1 first", [][]byte{{opReg0 + 1}, regvalType}, opReg0 + 1},
		{"reg0 first, not expected", [][]byte{{opReg0}, regvalType}, 0xa5},
		{"reg later", [][]byte{pair, {opReg0 + 1}}, -1},
	} {
		if got := paramReg(list(tc.exprs...), opReg0+1); got != tc.want {
			t.Errorf("%s: paramReg = %#x, want %#x", tc.name, got, tc.want)
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
