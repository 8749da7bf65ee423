package encode

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/btf"
)

// nameCache remembers, per .debug_str offset of a DW_AT_name, the name
// and the offset it got in the current batch's strings. A unit repeats the
// same member and type names many times, and units repeat each other's
// (every unit includes the same headers): a name seen in this unit costs
// one direct-mapped slot (one cache line); one seen in an earlier unit
// skips the .debug_str read (the shared string cache and, on its misses,
// the page cache) and is appended again. Each worker has its own cache;
// the batch offset is valid only for the batch (generation) that stored
// it, so moving to the next unit costs nothing.
type nameCache struct {
	slots []nameSlot
	gen   uint32
	shift uint8 // 32 - bits
}

// nameSlot is one cache entry: 32 bytes on 64-bit hosts, 20 on 32-bit.
type nameSlot struct {
	key uint32     // .debug_str offset + 1; 0 = empty
	gen uint32     // the batch off belongs to
	off btf.StrOff // in that batch's strings
	s   string
}

// nameCacheBits is the default size of a worker's name cache: 1<<15
// slots, 1 MiB on 64-bit hosts (Config.NameCacheBits may ask for less).
const nameCacheBits = 15

func newNameCache(bits uint8) *nameCache {
	if bits == 0 || bits > 24 {
		bits = nameCacheBits
	}
	return &nameCache{slots: make([]nameSlot, 1<<bits), gen: 1, shift: 32 - bits}
}

// next starts a new batch: every slot's offset becomes stale.
func (nc *nameCache) next() {
	nc.gen++
	if nc.gen == 0 {
		for i := range nc.slots {
			nc.slots[i].gen = 0
		}
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
		if at.Form == formGNUStrpAlt {
			c.t.foreign(i, at)
			return 0
		}
		s, _ := at.String()
		return strs.Append(s)
	}
	key := uint32(off) + 1
	nc := c.names
	slot := &nc.slots[(key*0x9E3779B1)>>nc.shift]
	if slot.key == key {
		if slot.gen != nc.gen {
			slot.gen, slot.off = nc.gen, strs.Append(slot.s)
		}
		return slot.off
	}
	s, _ := at.String()
	*slot = nameSlot{key: key, gen: nc.gen, off: strs.Append(s), s: s}
	return slot.off
}

// funcSymCache remembers, per .debug_str offset of a function's
// DW_AT_name, its index in the ELF function names (elfFuncs.find), or
// that it has none. Every unit defines the same static inline functions
// of the headers: a name seen before costs one slot instead of a binary
// search over the names (and the string's read). Direct-mapped; each
// worker has its own, for its Encoder's table.
type funcSymCache struct {
	slots []funcSymSlot
	shift uint8 // 32 - bits
}

// funcSymSlot is one entry: 8 bytes.
type funcSymSlot struct {
	key uint32 // .debug_str offset + 1; 0 = empty
	idx int32  // elfFuncs index, -1: no such function symbol
}

func newFuncSymCache(bits uint8) *funcSymCache {
	return &funcSymCache{slots: make([]funcSymSlot, 1<<bits), shift: 32 - bits}
}

// elfFunc returns the index in elfs of DIE i's DW_AT_name, -1 if it has
// no name or no function symbol of that name.
func (c *cuConv) elfFunc(elfs *elfFuncs, i int32) int {
	at, ok := c.t.attr(i, dwarf.AttrName)
	if !ok {
		return -1
	}
	off, ok := at.DebugStrOffset()
	if !ok || c.funcSyms == nil || off >= 1<<32-1 {
		return c.findFunc(elfs, i)
	}
	key := uint32(off) + 1
	fsc := c.funcSyms
	slot := &fsc.slots[(key*0x9E3779B1)>>fsc.shift]
	if slot.key != key {
		*slot = funcSymSlot{key: key, idx: int32(c.findFunc(elfs, i))}
	}
	return int(slot.idx)
}

func (c *cuConv) findFunc(elfs *elfFuncs, i int32) int {
	name := c.t.str(i, dwarf.AttrName)
	if name == "" {
		return -1
	}
	return elfs.find(name)
}
