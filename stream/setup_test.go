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
