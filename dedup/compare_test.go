package dedup

import (
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestCompareBaseCopies: over a base, a module type identical to a base
// type is that base type on both sides, so copies of base types (what
// libbpf 1.7 leaves in modules) neither make two modules differ nor count
// as unmatched; anything that is not an exact copy still does.
func TestCompareBaseCopies(t *testing.T) {
	bb := newBuilder(btf.NewSpec(), nil)
	bb.Int("int", "int", 4)
	bb.Typedef("u8", "__u8", "int")
	bb.Ptr("pu8", "u8")
	bb.Fwd("fwd", "x", false)
	bb.Ptr("pfwd", "fwd")
	base := bb.done()
	inherit := map[string]btf.TypeID{}
	for k, v := range bb.labels {
		inherit["base."+k] = v
	}
	// The module everyone agrees on: struct m { __u8 *a; struct x *b; }
	// over the base's pointers, and a struct x of its own.
	plain := func(b *builder) {
		b.Struct("m", "m", 16, "a:base.pu8@0", "b:base.pfwd@64")
		b.Struct("x", "x", 4, "v:base.int@0")
	}
	tests := []struct {
		name       string
		a, b       func(*builder)
		equal      bool
		copiesA    int
		unmatchedA int
		unmatchedB int
	}{
		{"same module", plain, plain, true, 0, 0, 0},
		{"copies of __u8 and its pointer, used by m", func(b *builder) {
			b.Int("int", "int", 4)
			b.Typedef("u8", "__u8", "int")
			b.Ptr("pu8", "u8")
			b.Struct("m", "m", 16, "a:pu8@0", "b:base.pfwd@64")
			b.Struct("x", "x", 4, "v:int@0")
		}, plain, true, 3, 0, 0},
		{"an unreferenced copy twice", func(b *builder) {
			plain(b)
			b.Typedef("u8", "__u8", "base.int")
			b.Typedef("u8b", "__u8", "base.int")
		}, plain, true, 2, 0, 0},
		{"twins through a copy: one struct over the copy, one over the base", func(b *builder) {
			plain(b)
			b.Typedef("u8", "__u8", "base.int")
			b.Ptr("pu8", "u8")
			b.Struct("m2a", "m2", 8, "a:pu8@0")
			b.Struct("m2b", "m2", 8, "a:base.pu8@0")
		}, func(b *builder) {
			plain(b)
			b.Struct("m2", "m2", 8, "a:base.pu8@0")
		}, true, 2, 0, 0},
		{"a typedef that is no copy (other target)", func(b *builder) {
			plain(b)
			b.Typedef("u8", "__u8", "x")
		}, plain, false, 0, 1, 0},
		{"a pointer to the module's x is not the base's to FWD x", func(b *builder) {
			b.Ptr("px", "x")
			b.Struct("m", "m", 16, "a:base.pu8@0", "b:px@64")
			b.Struct("x", "x", 4, "v:base.int@0")
		}, plain, false, 0, 2, 1},
	}
	for _, tc := range tests {
		ba := newBuilder(btf.NewSplitSpec(base), inherit)
		tc.a(ba)
		bb := newBuilder(btf.NewSplitSpec(base), inherit)
		tc.b(bb)
		c, err := Compare(ba.done(), bb.done())
		if err != nil {
			t.Fatal(err)
		}
		ca, cb := c.BaseCopies()
		ua, ub := c.Unmatched()
		if c.Equal() != tc.equal || ca != tc.copiesA || cb != 0 || len(ua) != tc.unmatchedA || len(ub) != tc.unmatchedB {
			t.Errorf("%s: equal %v, copies %d/%d, unmatched %d/%d; want %v, %d/0, %d/%d",
				tc.name, c.Equal(), ca, cb, len(ua), len(ub), tc.equal, tc.copiesA, tc.unmatchedA, tc.unmatchedB)
		}
		if da, db := c.Duplicates(); db != 0 || (da == 1) != strings.HasPrefix(tc.name, "twins") {
			t.Errorf("%s: duplicates %d/%d", tc.name, da, db)
		}
		if ids, of := c.BaseCopiesOf(0); len(ids) != ca || len(of) != ca {
			t.Errorf("%s: BaseCopiesOf lists %d, BaseCopies says %d", tc.name, len(ids), ca)
		} else {
			for i, id := range ids {
				if c.A.Kind(id) != base.Kind(of[i]) || c.A.Name(id) != base.Name(of[i]) {
					t.Errorf("%s: [%d] %s is called a copy of base [%d] %s", tc.name, id, Short(c.A, id), of[i], Short(base, of[i]))
				}
			}
		}
	}
}
