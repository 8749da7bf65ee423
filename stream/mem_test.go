package stream

import (
	"testing"

	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// The floor is a whole MiB, holds what the plan at that very limit needs,
// and is the smallest such MiB (issue 12: every limit from 1M to 24M used
// to be told "45M", which was then refused with "46M").
func TestMemFloor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		largest, info uint64
		jobs          int
	}{
		{4 << 20, 209 << 20, 1}, {4 << 20, 209 << 20, 2}, {100 << 10, 2 << 20, 1}, {0, 0, 1}, {1, 1, 8}, {64 << 20, 1 << 30, 4},
	} {
		floor := memFloor(c.largest, c.info, 0, c.jobs)
		fixed := int64(c.jobs)*5*int64(c.largest) + minWorking + min(int64(c.info)/tableShare, maxTables)
		if floor%mib != 0 || fixed+cacheBytesFor(floor) > floor {
			t.Errorf("%+v: floor %d does not hold %d + its cache", c, floor, fixed)
		}
		if below := floor - mib; fixed+cacheBytesFor(below) <= below {
			t.Errorf("%+v: %d would do, floor says %d", c, below, floor)
		}
		if c.jobs > 1 && memFloor(c.largest, c.info, 0, c.jobs-1) > floor {
			t.Errorf("%+v: more jobs, lower floor", c)
		}
		if with := memFloor(c.largest, c.info, 4<<20, c.jobs); with < floor+baseFactor*4<<20-(1<<20) {
			t.Errorf("%+v: a 4 MiB base raises the floor from %d to only %d", c, floor, with)
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
