package dedup

import (
	"fmt"
	"math/bits"

	"github.com/btfstream/btfstream/btf"
)

// Source yields the types of one BTF in id order: each call returns the
// next type and its extra words (read before the next call), and ok false
// after the last.
type Source func() (t btf.Type, extra []uint32, ok bool)

// specSource reads s's own types (not its base's) in id order.
func specSource(s *btf.Spec) Source {
	id := s.FirstID()
	return func() (btf.Type, []uint32, bool) {
		if id >= s.NextID() {
			return btf.Type{}, nil, false
		}
		id++
		return s.Type(id - 1), s.Extra(id - 1), true
	}
}

// chunkTypes is how many types a chunk of a whole-input deduplication
// holds at least before it is cut.
const chunkTypes = 1 << 14

// DedupStream deduplicates the types of a base BTF (first id 1, strings
// strs) and returns the same bytes as Dedup of a Spec holding them,
// without holding them: open is called twice and must yield the same
// types each time. The first pass plans the chunks (see plan); the second
// deduplicates chunk by chunk through a reused buffer, keeping the table
// id of only those types a later chunk references. strs is only read; the
// result has a new string table. There is no Remap: use Dedup for one.
func DedupStream(strs *btf.Strings, open func() Source) (*btf.Spec, error) {
	p, err := makePlan(1, strs, open(), chunkTypes, false)
	if err != nil {
		return nil, err
	}
	d, err := NewIncremental(nil)
	if err != nil {
		return nil, err
	}
	out, _, err := d.dedupAll(p, strs, open())
	return out, err
}

// A plan cuts an input into chunks of at least size types, each cut placed
// only where no type before it references a type after it, so that every
// chunk is a valid batch: its edges lead to void, the base, earlier chunks
// or into the chunk. Since the result does not depend on how the input is
// cut into batches, deduplicating the chunks one by one equals
// deduplicating the input as one batch, with the working set of a chunk.
// (On a vmlinux, about 70k of its 108k types end a valid cut; the longest
// stretch without one is 38k types.)
//
// The plan also marks the types that a later chunk references: only their
// table ids need to be kept (about 8k per vmlinux copy, with 16k-type
// chunks), found by rank in the bitmap.
type plan struct {
	first uint32
	end   uint32   // one past the last input id
	cuts  []uint32 // one past the last input id of each chunk, ascending
	all   bool     // keep every type's table id
	kept  []uint64 // by id - first: referenced by a later chunk
	rank  []uint32 // by word of kept: bits set in earlier words

	maxTypes, maxWords int // largest chunk: types, extra words
}

func makePlan(first uint32, strs *btf.Strings, next Source, size int, keepAll bool) (*plan, error) {
	p := &plan{first: first, all: keepAll}
	start := first      // first id of the current chunk
	maxRef := uint32(0) // largest edge so far (0: none; an empty input has none)
	maxAt, maxType := first, btf.Type{}
	id := first
	words := 0 // extra words in the current chunk
	cut := func() {
		p.cuts = append(p.cuts, id)
		p.maxTypes, p.maxWords = max(p.maxTypes, int(id-start)), max(p.maxWords, words)
		start, words = id, 0
	}
	for {
		t, w, ok := next()
		if !ok {
			break
		}
		for j, k := 0, numRefs(t, w); j < k; j++ {
			r := refAt(t, w, j)
			if r > maxRef {
				maxRef, maxAt, maxType = r, id, t
			}
			if !keepAll && r >= first && r < start {
				i := r - first
				for int(i/64) >= len(p.kept) {
					p.kept = append(p.kept, 0)
				}
				p.kept[i/64] |= 1 << (i % 64)
			}
		}
		id++
		words += len(w)
		if id-start >= uint32(size) && maxRef < id {
			cut()
		}
	}
	p.end = id
	if maxRef >= id {
		v := viewOf(strs)
		return nil, &btf.FormatError{Off: -1, ID: btf.TypeID(maxAt), Kind: maxType.Kind(),
			Msg: fmt.Sprintf("%q references type [%d], last id is %d", v.bytes(uint32(maxType.NameOff)), maxRef, id-1)}
	}
	if start < id {
		cut()
	}
	if keepAll {
		return p, nil
	}
	p.rank = make([]uint32, len(p.kept))
	n := uint32(0)
	for i, x := range p.kept {
		p.rank[i] = n
		n += uint32(bits.OnesCount64(x))
	}
	return p, nil
}

// keeps reports whether the table id of input id i must be kept.
func (p *plan) keeps(i uint32) bool {
	if p.all {
		return true
	}
	i -= p.first
	return int(i/64) < len(p.kept) && p.kept[i/64]&(1<<(i%64)) != 0
}

// slot returns where the kept table id of input id i is.
func (p *plan) slot(i uint32) uint32 {
	if p.all {
		return i - p.first
	}
	i -= p.first
	return p.rank[i/64] + uint32(bits.OnesCount64(p.kept[i/64]&(1<<(i%64)-1)))
}

// dedupAll deduplicates the input next yields in the chunks of plan p,
// then finishes. It returns the table ids the plan keeps (all of them if
// p keeps all), as final ids.
func (d *Incremental) dedupAll(p *plan, strs *btf.Strings, next Source) (*btf.Spec, []btf.TypeID, error) {
	kept, err := d.feed(p, strs, next)
	if err != nil {
		return nil, nil, err
	}
	out, r2, err := d.Finish()
	if err != nil {
		return nil, nil, err
	}
	for i, id := range kept {
		kept[i] = r2.Map(id)
	}
	return out, kept, nil
}

// feed deduplicates the input next yields (strings strs) into the table
// in the chunks of plan p, and returns the table ids the plan keeps (all
// of them if p keeps all), by p.slot.
func (d *Incremental) feed(p *plan, strs *btf.Strings, next Source) ([]btf.TypeID, error) {
	var kept []btf.TypeID // table id of each kept input type, by p.slot
	if p.all {
		kept = make([]btf.TypeID, 0, p.end-p.first)
	}
	// One chunk buffer, sized for the largest chunk, serves all.
	remap := make([]btf.TypeID, p.maxTypes) // by chunk index: table id
	d.reserve(p.maxTypes, p.maxWords)
	start := p.first
	for _, end := range p.cuts {
		st := d.batch(uint32(d.table.NextID()), strs)
		for id := start; id < end; id++ {
			t, w, ok := next()
			if !ok {
				return nil, fmt.Errorf("dedup: input ended at type [%d], first pass read %d types", id, p.end-p.first)
			}
			st.add(t, w)
		}
		// Input ids to batch ids.
		shift := st.t0 - start
		ref := func(r uint32) uint32 {
			switch {
			case r < p.first:
				return r
			case r < start:
				return uint32(kept[p.slot(r)])
			}
			return r + shift
		}
		for i := range st.types {
			t, w := st.typ(uint32(i))
			mapWords(&t, w, ref, nil)
			st.types[i] = t
		}
		st.ready()
		st.adjustBase()
		st.run()
		remap = remap[:st.n]
		st.commit(remap)
		for i, r := range remap {
			if p.keeps(start + uint32(i)) {
				kept = append(kept, r)
			}
		}
		start = end
	}
	return kept, nil
}
