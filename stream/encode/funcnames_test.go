package encode

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFuncNames: every name is found at its rank and decodes back, and
// every other string (prefixes, extensions, neighbours, strings before
// the first and after the last name) is not found, for block-aligned and
// ragged table sizes.
func TestFuncNames(t *testing.T) {
	fixed := []string{"a", "ab", "abc", "abd", "abd_x", "b", "ba", "bb", "bbb", "bbba", "c"}
	rng := rand.New(rand.NewPCG(1, 2))
	var random []string
	for len(random) < 3000 {
		// A small alphabet and lengths make long shared prefixes and
		// names that are prefixes of others, as kernel families do.
		n := 1 + rng.IntN(12)
		b := make([]byte, n)
		for i := range b {
			b[i] = "ab_x"[rng.IntN(4)]
		}
		random = append(random, string(b))
	}
	for _, tc := range []struct {
		name  string
		names []string
	}{
		{"empty", nil},
		{"one", []string{"only"}},
		{"fixed", fixed},
		{"block", random[:fnBlock]},
		{"block+1", random[:fnBlock+1]},
		{"random", random},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names := slices.Clone(tc.names)
			slices.Sort(names)
			names = slices.Compact(names)
			for _, indexMax := range []int64{-1, 0} {
				fn := buildFuncNames(len(names), func(i int) []byte { return []byte(names[i]) }, indexMax)
				if (fn.byHash != nil) != (indexMax < 0) {
					t.Fatalf("index %d: hash index built: %v", indexMax, fn.byHash != nil)
				}
				checkFuncNames(t, &fn, names)
			}
		})
	}
}

// checkFuncNames checks table fn against its sorted, distinct names.
func checkFuncNames(t *testing.T, fn *funcNames, names []string) {
	t.Helper()
	var buf []byte
	for i, n := range names {
		if got := fn.find(n); got != i {
			t.Fatalf("find(%q) = %d, want %d", n, got, i)
		}
		buf = fn.appendName(buf[:0], i)
		if string(buf) != n {
			t.Fatalf("name %d = %q, want %q", i, buf, n)
		}
	}
	has := func(s string) bool { _, ok := slices.BinarySearch(names, s); return ok }
	probe := []string{"", "\x00", "~", "zzzz", "_", "a_", "abc\x00"}
	for _, n := range names {
		probe = append(probe, n+"\x00", n+"a", n+"~", n[:len(n)-1], n[:len(n)-1]+"\x7f", "\x01"+n)
	}
	for _, p := range probe {
		want := -1
		if i, ok := slices.BinarySearch(names, p); ok {
			want = i
		}
		if got := fn.find(p); got != want {
			t.Fatalf("find(%q) = %d, want %d (in table: %v)", p, got, want, has(p))
		}
		if got := fn.findBySearch(p); got != want {
			t.Fatalf("findBySearch(%q) = %d, want %d", p, got, want)
		}
	}
	// find scans the block of any name whose hash shares the
	// probe's high bits: a block must never claim a name it
	// does not hold, whichever name is asked.
	for k, p := range probe {
		if k%7 != 0 {
			continue
		}
		for b := range fn.heads {
			if got := fn.findIn(b, p); got != -1 && (got >= len(names) || names[got] != p) {
				t.Fatalf("findIn(%d, %q) = %d", b, p, got)
			}
		}
	}
}

// TestFuncNamesSmaller: coding kernel-like families takes far less than
// the names themselves.
func TestFuncNamesSmaller(t *testing.T) {
	var names []string
	for _, fam := range []string{"__x64_sys_", "trace_event_raw_event_", "__bpf_trace_", "perf_trace_"} {
		for _, s := range []string{"accept", "bind", "close", "connect", "epoll_wait", "fsync", "getpid", "ioctl", "kill", "mmap", "open", "read", "write"} {
			names = append(names, fam+s)
		}
	}
	slices.Sort(names)
	raw := 0
	for _, n := range names {
		raw += len(n)
	}
	fn := buildFuncNames(len(names), func(i int) []byte { return []byte(names[i]) }, -1)
	if len(fn.data) >= raw*2/3 {
		t.Errorf("%d names of %d bytes coded in %d bytes", len(names), raw, len(fn.data))
	}
}
