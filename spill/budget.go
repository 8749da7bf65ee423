package spill

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
)

// Budget accounts memory against a limit in bytes. A zero limit means no
// limit: Reserve never blocks and Over is always false, but use is still
// counted so callers can report it. Budget is safe for concurrent use.
type Budget struct {
	mu      sync.Mutex
	cond    sync.Cond
	limit   int64
	used    int64
	peak    int64
	spilled int64
	flight  int64 // of used: transient reservations (Acquire)
	spillAt int64 // Over's threshold (0: limit)

	// heapTarget: Over is also true while the Go heap's live bytes (as
	// of the last collection) exceed it (0: not watched).
	heapTarget int64
	heapHold   int64 // Acquire waits while live heap + n would pass it (0: not)
	flightCap  int64 // Acquire waits while flight + n would pass it (0: not)
	live       [1]metrics.Sample

	// Spill files: where and how stores create them.
	dir    string
	create TempFunc

	spillers []namedSpiller // in the order they are asked (Relieve)
}

// TempFunc creates a spill file in dir that has no name: it must vanish
// when closed or when the process ends, however it ends (on Linux an
// O_TMPFILE file; elsewhere one created and unlinked at once). pattern is
// os.CreateTemp's.
type TempFunc func(dir, pattern string) (*os.File, error)

// SetTempFiles makes the budget's stores create their spill files with
// create in dir ("": os.TempDir). Without it they use os.CreateTemp and
// unlink the file at once, which leaves it behind if the process is
// killed in between: callers that can make unnamed files pass a TempFunc
// that does.
func (b *Budget) SetTempFiles(dir string, create TempFunc) {
	b.mu.Lock()
	b.dir, b.create = dir, create
	b.mu.Unlock()
}

// tempFile creates a spill file as SetTempFiles said; it returns the
// directory for messages.
func (b *Budget) tempFile() (*os.File, string, error) {
	b.mu.Lock()
	dir, create := b.dir, b.create
	b.mu.Unlock()
	if dir == "" {
		dir = os.TempDir()
	}
	if create != nil {
		f, err := create(dir, "btfstream-spill-*")
		return f, dir, err
	}
	f, err := os.CreateTemp(dir, "btfstream-spill-*")
	if err != nil {
		return nil, dir, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, dir, err
	}
	return f, dir, nil
}

// SetSpillAt makes Over report true from n accounted bytes on instead of
// from the limit: for callers whose accounting covers only part of their
// memory (the big tables, not the garbage between collections), so
// stores spill before the process reaches the limit.
func (b *Budget) SetSpillAt(n int64) {
	b.mu.Lock()
	b.spillAt = n
	b.mu.Unlock()
}

// NewBudget returns a budget of limit bytes (0: unlimited).
func NewBudget(limit int64) *Budget {
	b := &Budget{limit: limit}
	b.cond.L = &b.mu
	b.live[0].Name = "/gc/heap/live:bytes"
	return b
}

// Limit returns the budget's limit (0: unlimited).
func (b *Budget) Limit() int64 { return b.limit }

// Reserve accounts n bytes, first waiting while they would push use past
// the limit. It never waits when nothing else is reserved, so a single
// reservation larger than the limit still makes progress (the caller is
// expected to have checked MinimumFor beforehand).
func (b *Budget) Reserve(n int64) {
	b.mu.Lock()
	for b.limit > 0 && b.used > 0 && b.used+n > b.limit {
		b.cond.Wait()
	}
	b.addLocked(n)
	b.mu.Unlock()
}

// Acquire accounts n bytes of a transient structure (a unit's arena in
// flight), first waiting while other transient reservations are held and
// n would push use past the limit, or the live heap past its ceiling
// (SetHeapCeiling). Unlike Reserve it does not wait on long-lived use
// (tables) that no one is going to release soon: the waiter only ever
// waits for another Acquire's Return, so with -j N the units in flight
// shrink to one when memory is short, and never to none.
func (b *Budget) Acquire(n int64) {
	b.mu.Lock()
	for b.limit > 0 && b.flight > 0 && (b.used+n > b.limit || b.flightCap > 0 && b.flight+n > b.flightCap ||
		b.heapHold > 0 && b.liveHeapLocked()+n > b.heapHold) {
		b.cond.Wait()
	}
	b.flight += n
	b.addLocked(n)
	b.mu.Unlock()
}

// Resize changes a transient reservation by d bytes (no wait).
func (b *Budget) Resize(d int64) {
	b.mu.Lock()
	b.flight += d
	b.addLocked(d)
	b.mu.Unlock()
	if d < 0 {
		b.cond.Broadcast()
	}
}

// Return gives back n bytes of an Acquire and wakes waiters.
func (b *Budget) Return(n int64) { b.Resize(-n) }

// Add accounts n bytes without waiting (n may be negative).
func (b *Budget) Add(n int64) {
	b.mu.Lock()
	b.addLocked(n)
	b.mu.Unlock()
	if n < 0 {
		b.cond.Broadcast()
	}
}

// Release returns n bytes and wakes waiters.
func (b *Budget) Release(n int64) { b.Add(-n) }

func (b *Budget) addLocked(n int64) {
	b.used += n
	if b.used > b.peak {
		b.peak = b.used
	}
}

