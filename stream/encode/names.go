package encode

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/btf"
)

// nameCache remembers, per .debug_str offset of a DW_AT_name, the string
// offset it interned to in the dedup table's string section. Every unit
// repeats the same member and type names, so most names skip both the
// .debug_str read and the interning hash: one direct-mapped slot (one
// cache line) instead of two random lookups. Only offsets that already
// live in the table's section are kept: those stay valid for every later
// batch, whose strings are split over the table's (Finish rebuilds the
// strings only after the last unit).
type nameCache struct {
	slots []nameSlot
}

// nameSlot is one cache entry. Size: 8 bytes, no pointers.
type nameSlot struct {
	key uint32 // .debug_str offset + 1; 0 = empty
	off btf.StrOff
}

const nameCacheBits = 16 // 65536 slots, 512 KiB

func newNameCache() *nameCache { return &nameCache{slots: make([]nameSlot, 1<<nameCacheBits)} }

// name interns DIE i's DW_AT_name into the batch's strings.
func (c *cuConv) name(i int32) btf.StrOff {
	strs := c.out.Strings()
	at, ok := c.t.attr(i, dwarf.AttrName)
	if !ok {
		return 0
	}
	off, ok := at.DebugStrOffset()
	if !ok || c.names == nil || off >= 1<<32-1 {
		return strs.Add(c.t.str(i, dwarf.AttrName))
	}
	key := uint32(off) + 1
	slot := &c.names.slots[(key*0x9E3779B1)>>(32-nameCacheBits)]
	if slot.key == key {
		return slot.off
	}
	s := strs.Add(c.t.str(i, dwarf.AttrName))
	if base := strs.Base(); base != nil && uint32(s) < base.Len() {
		*slot = nameSlot{key: key, off: s}
	}
	return s
}
