package dwarfread

import (
	"encoding/binary"
	"testing"
)

// Release keeps a unit's arena in the reader's pool for the next unit;
// Free leaves it to the collector. Both are idempotent.
func TestReleaseKeepsFreeDrops(t *testing.T) {
	for _, tc := range []struct {
		name     string
		free     bool
		wantKept bool
	}{
		{"release", false, true},
		{"free", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ab, in, str := sampleDWARF(binary.LittleEndian, 0x1d)
			f := openBytes(t, "sample", dwarfELF(binary.LittleEndian, ab, in, str))
			defer f.Close()
			units := 0
			for cu, err := range f.Units(UnitOptions{}) {
				if err != nil {
					t.Fatal(err)
				}
				units++
				if cu.Footprint() == 0 {
					t.Fatalf("decoded unit has no arena footprint")
				}
				if tc.free {
					cu.Free()
					cu.Free()
				} else {
					cu.Release()
					cu.Release()
				}
				if cu.Footprint() != 0 {
					t.Errorf("footprint %d after release, want 0", cu.Footprint())
				}
				// A kept arena comes back with its capacity; a new
				// one has none.
				a := f.pool.Get()
				if kept := a.Footprint() > 0; kept != tc.wantKept {
					t.Errorf("pool gave back the arena: %v, want %v", kept, tc.wantKept)
				}
				f.pool.Put(a)
			}
			if units == 0 {
				t.Fatal("no unit")
			}
		})
	}
}
