package encode

import (
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// TestReEmit: converting a unit's type DIEs again gives the batch's types
// (before its index int, DECL_TAGs and VARs), and leaving some DIEs out
// gives that many types fewer.
func TestReEmit(t *testing.T) {
	objs, _ := filepath.Glob("../testdata/encode/golden/amd64/*.o")
	if len(objs) == 0 {
		t.Fatal("no golden objects")
	}
	checked, left := 0, 0
	for _, obj := range objs {
		if filepath.Base(obj) == "foreign_ref.o" {
			continue
		}
		f, err := dwarfread.Open(obj, dwarfread.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w := goldenWorker(t, f, func(uint32) bool { return false })
		ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, NoTypeUnits: true})
		if err != nil {
			t.Fatal(err)
		}
		scratch := NewBatch().Types
		for {
			cu := nextDecoded(t, ur)
			if cu == nil {
				break
			}
			if Skip(cu) {
				cu.Release()
				continue
			}
			b, err := w.Encode(cu, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.ReEmit(nil, scratch); err != nil {
				t.Fatal(err)
			}
			if scratch.Len() > b.Types.Len() {
				t.Fatalf("%s: %d types again, the batch has %d", obj, scratch.Len(), b.Types.Len())
			}
			for id := scratch.FirstID(); id < scratch.NextID(); id++ {
				if g, w := scratch.DumpType(id), b.Types.DumpType(id); g != w {
					t.Errorf("%s [%d]: again %s, batch %s", obj, id, g, w)
				}
			}
			// Leave out every struct and union DIE: that many types fewer.
			skip := make([]bool, cu.Len())
			n := 0
			for i, id := range w.DIETypes() {
				if k := b.Types.Kind(id); id != 0 && (k == btf.KindStruct || k == btf.KindUnion) {
					skip[i] = true
					n++
				}
			}
			all := scratch.Len()
			if err := w.ReEmit(skip, scratch); err != nil {
				t.Fatal(err)
			}
			if scratch.Len() != all-n {
				t.Errorf("%s: %d types without %d structs and unions, want %d", obj, scratch.Len(), n, all-n)
			}
			checked++
			left += n
			cu.Release()
		}
		ur.Close()
		f.Close()
	}
	if checked == 0 || left == 0 {
		t.Fatalf("%d units checked, %d structs left out: the test tests nothing", checked, left)
	}
}
