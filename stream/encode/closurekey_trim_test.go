package encode

import (
	"bytes"
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

// TestRecordingWorkerKeepsKeysThroughEncode: a worker that records its
// imports (above one job) trims its keys only after the unit is encoded,
// since emit finds types through them (c.keyed); with a bound of 0 every
// unit is trimmed, and every batch equals an unkeyed worker's.
func TestRecordingWorkerKeepsKeysThroughEncode(t *testing.T) {
	defer func(n int) { keysKeptDIEs = n }(keysKeptDIEs)
	keysKeptDIEs = 0
	for _, obj := range []string{"multi.o", "types.o", "strong.o"} {
		f, err := dwarfread.Open(filepath.Join("../testdata/encode/golden/amd64", obj), dwarfread.Options{})
		if err != nil {
			t.Fatal(err)
		}
		plain := goldenWorker(t, f, nil)
		keyed := goldenWorker(t, f, nil)
		keyed.SetClassTable(NewClassTable())
		keyed.RecordImports()
		ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, NoTypeUnits: true})
		if err != nil {
			t.Fatal(err)
		}
		units := 0
		for cu := nextDecoded(t, ur); cu != nil; cu = nextDecoded(t, ur) {
			want, err := plain.Encode(cu, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := keyed.Encode(cu, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Types.Marshal(), want.Types.Marshal()) {
				t.Errorf("%s unit %d: a recording keyed worker's batch differs from an unkeyed one's", obj, units)
			}
			if keyed.keys.keys != nil {
				t.Errorf("%s unit %d: keys kept past a bound of 0", obj, units)
			}
			units++
			cu.Release()
		}
		ur.Close()
		f.Close()
		if units == 0 {
			t.Fatalf("%s: no units", obj)
		}
	}
}
