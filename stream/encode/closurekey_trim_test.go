package encode

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/stream/dwarfread"
)

// trimObjects are the golden objects the Trim tests encode.
var trimObjects = []string{"multi.o", "types.o", "strong.o"}

// eachGoldenUnit opens the amd64 golden object obj, gives the file to
// open, then each of its units, decoded, to unit (released after it), and
// returns how many units there were.
func eachGoldenUnit(t *testing.T, obj string, open func(*dwarfread.File), unit func(n int, cu *dwarfread.CU)) int {
	t.Helper()
	f, err := dwarfread.Open(filepath.Join("../testdata/encode/golden/amd64", obj), dwarfread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	open(f)
	ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, NoTypeUnits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ur.Close()
	n := 0
	for cu := nextDecoded(t, ur); cu != nil; cu = nextDecoded(t, ur) {
		unit(n, cu)
		cu.Release()
		n++
	}
	return n
}

// TestClosureKeysTrim: keys computed after Trim dropped the arrays are
// the keys computed with them kept, and Trim drops only arrays above its
// bound.
func TestClosureKeysTrim(t *testing.T) {
	for _, obj := range trimObjects {
		var kept, trimmed ClosureKeys
		units := eachGoldenUnit(t, obj, func(*dwarfread.File) {}, func(n int, cu *dwarfread.CU) {
			want, wantDecl := kept.Unit(cu)
			kept.Trim(cap(kept.keys)) // not above the bound: kept
			if kept.keys == nil {
				t.Errorf("%s: Trim at the arrays' size dropped them", obj)
			}
			got, gotDecl := trimmed.Unit(cu)
			for i := range want {
				if got[i] != want[i] || gotDecl[i] != wantDecl[i] {
					t.Fatalf("%s unit %d DIE %d: key %x decl %v after Trim, want %x %v", obj, n, i, got[i], gotDecl[i], want[i], wantDecl[i])
				}
			}
			trimmed.Trim(0)
			if trimmed.st != nil || trimmed.keys != nil {
				t.Errorf("%s: Trim(0) kept the arrays", obj)
			}
		})
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
	for _, obj := range trimObjects {
		var plain, keyed *Worker
		units := eachGoldenUnit(t, obj, func(f *dwarfread.File) {
			plain = goldenWorker(t, f, nil)
			keyed = goldenWorker(t, f, nil)
			keyed.SetClassTable(NewClassTable())
			keyed.RecordImports()
		}, func(n int, cu *dwarfread.CU) {
			want, err := plain.Encode(cu, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := keyed.Encode(cu, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Types.Marshal(), want.Types.Marshal()) {
				t.Errorf("%s unit %d: a recording keyed worker's batch differs from an unkeyed one's", obj, n)
			}
			if keyed.keys.keys != nil {
				t.Errorf("%s unit %d: keys kept past a bound of 0", obj, n)
			}
		})
		if units == 0 {
			t.Fatalf("%s: no units", obj)
		}
	}
}
