package stream

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// The floor is a whole MiB, holds what the plan at that very limit needs,
// and is the smallest such MiB (issue 12: every limit from 1M to 24M used
// to be told "45M", which was then refused with "46M"). More jobs never
// lower it, a base raises it, and each job beyond the first costs about
// one more largest arena.
func TestMemFloor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		largest, info uint64
		jobs          int
	}{
		{4 << 20, 209 << 20, 1}, {4 << 20, 209 << 20, 2}, {100 << 10, 2 << 20, 1}, {0, 0, 1}, {1, 1, 8}, {64 << 20, 1 << 30, 4},
		{877297, 209798803, 1}, {593000, 163200160, 1},
	} {
		need := func(l int64) int64 {
			return 6*int64(c.largest) + int64(c.jobs-1)*workerBytes(c.largest, nameCacheBitsFor(l)) +
				minWorking + tablesFor(c.info) + cacheBytesFor(l)
		}
		floor := memFloor(c.largest, c.info, 0, c.jobs)
		if floor%mib != 0 || need(floor) > floor {
			t.Errorf("%+v: floor %d does not hold %d", c, floor, need(floor))
		}
		if below := floor - mib; need(below) <= below {
			t.Errorf("%+v: %d would do, floor says %d", c, below, floor)
		}
		if c.jobs > 1 {
			fewer := memFloor(c.largest, c.info, 0, c.jobs-1)
			if fewer > floor || floor-fewer < 6*int64(c.largest)-mib {
				t.Errorf("%+v: floor %d, with one job less %d", c, floor, fewer)
			}
		}
		if with := memFloor(c.largest, c.info, 4<<20, c.jobs); with < floor+baseFactor*4<<20-(1<<20) {
			t.Errorf("%+v: a 4 MiB base raises the floor from %d to only %d", c, floor, with)
		}
	}
	// The two Debian kernels of the measurements (spill/doc.go): 32M and
	// 30M, their tables counted alike.
	if got := memFloor(877297, 209798803, 0, 1); got != 32*mib {
		t.Errorf("6.12 cloud vmlinux: floor %dM, measured 32M", got/mib)
	}
	if got := tablesFor(163200160); got != kernelTables {
		t.Errorf("6.1 cloud vmlinux: tables %d, want the kernel minimum %d", got, kernelTables)
	}
}

// nameCacheBitsFor and arenaKeep shrink with the limit and are the
// defaults without one; unitNameBits grows with the unit.
func TestLimitSizing(t *testing.T) {
	for _, c := range []struct {
		limit int64
		bits  uint8
	}{{0, 16}, {-1, 16}, {32 << 20, 13}, {64 << 20, 14}, {128 << 20, 15}, {256 << 20, 16}, {1 << 30, 16}, {1 << 20, 12}} {
		if got := nameCacheBitsFor(c.limit); got != c.bits {
			t.Errorf("nameCacheBitsFor(%d) = %d, want %d", c.limit, got, c.bits)
		}
	}
	for _, c := range []struct {
		unit uint64
		bits uint8
	}{{0, 10}, {30 << 10, 10}, {182871, 13}, {444088, 14}, {1124652, 16}, {4 << 20, 17}} {
		if got := unitNameBits(c.unit); got != c.bits {
			t.Errorf("unitNameBits(%d) = %d, want %d", c.unit, got, c.bits)
		}
	}
	if (&memPlan{}).arenaKeep() != 0 || (&memPlan{limit: 32 << 20}).arenaKeep() != 1<<20 {
		t.Error("arenaKeep: want all without a limit, 1 MiB at 32M")
	}
	if (&memPlan{limit: 32 << 20}).coldAt() >= SoftLimit(32<<20) || (&memPlan{}).coldAt() != 0 {
		t.Error("coldAt: want below the soft limit, 0 without a limit")
	}
	// The function names' hash index of a vmlinux (2 MiB of slots for
	// ~100k names) only from 256M; a module's (64 KiB for a few
	// thousand names) from 8M.
	for _, c := range []struct {
		limit, index int64
		want         bool
	}{{0, 2 << 20, true}, {-1, 2 << 20, true}, {32 << 20, 2 << 20, false}, {128 << 20, 2 << 20, false},
		{256 << 20, 2 << 20, true}, {8 << 20, 64 << 10, true}} {
		p := &memPlan{limit: max(c.limit, 0)}
		if got := p.funcIndexMax() < 0 || c.index <= p.funcIndexMax(); got != c.want {
			t.Errorf("limit %d: index of %d bytes built: %v, want %v", c.limit, c.index, got, c.want)
		}
	}
}