// Used returns the bytes accounted now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Peak returns the most bytes ever accounted at once.
func (b *Budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// SetHeapTarget makes Over report true also while the Go heap's live
// bytes, as the runtime measured them at its last collection, exceed n
// (0: the heap is not watched). Accounting covers the big tables, not
// everything a run allocates; the live heap is the runtime's own count of
// all of it, so a store spills when the process as a whole is too big,
// whatever was accounted.
func (b *Budget) SetHeapTarget(n int64) {
	b.mu.Lock()
	b.heapTarget = n
	b.mu.Unlock()
}

// Over reports whether accounted use exceeds the limit (or the SetSpillAt
// threshold), or the live heap its target (SetHeapTarget).
func (b *Budget) Over() bool { return b.overAt(0) }

// SetFlightCap makes Acquire wait, while other transient reservations
// are held, as long as they and the bytes asked for would pass n (0: no
// cap): the room a plan has for units in flight, so that with -j N two
// large units are not decoded at once when the limit holds only one.
func (b *Budget) SetFlightCap(n int64) {
	b.mu.Lock()
	b.flightCap = n
	b.mu.Unlock()
}

// SetHeapCeiling makes Acquire wait, while other transient reservations
// are held, as long as the live heap (as of the last collection) and the
// bytes asked for would pass n (0: no ceiling). Accounting covers the
// tables, not every buffer; the ceiling keeps -j N from holding N large
// units at once when the heap is already near the runtime's soft limit.
func (b *Budget) SetHeapCeiling(n int64) {
	b.mu.Lock()
	b.heapHold = n
	b.mu.Unlock()
}

// overAt is Over with heap target h instead of the budget's (0: the
// budget's).
func (b *Budget) overAt(h int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit <= 0 {
		return false
	}
	if b.spillAt > 0 && b.used > b.spillAt || b.spillAt <= 0 && b.used > b.limit {
		return true
	}
	if h == 0 {
		h = b.heapTarget
	}
	return h > 0 && b.liveHeapLocked() > h
}

// LiveHeap returns the Go heap's live bytes at the last collection.
func (b *Budget) LiveHeap() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.liveHeapLocked()
}

func (b *Budget) liveHeapLocked() int64 {
	metrics.Read(b.live[:])
	if b.live[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(b.live[0].Value.Uint64())
}

// A Spiller holds data it can move out of memory on request: SpillCold
// writes out what it considers cold and returns the bytes it released
// from the budget.
type Spiller interface {
	SpillCold() (released int64, err error)
}

type namedSpiller struct {
	name   string
	s      Spiller
	heapAt int64
}

// AddSpiller registers s; Relieve asks the spillers in the order they
// were added, so add the coldest first. heapAt, if not 0, replaces the
// heap target (SetHeapTarget) for s: data that is cold from the start
// (nothing reads it until the end) can go earlier than data that is
// still read.
func (b *Budget) AddSpiller(name string, s Spiller, heapAt int64) {
	b.mu.Lock()
	b.spillers = append(b.spillers, namedSpiller{name, s, heapAt})
	b.mu.Unlock()
}

// RemoveSpiller unregisters s (a table that is gone).
func (b *Budget) RemoveSpiller(s Spiller) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.spillers {
		if b.spillers[i].s == s {
			b.spillers = append(b.spillers[:i], b.spillers[i+1:]...)
			return
		}
	}
}

// Relieve asks the registered spillers, coldest first, to spill while the
// budget is over (Over, or for a spiller with its own heapAt, the live
// heap above it), and returns the bytes they released. It must be called
// from the goroutine that owns the spillers' data (in the encoder: the
// merging goroutine, between units), never concurrently with their use.
func (b *Budget) Relieve() (int64, error) {
	b.mu.Lock()
	sp := append([]namedSpiller(nil), b.spillers...)
	b.mu.Unlock()
	var total int64
	for _, s := range sp {
		if !b.overAt(s.heapAt) {
			continue
		}
		n, err := s.s.SpillCold()
		total += n
		if err != nil {
			// A Store's errors name it already.
			if !strings.HasPrefix(err.Error(), s.name+": ") {
				err = fmt.Errorf("%s: %w", s.name, err)
			}
			return total, err
		}
	}
	return total, nil
}

// Share returns the bytes a structure may take if it gets frac of the
// limit, or def when there is no limit.
func (b *Budget) Share(frac float64, def int64) int64 {
	if b.limit <= 0 {
		return def
	}
	return int64(float64(b.limit) * frac)
}

// NoteSpilled counts n bytes written to spill files.
func (b *Budget) NoteSpilled(n int64) {
	b.mu.Lock()
	b.spilled += n
	b.mu.Unlock()
}

// Spilled returns the bytes written to spill files so far.
func (b *Budget) Spilled() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spilled
}

// SetRuntimeLimit sets the Go runtime's soft memory limit to the budget
// minus overhead bytes (what the process holds outside the Go heap: the
// binary's text and data, thread stacks; never below a quarter of the
// limit), and returns the previous setting. Unlimited: no change.
func (b *Budget) SetRuntimeLimit(overhead int64) int64 {
	if b.limit <= 0 {
		return debug.SetMemoryLimit(-1)
	}
	return debug.SetMemoryLimit(max(b.limit-overhead, b.limit/4))
}

// ParseSize parses a size with an optional K, M or G suffix (powers of
// 1024, an optional trailing 'B' or 'iB' accepted): "64M", "1G", "0".
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q: want a number with an optional K, M or G suffix", s)
	}
	return v * mult, nil
}

// FormatSize prints n bytes with a binary suffix ("48M", "1.5G").
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'g', 3, 64) + "G"
	case n >= 1<<20:
		return strconv.FormatInt((n+(1<<20)-1)>>20, 10) + "M"
	case n >= 1<<10:
		return strconv.FormatInt((n+(1<<10)-1)>>10, 10) + "K"
	}
	return strconv.FormatInt(n, 10)
}
