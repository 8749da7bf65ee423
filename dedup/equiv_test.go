package dedup

import (
	"testing"
	"unsafe"
)

// The pair memo's node is hot: one per pair a check meets.
func TestPairNodeSize(t *testing.T) {
	if n := unsafe.Sizeof(pairNode{}); n != 32 {
		t.Errorf("pairNode is %d bytes, want 32", n)
	}
}
