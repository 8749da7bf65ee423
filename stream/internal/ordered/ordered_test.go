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

// TestRunDepth: while the first item's work blocks, the other workers do
// the items behind it until the queue of depth is full (depth-1 of them,
// or depth once the consumer has taken the first one off the queue to
// wait for it), and no more; then everything is consumed in order.
func TestRunDepth(t *testing.T) {
	for _, c := range []struct{ workers, depth int }{{2, 4}, {2, 6}, {3, 9}, {2, 1}} {
		d := max(c.depth, c.workers+1)
		want := d - 1
		release := make(chan struct{})
		var done atomic.Int64
		i := 0
		got := 0
		go func() {
			deadline := time.Now().Add(5 * time.Second)
			for done.Load() < int64(want) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond) // more would come now if the queue let them
			if n := done.Load(); n < int64(d-1) || n > int64(d) {
				t.Errorf("workers %d, depth %d: %d items done behind the blocked one, want %d or %d", c.workers, c.depth, n, d-1, d)
			}
			close(release)
		}()
		RunDepth(c.workers, c.depth, func() (int, bool) {
			i++
			return i, i <= 50
		}, func(_ int, v int) {
			if v == 1 {
				<-release
				return
			}
			done.Add(1)
		}, func(v int) bool {
			got++
			if v != got {
				t.Fatalf("item %d at position %d", v, got)
			}
			return true
		}, nil)
		if got != 50 {
			t.Errorf("workers %d, depth %d: %d consumed", c.workers, c.depth, got)
		}
	}
}
