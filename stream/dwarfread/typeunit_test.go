package dwarfread

import (
	"debug/dwarf"
	"testing"

	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// TestTypeUnits checks DWARF 4 .debug_types units (gcc) and DWARF 5
// DW_UT_type units in COMDAT .debug_info sections (clang): each is
// delivered after the main unit, with its signature, and its type offset
// names a DIE of the unit; ref_sig8 references carry the signature.
func TestTypeUnits(t *testing.T) {
	for _, name := range []string{"gcc-types-dwarf4", "clang-types-dwarf5"} {
		t.Run(name, func(t *testing.T) {
			fx := testkit.Named(t, name)
			f, err := Open(fx.Build(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sigs := map[uint64]bool{}
			var refs []uint64
			units := 0
			for cu, err := range f.Units(UnitOptions{Jobs: 2}) {
				if err != nil {
					t.Fatal(err)
				}
				units++
				if cu.UnitType() == UTType {
					id, ok := cu.Lookup(cu.TypeOffset())
					if !ok || cu.Signature() == 0 {
						t.Fatalf("type unit @%#x: signature %#x, type offset %#x not found", cu.Offset(), cu.Signature(), cu.TypeOffset())
					}
					if n := cu.DIE(id).Name(); n == "" {
						t.Errorf("type unit %#x: unnamed type DIE %v", cu.Signature(), cu.DIE(id))
					}
					sigs[cu.Signature()] = true
				}
				for id := range cu.Len() {
					for a := range cu.DIE(TagID(id)).Attrs() {
						if a.Class() == dwarf.ClassReferenceSig {
							refs = append(refs, a.Val)
						}
					}
				}
				cu.Release()
			}
			if len(sigs) == 0 || len(refs) == 0 {
				t.Fatalf("%d units, %d type units, %d ref_sig8", units, len(sigs), len(refs))
			}
			for _, r := range refs {
				if !sigs[r] {
					t.Errorf("ref_sig8 %#x names no type unit", r)
				}
			}
			t.Logf("%d units, %d type units, %d ref_sig8 resolved", units, len(sigs), len(refs))
		})
	}
}
