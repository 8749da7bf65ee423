package stream

import (
	"reflect"
	"slices"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/spill"
)

// TestFuncStoreWindows: states spilled to disk and read back in windows
// come out as a stable sort by ELF name of what was saved, whatever the
// window size.
func TestFuncStoreWindows(t *testing.T) {
	var want []funcState
	for i := 0; i < 20000; i++ {
		st := funcState{elf: uint32(i*7919) % 3000, ret: btf.TypeID(i), unexpected: i%5 == 0, uncertain: i%7 == 0}
		for p := 0; p < i%6; p++ {
			st.params = append(st.params, funcParam{btf.StrOff(i + p), btf.TypeID(p * i)})
		}
		if i%9 == 0 {
			st.annots = []funcAnnot{{btf.StrOff(i), -1}, {btf.StrOff(i + 1), 2}}
		}
		want = append(want, st)
	}
	for _, tc := range []struct {
		limit, window int64
	}{{0, 1 << 62}, {1, 1 << 62}, {1, 4096}, {1, 1}} {
		m := &memPlan{budget: spill.NewBudget(tc.limit), limit: tc.limit, tmpDir: t.TempDir()}
		s, _ := newFuncStore(m)
		s.window = tc.window
		for i := range want {
			if err := s.put(&want[i]); err != nil {
				t.Fatal(err)
			}
		}
		sorted := slices.Clone(want)
		for i := range sorted {
			sorted[i].seq = uint32(i)
		}
		slices.SortStableFunc(sorted, func(a, b funcState) int { return int(a.elf) - int(b.elf) })
		var got []funcState
		err := s.windows(func(states []funcState) error {
			if n := len(states); n > 0 && len(got) > 0 && got[len(got)-1].elf == states[0].elf {
				t.Errorf("limit %d window %d: name %d split across windows", tc.limit, tc.window, states[0].elf)
			}
			for _, st := range states {
				st.params, st.annots = slices.Clone(st.params), slices.Clone(st.annots)
				got = append(got, st)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if len(got[i].params) == 0 {
				got[i].params = nil
			}
			if len(got[i].annots) == 0 {
				got[i].annots = nil
			}
		}
		if !reflect.DeepEqual(got, sorted) {
			t.Errorf("limit %d window %d: states differ after the round trip", tc.limit, tc.window)
		}
		if tc.limit == 1 && m.budget.Spilled() == 0 {
			t.Errorf("limit 1: nothing spilled")
		}
		s.close()
	}
}
