package encode

import (
	"strings"
	"testing"
	"unsafe"
)

func TestNameSlotSize(t *testing.T) {
	want := uintptr(16)
	if s := unsafe.Sizeof(nameSlot{}); s != want {
		t.Errorf("sizeof(nameSlot) = %d, want %d", s, want)
	}
}

// TestNameCacheStore checks that stored names read back while the cache
// fills up, and that a full cache empties its names and every slot.
func TestNameCacheStore(t *testing.T) {
	nc := newNameCache(4) // 16 slots, 512 bytes of names
	var stored []string
	var ats []uint32
	for i := 0; len(nc.names)+40 <= nc.maxNames; i++ {
		s := strings.Repeat(string(rune('a'+i%26)), 1+i%40)
		stored, ats = append(stored, s), append(ats, nc.store([]byte(s)))
		nc.slots[i%len(nc.slots)] = nameSlot{key: uint32(i + 1)}
	}
	for i, at := range ats {
		if got := nc.name(&nameSlot{at: at}); got != stored[i] {
			t.Fatalf("name %d = %q, want %q", i, got, stored[i])
		}
	}
	at := nc.store([]byte(strings.Repeat("z", 41))) // does not fit: empties the cache
	if at != 41 || len(nc.names) != 41 {
		t.Errorf("store after full: at %#x, %d bytes of names; want position 0, 41 bytes", at, len(nc.names))
	}
	for i := range nc.slots {
		if nc.slots[i].key != 0 {
			t.Fatalf("slot %d kept key %d after the names were emptied", i, nc.slots[i].key)
		}
	}
}
