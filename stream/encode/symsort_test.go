package encode

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestSortRecs: sortRecs orders records as a stable sort by name does,
// for names that tie in their first 16 bytes, are prefixes of each
// other, repeat, or are empty.
func TestSortRecs(t *testing.T) {
	if s := unsafe.Sizeof(symSortKey{}); s != 24 {
		t.Errorf("symSortKey is %d bytes, want 24", s)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	stems := []string{"", "a", "__x64_sys_", "trace_event_raw_event_", "0123456789abcdef", "0123456789abcde"}
	var tab symTable
	for i := range 4000 {
		b := []byte(stems[rng.IntN(len(stems))])
		for range rng.IntN(4) {
			b = append(b, "ab_\xff"[rng.IntN(4)])
		}
		tab.add(string(b), uint64(i), uint32(rng.IntN(3)))
	}
	want := slices.Clone(tab.recs)
	slices.SortStableFunc(want, func(a, b symRec) int {
		return bytes.Compare(tab.names[a.off:a.off+a.n], tab.names[b.off:b.off+b.n])
	})
	tab.sortRecs()
	if !slices.Equal(tab.recs, want) {
		for i := range want {
			if tab.recs[i] != want[i] {
				t.Fatalf("record %d: %+v (%q), want %+v (%q)", i, tab.recs[i], tab.nameBytes(i), want[i], tab.names[want[i].off:want[i].off+want[i].n])
			}
		}
	}
}
