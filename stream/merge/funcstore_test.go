package merge

import (
	"reflect"
	"slices"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream/encode"
)

// TestFuncStoreWindows: states spilled to disk and read back in windows
// come out as a stable sort by ELF name of what was saved, whatever the
// window size.
func TestFuncStoreWindows(t *testing.T) {
	var want []encode.FuncState
	for i := 0; i < 20000; i++ {
		st := encode.FuncState{Elf: uint32(i*7919) % 3000, Ret: btf.TypeID(i), Flags: encode.FuncFlags(i % 128), TrueSym: uint16(i % 3)}
		for p := 0; p < i%6; p++ {
			st.Params = append(st.Params, encode.FuncParam{Name: btf.StrOff(i + p), Type: btf.TypeID(p * i)})
		}
		if i%9 == 0 {
			st.Annots = []encode.FuncAnnot{{Value: btf.StrOff(i), Comp: -1}, {Value: btf.StrOff(i + 1), Comp: 2}}
		}
		want = append(want, st)
	}
	for _, tc := range []struct {
		limit, window int64
	}{{0, 1 << 62}, {1, 1 << 62}, {1, 4096}, {1, 1}} {
		budget := spill.NewBudget(tc.limit)
		budget.SetTempFiles(t.TempDir(), nil)
		s := newFuncStore(budget, tc.limit)
		s.window = tc.window
		for i := range want {
			if err := s.put(&want[i]); err != nil {
				t.Fatal(err)
			}
		}
		sorted := slices.Clone(want)
		for i := range sorted {
			sorted[i].Seq = uint32(i)
		}
		slices.SortStableFunc(sorted, func(a, b encode.FuncState) int { return int(a.Elf) - int(b.Elf) })
		var got []encode.FuncState
		err := s.windows(func(states []encode.FuncState) error {
			if n := len(states); n > 0 && len(got) > 0 && got[len(got)-1].Elf == states[0].Elf {
				t.Errorf("limit %d window %d: name %d split across windows", tc.limit, tc.window, states[0].Elf)
			}
			for _, st := range states {
				st.Params, st.Annots = slices.Clone(st.Params), slices.Clone(st.Annots)
				got = append(got, st)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if len(got[i].Params) == 0 {
				got[i].Params = nil
			}
			if len(got[i].Annots) == 0 {
				got[i].Annots = nil
			}
		}
		if !reflect.DeepEqual(got, sorted) {
			t.Errorf("limit %d window %d: states differ after the round trip", tc.limit, tc.window)
		}
		if tc.limit == 1 && budget.Spilled() == 0 {
			t.Errorf("limit 1: nothing spilled")
		}
		s.close()
	}
}
