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
	if s := unsafe.Sizeof(funcSymSlot{}); s != 8 {
		t.Errorf("sizeof(funcSymSlot) = %d, want 8", s)
	}
}

// TestNameCacheStore checks that stored names read back while the cache
// fills up; that a full cache keeps, compacted, the names slots still
// hold; and that one whose held names leave no room empties its names and
// every slot.
func TestNameCacheStore(t *testing.T) {
	nc := newNameCache(4) // 16 slots, 512 bytes of names
	var stored []string
	var ats []uint32
	for i := 0; len(nc.names)+40 <= nc.maxNames; i++ {
		s := strings.Repeat(string(rune('a'+i%26)), 1+i%40)
		stored, ats = append(stored, s), append(ats, nc.store([]byte(s)))
	}
	for i, at := range ats {
		if got := nc.name(&nameSlot{at: at}); got != stored[i] {
			t.Fatalf("name %d = %q, want %q", i, got, stored[i])
		}
	}
	// Slots hold the last names stored, the ones most likely to move.
	held := map[int]string{}
	for k := range nc.slots {
		i := len(stored) - 1 - 2*k
		nc.slots[k] = nameSlot{key: uint32(i + 1), at: ats[i]}
		held[k] = stored[i]
	}
	at := nc.store([]byte(strings.Repeat("z", 41))) // does not fit: compacts
	want := 0
	for k, s := range held {
		want += len(s)
		if got := nc.name(&nc.slots[k]); got != s {
			t.Errorf("slot %d after compaction: %q, want %q", k, got, s)
		}
	}
	if got := nc.name(&nameSlot{at: at}); got != strings.Repeat("z", 41) || len(nc.names) != want+41 {
		t.Errorf("store after compaction: %q, %d bytes of names; want the z's, %d bytes", got, len(nc.names), want+41)
	}
	// Held names that fill the cache: nothing to drop, so it empties.
	nc.names = nc.names[:0]
	for k := range nc.slots {
		nc.slots[k] = nameSlot{key: uint32(k + 1), at: nc.store([]byte(strings.Repeat("y", nc.maxNames/len(nc.slots))))}
	}
	if len(nc.names) != nc.maxNames {
		t.Fatalf("%d bytes of names, want the cache full (%d)", len(nc.names), nc.maxNames)
	}
	if at := nc.store([]byte("q")); at != 1 || len(nc.names) != 1 {
		t.Errorf("store into a full cache: at %#x, %d bytes of names; want position 0, 1 byte", at, len(nc.names))
	}
	for k := range nc.slots {
		if nc.slots[k].key != 0 {
			t.Fatalf("slot %d kept key %d after the names were emptied", k, nc.slots[k].key)
		}
	}
}
