package stream

import (
	"bytes"
	"os"
	"testing"

	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// TestForcedSpill: with every store spilling as soon as it can (the
// function states from the first unit, the old table in Finish), at the
// floor and at -j1 and -j2, the output is the unlimited run's byte for
// byte, bytes were spilled, and the spill directory is left empty. The
// object has two units and a declaration only the second completes, so
// Finish rebuilds the table (through the spilled copy).
func TestForcedSpill(t *testing.T) {
	obj := testkit.Testdata("encode/golden/amd64/multi.o")
	opts := DefaultEncodeOptions()
	opts.MemLimit = -1
	want, _, err := EncodeFile(obj, opts)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := MemFloor(obj, opts)
	if err != nil || floor == 0 {
		t.Fatalf("MemFloor: %d, %v", floor, err)
	}
	for _, jobs := range []int{1, 2} {
		opts := opts
		opts.Jobs, opts.MemLimit, opts.TmpDir, opts.spillAll = jobs, floor, t.TempDir(), true
		got, stats, err := EncodeFile(obj, opts)
		if err != nil {
			t.Fatalf("-j%d at the floor: %v", jobs, err)
		}
		if !bytes.Equal(got.Marshal(), want.Marshal()) {
			t.Errorf("-j%d: output with every store spilled differs from the unlimited one", jobs)
		}
		if stats.Spilled == 0 {
			t.Errorf("-j%d: nothing spilled", jobs)
		}
		if ents, _ := os.ReadDir(opts.TmpDir); len(ents) != 0 {
			t.Errorf("-j%d: the spill directory holds %d entries", jobs, len(ents))
		}
	}
}
