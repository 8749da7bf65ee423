package stream

import "testing"

// TestSymNamesWhole: setup reads a symbol name table whole up to a 32nd
// of the memory limit, at most 64 MiB, so that near the floors (64M: 2
// MiB, below a vmlinux's 3.6-4.4 MB .strtab) the window stays.
func TestSymNamesWhole(t *testing.T) {
	for _, c := range []struct {
		limit int64
		want  uint64
	}{
		{0, 64 << 20},
		{-1, 64 << 20},
		{64 << 20, 2 << 20},
		{256 << 20, 8 << 20},
		{12 << 30, 64 << 20},
	} {
		if got := symNamesWhole(c.limit); got != c.want {
			t.Errorf("symNamesWhole(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}

// TestQueueDepth: 3 units per job may be in flight at -j2 and above,
// unless a limit below resolveMinLimit sized the plan for 2 per job;
// -j1 runs serially whatever the depth.
func TestQueueDepth(t *testing.T) {
	for _, c := range []struct {
		jobs  int
		limit int64
		want  int
	}{
		{1, 0, 2},
		{2, 0, 6},
		{2, 12 << 30, 6},
		{4, resolveMinLimit, 12},
		{2, resolveMinLimit - 1, 4},
		{2, 64 << 20, 4},
	} {
		if got := queueDepth(c.jobs, c.limit); got != c.want {
			t.Errorf("queueDepth(%d, %d) = %d, want %d", c.jobs, c.limit, got, c.want)
		}
	}
}
