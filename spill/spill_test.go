package spill

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1024", 1024, true}, {"64M", 64 << 20, true}, {"1G", 1 << 30, true},
		{"48m", 48 << 20, true}, {"512K", 512 << 10, true}, {"256MiB", 256 << 20, true}, {"2GB", 2 << 30, true},
		{"", 0, false}, {"-1M", 0, false}, {"1T", 0, false}, {"M", 0, false}, {"99999999999G", 0, false},
	} {
		got, err := ParseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if got := FormatSize(48 << 20); got != "48M" {
		t.Errorf("FormatSize(48M) = %q", got)
	}
}

func TestBudgetReserveWaits(t *testing.T) {
	b := NewBudget(100)
	b.Reserve(80)
	done := mustWait(t, func() { b.Reserve(50) }, "Reserve went past the limit")
	b.Release(80)
	<-done
	if b.Used() != 50 || b.Peak() != 80 {
		t.Errorf("used %d peak %d, want 50 and 80", b.Used(), b.Peak())
	}
	// A lone reservation over the limit still proceeds.
	b.Release(50)
	b.Reserve(1000)
	if !b.Over() {
		t.Error("Over() false at 1000/100")
	}
	if NewBudget(0).Over() {
		t.Error("unlimited budget is over")
	}
}

func TestStoreSpillsAndReadsBack(t *testing.T) {
	for _, tc := range []struct {
		limit int64 // 0: never spills; 1: spills every closed chunk
		seq   bool
	}{{0, false}, {1, false}, {1, true}} {
		limit := tc.limit
		t.Run(fmt.Sprint("limit=", limit, ",seq=", tc.seq), func(t *testing.T) {
			dir := t.TempDir()
			b := NewBudget(limit)
			b.SetTempFiles(dir, nil)
			s := NewStore("test", b)
			if tc.seq {
				s.Sequential()
			}
			var want [][]byte
			for i := 0; i < 5000; i++ {
				rec := bytes.Repeat([]byte{byte(i)}, i%700)
				rec = append(rec, fmt.Sprintf("record %d", i)...)
				id, err := s.Append(rec)
				if err != nil || int(id) != i {
					t.Fatalf("Append %d = %d, %v", i, id, err)
				}
				want = append(want, rec)
			}
			for i := len(want) - 1; i >= 0; i-- {
				got, err := s.Get(RecordID(i))
				if err != nil || !bytes.Equal(got, want[i]) {
					t.Fatalf("Get(%d) = %d bytes, %v", i, len(got), err)
				}
			}
			held, _ := s.Get(0)
			for i := range want {
				got, err := s.Get(RecordID(i))
				if err != nil || !bytes.Equal(got, want[i]) {
					t.Fatalf("in order: Get(%d) = %d bytes, %v", i, len(got), err)
				}
			}
			if !bytes.Equal(held, want[0]) {
				t.Fatal("a record read before changed while others were read")
			}
			if limit == 0 && b.Spilled() != 0 {
				t.Errorf("unlimited store spilled %d bytes", b.Spilled())
			}
			if limit == 1 && b.Spilled() == 0 {
				t.Error("store over budget did not spill")
			}
			if limit == 1 && b.Used() > ChunkSize {
				t.Errorf("%d bytes still accounted after spilling", b.Used())
			}
			// Spill files are unlinked as soon as they are made.
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("spill dir holds %d entries", len(ents))
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if b.Used() != 0 {
				t.Errorf("%d bytes accounted after Close", b.Used())
			}
			if _, err := s.Get(0); err != ErrClosed {
				t.Errorf("Get after Close: %v", err)
			}
		})
	}
}

func TestStoreSpillErrorNamesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	b := NewBudget(1)
	b.SetTempFiles(dir, nil)
	s := NewStore("functions", b)
	defer s.Close()
	var err error
	for i := 0; i < 3 && err == nil; i++ {
		_, err = s.Append(make([]byte, ChunkSize))
	}
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "functions") {
		t.Fatalf("error %v does not name the store and %s", err, dir)
	}
}