// EncodeOptions.Progress: monotone reports ending with every unit and
// every byte of .debug_info done; an unknown count (compressed
// .debug_info) is 0.
func TestProgress(t *testing.T) {
	for _, name := range []string{"gcc-dwarf5", "gcc-zstd"} {
		t.Run(name, func(t *testing.T) {
			obj := testkit.Named(t, name).Build(t)
			var got []Progress
			opts := DefaultEncodeOptions()
			opts.Progress = func(p Progress) { got = append(got, p) }
			if _, _, err := EncodeFile(obj, opts); err != nil {
				t.Fatal(err)
			}
			if len(got) < 2 {
				t.Fatalf("%d reports", len(got))
			}
			for i := 1; i < len(got); i++ {
				if got[i].Units < got[i-1].Units || got[i].Read < got[i-1].Read || got[i].TotalUnits != got[0].TotalUnits {
					t.Errorf("report %d %+v after %+v", i, got[i], got[i-1])
				}
			}
			last := got[len(got)-1]
			compressed := name == "gcc-zstd"
			if compressed != (last.TotalUnits == 0) || compressed != (last.Total == 0) || last.Read == 0 ||
				!compressed && (last.Units != last.TotalUnits || last.Read != last.Total) {
				t.Errorf("last report %+v", last)
			}
		})
	}
}

// Under a limit the spill directory is tried before anything is read: a
// missing one, or a file, fails at once; without a limit it is not needed.
func TestSpillDirCheckedFirst(t *testing.T) {
	obj := testkit.Fixtures[0].Build(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		tmp   string
		limit int64
		fails bool
	}{
		{filepath.Join(dir, "missing"), 64 << 20, true},
		{file, 0, true},
		{filepath.Join(dir, "missing"), -1, false},
		{dir, 64 << 20, false},
	} {
		opts := DefaultEncodeOptions()
		opts.TmpDir, opts.MemLimit = c.tmp, c.limit
		_, _, err := EncodeFile(obj, opts)
		if got := errors.Is(err, ErrSpillDir); got != c.fails || got && !strings.Contains(err.Error(), "--tmpdir "+c.tmp) {
			t.Errorf("--tmpdir %s, limit %d: %v", c.tmp, c.limit, err)
		}
		if !c.fails && err != nil {
			t.Errorf("--tmpdir %s, limit %d: %v", c.tmp, c.limit, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %d files in the spill directory", len(ents))
	}
}

// A split encode's plan frees (and collects after) each unit arena larger
// than any freed before; a vmlinux's keeps them all for reuse.
func TestReleaseUnitFreesLargest(t *testing.T) {
	split := DefaultEncodeOptions()
	split.Base = btf.NewSpec()
	for _, c := range []struct {
		name     string
		opts     EncodeOptions
		wantFree bool
	}{
		{"split", split, true},
		{"vmlinux", DefaultEncodeOptions(), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := newMemPlan(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer m.close()
			if got := m.freeFrom != 0; got != c.wantFree {
				t.Fatalf("frees arenas: %v, want %v", got, c.wantFree)
			}
			if m.freeFrom != 0 {
				m.freeFrom = 1 // the fixture's units are small
			}
			f, err := dwarfread.Open(testkit.Fixtures[0].Build(t), dwarfread.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var largest uint64
			units := 0
			for cu, err := range f.Units(dwarfread.UnitOptions{}) {
				if err != nil {
					t.Fatal(err)
				}
				units++
				largest = max(largest, cu.Footprint())
				m.releaseUnit(cu)
				if cu.Footprint() != 0 {
					t.Fatalf("unit %d not released", units)
				}
			}
			if units == 0 || largest == 0 {
				t.Fatalf("%d units, largest arena %d", units, largest)
			}
			want := uint64(0)
			if c.wantFree {
				want = largest
			}
			if got := m.largestFreed.Load(); got != want {
				t.Errorf("largest arena freed %d, want %d", got, want)
			}
			// Once the units are done a split encode collects.
			if c.wantFree {
				before := numGC()
				m.unitsDone()
				if numGC() == before {
					t.Errorf("no collection after the units")
				}
			}
		})
	}
}

func numGC() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}
