package encode

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/btf"
)

// nameCache remembers, per .debug_str offset of a DW_AT_name, the string
// offset it interned to in the current batch's strings. A unit repeats
// the same member and type names many times, so most names skip both the
// .debug_str read and the interning hash: one direct-mapped slot (one
// cache line) instead of two random lookups. Each worker has its own; a
// slot is valid only for the batch (generation) that filled it, so moving
// to the next unit costs nothing.
type nameCache struct {
	slots []nameSlot
	gen   uint32
}

// nameSlot is one cache entry. Size: 12 bytes, no pointers.
type nameSlot struct {
	key uint32 // .debug_str offset + 1; 0 = empty
	gen uint32 // the batch it belongs to
	off btf.StrOff
}

const nameCacheBits = 16 // 65536 slots, 768 KiB

func newNameCache() *nameCache { return &nameCache{slots: make([]nameSlot, 1<<nameCacheBits), gen: 1} }

// next starts a new batch: every slot becomes stale.
func (nc *nameCache) next() {
	nc.gen++
	if nc.gen == 0 {
		clear(nc.slots)
		nc.gen = 1
	}
}

// name adds DIE i's DW_AT_name to the batch's strings. Batch strings are
// appended, not interned (dedup reads them by offset and interns only
// those of new types): the cache is what keeps a unit's repeated names
// to one copy.
func (c *cuConv) name(i int32) btf.StrOff {
	strs := c.out.Strings()
	at, ok := c.t.attr(i, dwarf.AttrName)
	if !ok {
		return 0
	}
	off, ok := at.DebugStrOffset()
	if !ok || c.names == nil || off >= 1<<32-1 {
		return strs.Append(c.t.str(i, dwarf.AttrName))
	}
	key := uint32(off) + 1
	nc := c.names
	slot := &nc.slots[(key*0x9E3779B1)>>(32-nameCacheBits)]
	if slot.key == key && slot.gen == nc.gen {
		return slot.off
	}
	s := strs.Append(c.t.str(i, dwarf.AttrName))
	*slot = nameSlot{key: key, gen: nc.gen, off: s}
	return s
}
