package dwarfread

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/stream/internal/testkit"
)

func TestArenaSize(t *testing.T) {
	for _, tc := range []struct {
		n          int
		tags, vals int
	}{
		{0, 0, 0},
		{1595, 151, 697},       // a module's smallest unit
		{147330, 14031, 64456}, // sch_multiq's: 13436 DIEs, 58914 values
		{smallUnit, 2 * smallUnit / 21, smallUnit * 7 / 16},
		{smallUnit + 12, (smallUnit + 12) / 12, (smallUnit + 12) * 3 / 8}, // large: as before
		{877 << 10, (877 << 10) / 12, (877 << 10) * 3 / 8},
	} {
		tags, vals := arenaSize(tc.n)
		if tags != tc.tags || vals != tc.vals {
			t.Errorf("arenaSize(%d) = %d, %d, want %d, %d", tc.n, tags, vals, tc.tags, tc.vals)
		}
	}
}

// TestArenaSizeKernel decodes the cached kernel's modules: their small
// units, sized by arenaSize, hold their DIEs and values without growing.
func TestArenaSizeKernel(t *testing.T) {
	k := testkit.Files(t)
	root := strings.SplitN(k.Vmlinux, "/usr/lib/debug/", 2)[0]
	kos, _ := filepath.Glob(filepath.Join(root, "usr/lib/debug/lib/modules/*/kernel/*/*/*.ko"))
	kos = append(kos, k.XFS)
	var small, fit, fitBefore int
	for _, ko := range kos {
		f, err := Open(ko, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for cu, err := range f.Units(UnitOptions{}) {
			if err != nil {
				t.Fatal(err)
			}
			n := len(cu.arena.Bytes)
			if n <= smallUnit && cu.Len() > 1 {
				small++
				tags, vals := arenaSize(n)
				if len(cu.arena.Tags) <= tags && len(cu.arena.Vals) <= vals {
					fit++
				}
				if len(cu.arena.Tags) <= n/arenaBytesPerTag && len(cu.arena.Vals) <= n*arenaValsPer8/8 {
					fitBefore++
				}
			}
			cu.Release()
		}
		f.Close()
	}
	t.Logf("%d modules: %d small units, %d fit (%d with the large units' sizing)", len(kos), small, fit, fitBefore)
	if small == 0 {
		t.Skip("no small units")
	}
	if fit*10 < small*9 || fit < fitBefore {
		t.Errorf("%d of %d small units fit their arena (%d with the large units' sizing)", fit, small, fitBefore)
	}
}
