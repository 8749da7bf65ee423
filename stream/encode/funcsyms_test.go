package encode

import (
	"testing"
	"unsafe"
)

// TestFuncSyms: every symbol of a name comes back in symbol order with its
// address and suffix, addresses more than 4 GiB apart included.
func TestFuncSyms(t *testing.T) {
	if s := unsafe.Sizeof(symExtra{}); s != 16 {
		t.Errorf("symExtra is %d bytes, want 16", s)
	}
	type sym struct {
		name string
		addr uint64
	}
	for _, tc := range []struct {
		name string
		syms []sym
	}{
		{"kernel", []sym{{"a", 0xffffffff81000000}, {"b.isra.0", 0xffffffff81000010}, {"b", 0xffffffff81000020},
			{"c.constprop.0", 0xffffffff81000030}, {"c.constprop.1", 0xffffffff81000040}, {"d", 0xffffffff81000050}}},
		{"far apart", []sym{{"x", 0x1000}, {"y.part.0", 0x2000}, {"y", 0x7fff00000000}, {"y.isra.0", 0x10}}},
		{"relocatable", []sym{{"f", 0}, {"g", 0}, {"g.constprop.0", 0x20}}},
	} {
		var fs elfFuncs
		for _, s := range tc.syms {
			fs.addSym(s.name, s.addr)
		}
		fs.finish(-1)
		// What addSym keeps: .part/.cold are not functions.
		want := map[string][]funcSym{}
		for _, s := range tc.syms {
			if hasNonFuncSuffix(s.name) {
				continue
			}
			base, sfx := s.name, ""
			for i := range s.name {
				if s.name[i] == '.' {
					base, sfx = s.name[:i], s.name[i:]
					break
				}
			}
			want[base] = append(want[base], funcSym{s.addr, sfx})
		}
		if fs.len() != len(want) {
			t.Fatalf("%s: %d names, want %d", tc.name, fs.len(), len(want))
		}
		for base, w := range want {
			i := fs.find(base)
			if i < 0 {
				t.Fatalf("%s: %s not found", tc.name, base)
			}
			var got []funcSym
			fs.syms.each(uint32(i), func(s funcSym) bool { got = append(got, s); return true })
			if len(got) != len(w) {
				t.Fatalf("%s: %s has %d symbols, want %d", tc.name, base, len(got), len(w))
			}
			for k := range w {
				if got[k] != w[k] {
					t.Errorf("%s: %s symbol %d = %+v, want %+v", tc.name, base, k, got[k], w[k])
				}
				if n := fs.syms.nth(uint32(i), k); n != w[k] {
					t.Errorf("%s: %s nth(%d) = %+v, want %+v", tc.name, base, k, n, w[k])
				}
				if w[k].optimized() != (w[k].suffix != "" && w[k].suffix != ".part.0") {
					t.Errorf("%s: %s%s optimized = %v", tc.name, base, w[k].suffix, w[k].optimized())
				}
			}
		}
	}
}
