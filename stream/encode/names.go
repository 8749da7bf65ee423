package encode

import (
	"cmp"
	"debug/dwarf"
	"slices"
	"unsafe"

	"github.com/btfstream/btfstream/btf"
)

// nameCache remembers, per .debug_str offset of a DW_AT_name, the name
// and the offset it got in the current batch's strings. A unit repeats the
// same member and type names many times, and units repeat each other's
// (every unit includes the same headers): a name seen in this unit costs
// one direct-mapped slot (a quarter of a cache line); one seen in an
// earlier unit skips the .debug_str read (the shared string cache and, on
// its misses, the page cache) and is appended again from the cache's own
// copy. The copies sit back to back in one buffer (names), so the names
// a unit appends come from a few dense lines rather than from strings
// scattered over the heap. Each worker has its own cache; the batch offset
// is valid only for the batch (generation) that stored it, so moving to
// the next unit costs nothing.
type nameCache struct {
	slots []nameSlot
	// names holds the cached names back to back; when it would grow past
	// maxNames bytes, it is compacted to the names slots still hold (a
	// slot taken by another name leaves its old bytes behind), or, if
	// that does not make room, emptied with every slot.
	names    []byte
	maxNames int
	live     []uint32 // scratch of compact: slots holding a name
	gen      uint32
	shift    uint8 // 32 - bits
}

// nameSlot is one cache entry: 16 bytes.
type nameSlot struct {
	key uint32     // .debug_str offset + 1; 0 = empty
	gen uint32     // the batch off belongs to
	off btf.StrOff // in that batch's strings
	at  uint32     // the name in nameCache.names: position<<8 | length
}

// nameCacheBits is the default size of a worker's name cache: 1<<16
// slots, 1 MiB, and up to 2 MiB of names (Config.NameCacheBits may ask
// for less). On the 7.2 vmlinux 1<<15 slots missed 1.5M of 10.9M
// lookups, most of them conflicts; 1<<16 misses 0.7M.
const nameCacheBits = 16

// Names longer than maxCachedName bytes (the slot's length byte) are not
// cached; positions must fit the slot's 24 bits.
const (
	maxCachedName = 0xff
	maxNamesBytes = 1 << 24
)

// slotIndex is the direct-mapped slot of key (a .debug_str offset + 1) in
// a table of 1<<(32-shift) slots: the name and function-symbol caches'.
func slotIndex(key uint32, shift uint8) uint32 { return (key * 0x9E3779B1) >> shift }

func newNameCache(bits uint8) *nameCache {
	if bits == 0 || bits > 24 {
		bits = nameCacheBits
	}
	return &nameCache{slots: make([]nameSlot, 1<<bits), maxNames: min(32<<bits, maxNamesBytes), gen: 1, shift: 32 - bits}
}

// empty drops every name: for a file whose units do not share .debug_str
// offsets (a relocatable one), where a name cached by one unit is never
// asked for by the next, at each unit, so the cache never fills with them.
func (nc *nameCache) empty() {
	nc.names = nc.names[:0]
	clear(nc.slots)
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

// name returns the cached name of slot (valid until the next store).
func (nc *nameCache) name(slot *nameSlot) string {
	p, n := slot.at>>8, slot.at&0xff
	return unsafe.String(&nc.names[p], n) // n > 0: only non-empty names are stored
}

// store copies s (1 to maxCachedName bytes) into the cache, emptying it
// first if it is full, and returns its slot value for nameSlot.at.
func (nc *nameCache) store(s []byte) uint32 {
	if len(nc.names)+len(s) > nc.maxNames {
		nc.compact()
		if len(nc.names)+len(s) > nc.maxNames {
			nc.empty()
		}
	}
	p := len(nc.names)
	nc.names = append(nc.names, s...)
	return uint32(p)<<8 | uint32(len(s))
}

// compact moves the names slots hold to the front of nc.names, in the
// order they sit there (so each moves down over bytes already moved or
// dropped), dropping the bytes of names no slot holds any more.
func (nc *nameCache) compact() {
	live := nc.live[:0]
	for i := range nc.slots {
		if nc.slots[i].key != 0 && nc.slots[i].at&0xff != 0 {
			live = append(live, uint32(i))
		}
	}
	slices.SortFunc(live, func(a, b uint32) int { return cmp.Compare(nc.slots[a].at, nc.slots[b].at) })
	p := uint32(0)
	for _, i := range live {
		sl := &nc.slots[i]
		from, n := sl.at>>8, sl.at&0xff
		copy(nc.names[p:p+n], nc.names[from:from+n])
		sl.at = p<<8 | n
		p += n
	}
	nc.names = nc.names[:p]
	nc.live = live
}

// name adds DIE i's DW_AT_name to the batch's strings. Batch strings are
// appended, not interned (dedup reads them by offset and interns only
// those of new types): the cache is what keeps a unit's repeated names
// to one copy.
func (c *cuConv) name(i int32) btf.StrOff {
	rec := &c.t.cu.Tags()[i]
	return c.shapeName(i, c.shape(rec.Abbrev, i), c.t.cu.Vals()[rec.Vals:])
}

// nameAttr is name through DIE.Attr.
func (c *cuConv) nameAttr(i int32) btf.StrOff {
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
		return c.out.Strings().Append(s)
	}
	return c.cachedName(i, uint32(off)+1)
}

// cachedName is name for a DW_AT_name at .debug_str offset key-1, through
// the name cache (c.names non-nil).
func (c *cuConv) cachedName(i int32, key uint32) btf.StrOff {
	strs := c.out.Strings()
	nc := c.names
	slot := &nc.slots[slotIndex(key, nc.shift)]
	if slot.key == key {
		if slot.gen != nc.gen {
			slot.gen, slot.off = nc.gen, strs.Append(nc.name(slot))
		}
		return slot.off
	}
	// A miss: in a vmlinux, a name no unit of this worker had lately
	// (the file's string cache, shared by the workers, keeps it for the
	// next miss); in a module, most names (each unit has its own copy of
	// its strings in .debug_str, at its own offsets): their bytes are
	// copied once, into the name cache, not into a Go string and the
	// string cache too.
	at, _ := c.t.attr(i, dwarf.AttrName)
	b, _ := at.NameBytes(&c.t.strPages, !c.rel)
	if len(b) == 0 || len(b) > maxCachedName {
		return strs.Append(string(b))
	}
	pos := nc.store(b) // may empty the slots: take the slot again
	slot = &nc.slots[slotIndex(key, nc.shift)]
	*slot = nameSlot{key: key, gen: nc.gen, at: pos}
	slot.off = strs.Append(nc.name(slot))
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
	slot := &fsc.slots[slotIndex(key, fsc.shift)]
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