// TestStoreTempFunc: the spill file comes from the budget's TempFunc
// (the encoder's makes unnamed files), once per store, and nothing is
// left in the directory.
func TestStoreTempFunc(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	b := NewBudget(1)
	b.SetTempFiles(dir, func(d, pattern string) (*os.File, error) {
		calls++
		if d != dir {
			t.Errorf("TempFunc dir %q, want %q", d, dir)
		}
		f, err := os.CreateTemp(d, pattern)
		if err == nil {
			err = os.Remove(f.Name())
		}
		return f, err
	})
	s := NewStore("test", b)
	defer s.Close()
	for i := 0; i < 3; i++ {
		if _, err := s.Append(make([]byte, ChunkSize)); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 || b.Spilled() == 0 {
		t.Errorf("TempFunc called %d times, %d bytes spilled; want 1 call and a spill", calls, b.Spilled())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("spill dir holds %d entries", len(ents))
	}
}

// TestStoreSpillCold: SpillCold writes out the closed chunks, keeps the
// open one, returns what it released, and the records read back.
func TestStoreSpillCold(t *testing.T) {
	b := NewBudget(1 << 40) // never over: only SpillCold spills
	b.SetTempFiles(t.TempDir(), nil)
	s := NewStore("test", b)
	defer s.Close()
	var want [][]byte
	for i := 0; i < 3000; i++ {
		rec := []byte(fmt.Sprintf("record %d %s", i, strings.Repeat("x", i%300)))
		if _, err := s.Append(rec); err != nil {
			t.Fatal(err)
		}
		want = append(want, rec)
	}
	if b.Spilled() != 0 {
		t.Fatalf("spilled %d bytes under the limit", b.Spilled())
	}
	before := b.Used()
	freed, err := s.SpillCold()
	if err != nil {
		t.Fatal(err)
	}
	if freed == 0 || b.Used() != before-freed || b.Spilled() == 0 {
		t.Errorf("SpillCold released %d (used %d -> %d), spilled %d", freed, before, b.Used(), b.Spilled())
	}
	if open := s.chunks[len(s.chunks)-1].data; open == nil {
		t.Error("the open chunk was spilled")
	}
	if again, _ := s.SpillCold(); again != 0 {
		t.Errorf("second SpillCold released %d bytes", again)
	}
	for i, w := range want {
		if got, err := s.Get(RecordID(i)); err != nil || !bytes.Equal(got, w) {
			t.Fatalf("Get(%d) = %q, %v", i, got, err)
		}
	}
}

// TestBudgetHeapTarget: with a heap target below the live heap the budget
// is over although nothing is accounted; without a limit never.
func TestBudgetHeapTarget(t *testing.T) {
	b := NewBudget(1 << 40)
	if b.Over() {
		t.Fatal("over with nothing accounted")
	}
	b.SetHeapTarget(1)
	if b.LiveHeap() <= 1 || !b.Over() {
		t.Errorf("live heap %d, Over %v with a 1-byte heap target", b.LiveHeap(), b.Over())
	}
	b.SetHeapTarget(1 << 50)
	if b.Over() {
		t.Error("over below a huge heap target")
	}
	u := NewBudget(0)
	u.SetHeapTarget(1)
	if u.Over() {
		t.Error("unlimited budget is over")
	}
}

type testSpiller struct {
	b     *Budget
	n     int64
	calls *[]string
	name  string
}

func (s *testSpiller) SpillCold() (int64, error) {
	*s.calls = append(*s.calls, s.name)
	n := s.n
	s.n = 0
	s.b.Release(n)
	return n, nil
}

// TestBudgetRelieve: spillers are asked in the order added, only while
// the budget is over.
func TestBudgetRelieve(t *testing.T) {
	b := NewBudget(100)
	var calls []string
	cold := &testSpiller{b, 30, &calls, "cold"}
	warm := &testSpiller{b, 50, &calls, "warm"}
	hot := &testSpiller{b, 20, &calls, "hot"}
	b.AddSpiller("cold", cold, 0)
	b.AddSpiller("warm", warm, 0)
	b.AddSpiller("hot", hot, 0)
	b.Add(140)
	got, err := b.Relieve()
	if err != nil || got != 80 || b.Used() != 60 {
		t.Errorf("Relieve released %d (%v), used %d; want 80 and 60", got, err, b.Used())
	}
	if strings.Join(calls, ",") != "cold,warm" {
		t.Errorf("spillers asked: %v, want cold,warm", calls)
	}
	b.RemoveSpiller(hot)
	b.Add(100)
	calls = nil
	b.Relieve()
	if strings.Join(calls, ",") != "cold,warm" {
		t.Errorf("after RemoveSpiller(hot): asked %v", calls)
	}
	// A spiller with its own heap target is asked when the live heap
	// passes it, though the budget is not over.
	b.RemoveSpiller(cold)
	b.RemoveSpiller(warm)
	b.Add(-b.Used())
	early := &testSpiller{b, 0, &calls, "early"}
	b.AddSpiller("early", early, 1)
	calls = nil
	// The live heap is the one at the last collection, 0 before the first:
	// collect, so that it is known (and above 1 byte) however the test runs.
	runtime.GC()
	b.Relieve()
	if strings.Join(calls, ",") != "early" {
		t.Errorf("with a 1-byte heap target: asked %v", calls)
	}
}

// TestBudgetAcquireHeapCeiling: under a heap ceiling below the live heap
// a second transient reservation waits for the first one's Return, while
// a lone one never waits.
func TestBudgetAcquireHeapCeiling(t *testing.T) {
	b := NewBudget(1 << 40)
	b.SetHeapCeiling(1)
	b.Acquire(10) // alone: proceeds
	done := mustWait(t, func() { b.Acquire(10) }, "second Acquire did not wait for the heap ceiling")
	b.Return(10)
	<-done
	b.Return(10)
	if b.Used() != 0 {
		t.Errorf("used %d after the returns", b.Used())
	}
}

// TestBudgetFlightCap: under a flight cap a reservation that would pass
// it waits for the others' Return, one that fits does not, and a lone one
// never waits.
func TestBudgetFlightCap(t *testing.T) {
	b := NewBudget(1 << 40)
	b.SetFlightCap(100)
	b.Acquire(60)
	b.Acquire(30) // fits beside the first
	done := mustWait(t, func() { b.Acquire(50) }, "Acquire went past the flight cap")
	b.Return(60)
	<-done
	b.Return(30)
	b.Return(50)
	b.Acquire(500) // alone: proceeds
	b.Return(500)
}

// mustWait starts call on its own goroutine and fails with msg if it
// returns within 50 ms; the channel closes when it does return.
func mustWait(t *testing.T, call func(), msg string) <-chan struct{} {
	t.Helper()
	done := make(chan struct{})
	go func() {
		call()
		close(done)
	}()
	select {
	case <-done:
		t.Fatal(msg)
	case <-time.After(50 * time.Millisecond):
	}
	return done
}

// A store's spill error reaches the caller of Relieve naming the store
// once (issue 19: "function states: function states: write spill file").
func TestRelieveErrorNamesStoreOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	b := NewBudget(1 << 30)
	b.SetTempFiles(dir, nil)
	s := NewStore("function states", b)
	defer s.Close()
	b.AddSpiller("function states", s, 0)
	for i := 0; i < 3; i++ {
		if _, err := s.Append(make([]byte, ChunkSize)); err != nil {
			t.Fatal(err)
		}
	}
	b.Add(1 << 30)
	_, err := b.Relieve()
	if err == nil {
		t.Fatal("Relieve spilled into a missing directory")
	}
	if msg := err.Error(); strings.Count(msg, "function states") != 1 || !strings.Contains(msg, dir) {
		t.Errorf("error %q: want the store named once and %s", msg, dir)
	}
	// A spiller whose errors do not name it gets its name in front.
	b2 := NewBudget(1)
	b2.AddSpiller("table", errSpiller{}, 0)
	b2.Add(10)
	if _, err := b2.Relieve(); err == nil || err.Error() != "table: disk on fire" {
		t.Errorf("Relieve: %v", err)
	}
}

type errSpiller struct{}

func (errSpiller) SpillCold() (int64, error) { return 0, errors.New("disk on fire") }
