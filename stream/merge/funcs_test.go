package merge

import (
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/encode"
)

// TestPick walks pahole 1.32's choices for one name's saved states: the
// state at a symbol's address wins (strong over weak definitions),
// optimized parameters drop a name only where the ABI changed, reordered
// parameters and unexpected registers drop it, true_signature takes the
// first trustworthy state at a suffixed symbol.
func TestPick(t *testing.T) {
	s := btf.NewSpec()
	intT := s.Add(btf.Type{NameOff: s.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4},
		btf.MakeIntInfo(btf.IntSigned, 0, 32))
	longT := s.Add(btf.Type{NameOff: s.Strings().Add("long"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 8},
		btf.MakeIntInfo(btf.IntSigned, 0, 64))
	ptrInt := s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(intT)})
	st := func(fl encode.FuncFlags, trueSym uint16, params ...btf.TypeID) encode.FuncState {
		f := encode.FuncState{Ret: intT, Flags: fl, TrueSym: trueSym}
		for _, p := range params {
			f.Params = append(f.Params, encode.FuncParam{Type: p})
		}
		return f
	}
	const (
		at    = encode.FuncAtSymbol
		opt   = encode.FuncOptimizedParms
		optSy = encode.FuncOptimizedSym
		unexp = encode.FuncUnexpected
		unc   = encode.FuncUncertain
		reord = encode.FuncReordered
		addr  = encode.FuncHasAddr
	)
	kbuild := funcOpts{consistent: true}
	ts := funcOpts{consistent: true, trueSig: true}
	for _, tc := range []struct {
		name      string
		g         []encode.FuncState
		ambiguous bool
		o         funcOpts
		want      int
		wantTrue  bool
	}{
		{"one state", []encode.FuncState{st(0, 0, intT)}, false, kbuild, 0, false},
		{"strong definition second", []encode.FuncState{st(0, 0, intT), st(at, 0, intT)}, false, kbuild, 1, false},
		{"no state at a symbol: the first", []encode.FuncState{st(0, 0, intT), st(0, 0, intT)}, false, kbuild, 0, false},
		{"optimized parameters, same ABI: kept", []encode.FuncState{st(opt|at, 0, intT)}, false, kbuild, 0, false},
		{"optimized parameters of an .isra clone: dropped", []encode.FuncState{st(opt|optSy|at, 0, intT)}, false, kbuild, -1, false},
		{"abstract instance and .isra clone: the clone decides", []encode.FuncState{st(opt, 0, intT), st(opt|optSy|at, 0, intT)}, false, kbuild, -1, false},
		{"a kept state at a symbol after a changed one", []encode.FuncState{st(opt|optSy|at, 0, intT), st(at, 0, intT)}, false, kbuild, 1, false},
		{"reordered anywhere drops", []encode.FuncState{st(at, 0, intT), st(reord, 0, intT)}, false, kbuild, -1, false},
		{"unexpected register drops", []encode.FuncState{st(unexp|at, 0, intT)}, false, kbuild, -1, false},
		{"unexpected drops without consistent_func too", []encode.FuncState{st(unexp|at, 0, intT)}, false, funcOpts{}, -1, false},
		{"prototypes differ", []encode.FuncState{st(at, 0, intT), st(0, 0, longT)}, false, kbuild, -1, false},
		{"prototypes differ, consistent_func off", []encode.FuncState{st(at, 0, intT), st(0, 0, longT)}, false, funcOpts{}, 0, false},
		{"parameter types compared, not the return type twice", []encode.FuncState{st(at, 0, intT, ptrInt), st(0, 0, intT, longT)}, false, kbuild, -1, false},
		{"ambiguous address drops", []encode.FuncState{st(at, 0, intT)}, true, kbuild, -1, false},
		{"true_signature: the suffixed symbol", []encode.FuncState{st(opt, 0, intT), st(opt|optSy|at, 2, intT)}, false, ts, 1, true},
		{"true_signature: optimized parameters never drop", []encode.FuncState{st(opt|optSy|at, 0, intT)}, false, ts, 0, false},
		{"true_signature ignores ambiguity and reordering", []encode.FuncState{st(reord|at, 1, intT)}, true, ts, 0, true},
		{"true_signature: an earlier unexpected register spoils later states", []encode.FuncState{st(unexp, 0, intT), st(at, 1, intT)}, false, ts, -1, false},
		{"true_signature: a later unexpected register spoils state 0", []encode.FuncState{st(at, 1, intT), st(unexp, 0, intT), st(at, 1, intT)}, false, ts, -1, false},
		{"true_signature: but not the states before it", []encode.FuncState{st(0, 0, intT), st(at, 1, intT), st(unexp, 0, intT)}, false, ts, 1, true},
		{"true_signature: states without an address are not compared", []encode.FuncState{st(at|addr, 0, intT), st(opt, 0, longT)}, false, ts, 0, false},
		{"but they are without true_signature", []encode.FuncState{st(at|addr, 0, intT), st(opt, 0, longT)}, false, kbuild, -1, false},
		{"true_signature: and when no state has an address", []encode.FuncState{st(0, 0, intT), st(opt, 0, longT)}, false, ts, -1, false},
		{"true_signature: their registers still count", []encode.FuncState{st(at|addr, 0, intT), st(unexp, 0, longT)}, false, ts, -1, false},
		{"true_signature: uncertain location", []encode.FuncState{st(unc|at, 1, intT)}, false, ts, -1, false},
	} {
		k, trueSig, _ := pick(s, tc.g, nil, tc.ambiguous, tc.o)
		if k != tc.want || trueSig != tc.wantTrue {
			t.Errorf("%s: pick = %d, %v; want %d, %v", tc.name, k, trueSig, tc.want, tc.wantTrue)
		}
	}
}

// TestAddrFirst: a name's states with an address come first, each part in
// save order.
func TestAddrFirst(t *testing.T) {
	var fm funcMerge
	for _, tc := range []struct {
		addr string // per state, in save order: a has an address
		want string // the states' save ranks after
	}{
		{"-a-a", "1302"},
		{"aaa", "012"},
		{"---", "012"},
		{"--a", "201"},
		{"a--", "012"},
	} {
		g := make([]encode.FuncState, len(tc.addr))
		for i := range g {
			g[i].Seq = uint32(i)
			if tc.addr[i] == 'a' {
				g[i].Flags = encode.FuncHasAddr
			}
		}
		fm.addrFirst(g)
		var got []byte
		for _, s := range g {
			got = append(got, byte('0'+s.Seq))
		}
		if string(got) != tc.want {
			t.Errorf("%s: order %s, want %s", tc.addr, got, tc.want)
		}
	}
}
