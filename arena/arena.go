package arena

import "sync"

// TagID indexes Arena.Tags. Ids are dense, in DIE order: a parent's id is
// smaller than its children's, and siblings ascend.
type TagID uint32

// NoTag is the "none" value of Parent, FirstChild and NextSibling.
const NoTag TagID = ^TagID(0)

// DIEOff is the offset of a DIE in its section (.debug_info or
// .debug_types). Sections above 4 GiB are rejected by the reader.
type DIEOff uint32

// Tag is one decoded DIE, a fixed-size record with no pointers so that the
// garbage collector never scans an arena's tags and the record has the same
// size on 32- and 64-bit hosts.
//
// Size: 24 bytes (6 × uint32), checked by TestSizes.
type Tag struct {
	Off         DIEOff // section offset of the DIE
	Parent      TagID  // NoTag for the unit DIE
	FirstChild  TagID  // NoTag when the DIE has no children
	NextSibling TagID  // NoTag for the last child
	Vals        uint32 // index in Arena.Vals of the DIE's first attribute value
	Abbrev      uint32 // index of the DIE's abbreviation in the unit's table
}

// Arena holds every decoded DIE of one unit in three flat slices. It owns
// no pointers besides the slice headers; Reset keeps the capacity, so a
// pooled arena decodes the next unit without allocating.
type Arena struct {
	// Tags are the DIEs in section order; Tags[0] is the unit DIE.
	Tags []Tag
	// Vals holds one 64-bit word per attribute of each DIE, in
	// abbreviation order, starting at Tag.Vals. What the word means
	// depends on the attribute's form (see the reader's documentation).
	Vals []uint64
	// Bytes holds the unit's raw bytes. Variable-size payloads (blocks,
	// exprlocs, inline strings, data16) are referenced from Vals by
	// position in Bytes and are never copied.
	Bytes []byte
	// Index is the reader's offset index of Tags (for its DIE lookups by
	// offset; three words per 64 bytes of the unit, their meaning the
	// reader's). It lives here so that a pooled arena reuses it with the
	// rest; Footprint does not count it.
	Index [][3]uint32
	// Extra holds per-value side information the fixed records have no
	// room for (the actual form of DW_FORM_indirect values), keyed by
	// index in Vals. It is nil unless needed.
	Extra map[uint32]uint32
}

// Reset empties the arena and keeps its capacity.
func (a *Arena) Reset() {
	a.Tags = a.Tags[:0]
	a.Vals = a.Vals[:0]
	a.Bytes = a.Bytes[:0]
	a.Index = a.Index[:0]
	if a.Extra != nil {
		clear(a.Extra)
	}
}

// Footprint returns the bytes held by Tags, Vals and Bytes (capacity);
// the memory plan sizes units by these and leaves Index out.
func (a *Arena) Footprint() uint64 {
	return uint64(cap(a.Tags))*24 + uint64(cap(a.Vals))*8 + uint64(cap(a.Bytes))
}

// Pool recycles arenas. It keeps at most Max idle arenas (sync.Pool would
// drop them at every GC cycle and make the heap saw-tooth); arenas whose
// footprint exceeds MaxKeep bytes are dropped instead of kept, so one huge
// unit does not pin its memory for the rest of the run.
type Pool struct {
	Max     int
	MaxKeep uint64

	mu   sync.Mutex
	free []*Arena
}

// Get returns an empty arena.
func (p *Pool) Get() *Arena {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		a := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return a
	}
	return new(Arena)
}

// Put resets a and keeps it for reuse if the pool has room.
func (p *Pool) Put(a *Arena) {
	if a == nil {
		return
	}
	a.Reset()
	if p.MaxKeep != 0 && a.Footprint() > p.MaxKeep {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < max(p.Max, 1) {
		p.free = append(p.free, a)
	}
}

// Drain drops the idle arenas, for when no more units will be decoded.
func (p *Pool) Drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.free)
	p.free = nil
}
