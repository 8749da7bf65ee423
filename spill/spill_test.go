package spill

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		b.Reserve(50) // must wait for the release below
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("Reserve went past the limit")
	case <-time.After(50 * time.Millisecond):
	}
	b.Release(80)
	wg.Wait()
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
	for _, limit := range []int64{0, 1} { // 0: never spills; 1: spills every closed chunk
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
			dir := t.TempDir()
			b := NewBudget(limit)
			s := NewStore("test", dir, b)
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
	s := NewStore("functions", dir, NewBudget(1))
	defer s.Close()
	var err error
	for i := 0; i < 3 && err == nil; i++ {
		_, err = s.Append(make([]byte, ChunkSize))
	}
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "functions") {
		t.Fatalf("error %v does not name the store and %s", err, dir)
	}
}
