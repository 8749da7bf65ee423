package ordered

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// TestOrder: whatever the workers and their timing, consume sees every
// item once, in order, after its work.
func TestOrder(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		const n = 500
		i := 0
		next := func() (*[2]int, bool) {
			if i == n {
				return nil, false
			}
			i++
			return &[2]int{i, 0}, true
		}
		work := func(w int, v *[2]int) {
			if w < 0 || w >= max(workers, 1) {
				t.Errorf("worker index %d", w)
			}
			if rand.IntN(4) == 0 {
				time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
			}
			v[1] = v[0] * v[0]
		}
		got := 0
		Run(workers, next, work, func(v *[2]int) bool {
			got++
			if v[0] != got || v[1] != got*got {
				t.Fatalf("workers %d: item %v at position %d", workers, *v, got)
			}
			return true
		}, nil)
		if got != n {
			t.Errorf("workers %d: %d items consumed, want %d", workers, got, n)
		}
	}
}

// TestStop: when consume stops, every produced item is either consumed or
// dropped, exactly once, and Run returns.
func TestStop(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		var made, consumed, dropped atomic.Int64
		i := 0
		Run(workers, func() (int, bool) {
			i++
			made.Add(1)
			return i, i <= 1000
		}, func(int, int) {}, func(v int) bool {
			consumed.Add(1)
			return v < 10
		}, func(int) { dropped.Add(1) })
		// The last next() returned false for item 1001 only if reached.
		produced := made.Load()
		if i > 1000 {
			produced--
		}
		if consumed.Load()+dropped.Load() != produced || consumed.Load() != 10 {
			t.Errorf("workers %d: made %d, consumed %d, dropped %d", workers, produced, consumed.Load(), dropped.Load())
		}
	}
}
