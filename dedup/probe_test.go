package dedup

import (
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestResolutions: the package documentation's worked example. CU 1
// declares foo, CU 2 defines it; the check of CU 2's bar against CU 1's
// resolves the declaration, and Resolutions counts it.
func TestResolutions(t *testing.T) {
	d, err := NewIncremental(nil)
	if err != nil {
		t.Fatal(err)
	}
	add := func(build func(b *btf.Spec)) {
		t.Helper()
		b := d.NewBatch()
		build(b)
		if _, err := d.AddBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	str := func(b *btf.Spec, s string) btf.StrOff { return b.Strings().Append(s) }
	add(func(b *btf.Spec) {
		fwd := b.Add(btf.Type{NameOff: str(b, "foo"), Info: btf.MakeInfo(btf.KindFwd, 0, false)})
		ptr := b.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(fwd)})
		b.Add(btf.Type{NameOff: str(b, "bar"), Info: btf.MakeInfo(btf.KindStruct, 1, false), SizeOrType: 8},
			uint32(str(b, "f")), uint32(ptr), 0)
		b.Add(btf.Type{NameOff: str(b, "int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.MakeIntInfo(btf.IntSigned, 0, 32))
	})
	if n := d.Resolutions(); n != 0 {
		t.Fatalf("after CU 1: %d resolutions, want 0", n)
	}
	add(func(b *btf.Spec) {
		i := b.Add(btf.Type{NameOff: str(b, "int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.MakeIntInfo(btf.IntSigned, 0, 32))
		foo := b.Add(btf.Type{NameOff: str(b, "foo"), Info: btf.MakeInfo(btf.KindStruct, 1, false), SizeOrType: 4},
			uint32(str(b, "x")), uint32(i), 0)
		ptr := b.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(foo)})
		b.Add(btf.Type{NameOff: str(b, "bar"), Info: btf.MakeInfo(btf.KindStruct, 1, false), SizeOrType: 8},
			uint32(str(b, "f")), uint32(ptr), 0)
	})
	if n := d.Resolutions(); n != 1 {
		t.Fatalf("after CU 2: %d resolutions, want 1 (FWD foo -> struct foo)", n)
	}
}
