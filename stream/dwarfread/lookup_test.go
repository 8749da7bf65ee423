package dwarfread

import (
	"slices"
	"testing"

	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// TestLookupEveryDIE: in every unit of the fixtures, Lookup finds each
// DIE at its offset, and finds nothing at the offsets between DIEs, before
// the unit or past its end.
func TestLookupEveryDIE(t *testing.T) {
	for _, fx := range testkit.Fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			f, err := Open(fx.Build(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			dies := 0
			for cu, err := range f.Units(UnitOptions{}) {
				if err != nil {
					t.Fatal(err)
				}
				tags := cu.Tags()
				// Decode built Lookup's index as it went; it is the one
				// indexOffsets builds from the tags.
				if cu.byOffTags != len(tags) {
					t.Fatalf("unit @%#x: index of %d tags after Decode, want %d", cu.Offset(), cu.byOffTags, len(tags))
				}
				built := append([]offBucket(nil), cu.byOff...)
				cu.indexOffsets()
				if !slices.Equal(built, cu.byOff) {
					t.Fatalf("unit @%#x: Decode's offset index %v, indexOffsets' %v", cu.Offset(), built, cu.byOff)
				}
				for i, tg := range tags {
					if id, ok := cu.Lookup(tg.Off); !ok || int(id) != i {
						t.Fatalf("unit @%#x: Lookup(%#x) = %d, %v; want %d", cu.Offset(), tg.Off, id, ok, i)
					}
					next := DIEOff(cu.Offset() + cu.Length())
					if i+1 < len(tags) {
						next = tags[i+1].Off
					}
					for o := tg.Off + 1; o < next; o++ {
						if id, ok := cu.Lookup(o); ok {
							t.Fatalf("unit @%#x: Lookup(%#x) between DIEs = %d", cu.Offset(), o, id)
						}
					}
					dies++
				}
				for _, o := range []DIEOff{DIEOff(cu.Offset()), DIEOff(cu.Offset() + cu.Length()), DIEOff(cu.Offset() + cu.Length() + 1000)} {
					if id, ok := cu.Lookup(o); ok {
						t.Fatalf("unit @%#x: Lookup(%#x) outside the DIEs = %d", cu.Offset(), o, id)
					}
				}
				if cu.Offset() > 0 {
					if id, ok := cu.Lookup(DIEOff(cu.Offset() - 1)); ok {
						t.Fatalf("unit @%#x: Lookup before the unit = %d", cu.Offset(), id)
					}
				}
				cu.Release()
			}
			if dies == 0 {
				t.Fatal("no DIEs")
			}
		})
	}
}
