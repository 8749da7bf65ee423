package encode

import (
	"strconv"
	"testing"
	"unsafe"
)

func TestNameSlotSize(t *testing.T) {
	want := uintptr(32)
	if strconv.IntSize == 32 {
		want = 20
	}
	if s := unsafe.Sizeof(nameSlot{}); s != want {
		t.Errorf("sizeof(nameSlot) = %d, want %d", s, want)
	}
}
