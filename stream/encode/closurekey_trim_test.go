package encode

import (
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/stream/dwarfread"
)

// TestClosureKeysTrim: keys computed after Trim dropped the arrays are
// the keys computed with them kept, and Trim drops only arrays above its
// bound.
func TestClosureKeysTrim(t *testing.T) {
	for _, obj := range []string{"multi.o", "types.o", "strong.o"} {
		f, err := dwarfread.Open(filepath.Join("../testdata/encode/golden/amd64", obj), dwarfread.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, NoTypeUnits: true})
		if err != nil {
			t.Fatal(err)
		}
		var kept, trimmed ClosureKeys
		units := 0
		for {
			cu := nextDecoded(t, ur)
			if cu == nil {
				break
			}
			want, wantDecl := kept.Unit(cu)
			kept.Trim(cap(kept.keys)) // not above the bound: kept
			if kept.keys == nil {
				t.Errorf("%s: Trim at the arrays' size dropped them", obj)
			}
			got, gotDecl := trimmed.Unit(cu)
			for i := range want {
				if got[i] != want[i] || gotDecl[i] != wantDecl[i] {
					t.Fatalf("%s unit %d DIE %d: key %x decl %v after Trim, want %x %v", obj, units, i, got[i], gotDecl[i], want[i], wantDecl[i])
				}
			}
			trimmed.Trim(0)
			if trimmed.st != nil || trimmed.keys != nil {
				t.Errorf("%s: Trim(0) kept the arrays", obj)
			}
			units++
			cu.Release()
		}
		ur.Close()
		f.Close()
		if units == 0 {
			t.Errorf("%s: no unit", obj)
		}
	}
}
