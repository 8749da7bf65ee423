package encode

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/btfstream/btfstream/stream/dwarfread"
)

// TestClosureKeysPlans: keys read through per-abbreviation plans are the
// keys label computes through DIE.AttrAt, DIE for DIE, on every golden
// object.
func TestClosureKeysPlans(t *testing.T) {
	objs, err := filepath.Glob("../testdata/encode/golden/*/*.o")
	if err != nil || len(objs) == 0 {
		t.Fatalf("no golden objects: %v", err)
	}
	keyed := 0
	for _, obj := range objs {
		f, err := dwarfread.Open(obj, dwarfread.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, NoTypeUnits: true})
		if err != nil {
			t.Fatal(err)
		}
		var fast, slow ClosureKeys
		slow.noPlans = true
		for {
			cu := nextDecoded(t, ur)
			if cu == nil {
				break
			}
			kf, df := fast.Unit(cu)
			kf, df = slices.Clone(kf), slices.Clone(df)
			ks, ds := slow.Unit(cu)
			if fast.plans == nil {
				t.Errorf("%s: no plans", obj)
			}
			if !slices.Equal(kf, ks) || !slices.Equal(df, ds) {
				t.Errorf("%s: unit at %#x: keys through plans differ from label's", obj, cu.Offset())
			}
			for _, k := range kf {
				if k != 0 {
					keyed++
				}
			}
			cu.Release()
		}
		ur.Close()
		f.Close()
	}
	if keyed == 0 {
		t.Error("no DIE keyed: the test compares nothing")
	}
}
