package merge

import (
	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
)

// typeSink receives the encoder's batches: dedup.Incremental in
// production; flatSink (no deduplication) in tests that compare type sets
// on inputs too big to deduplicate quickly.
type typeSink interface {
	NewBatch() *btf.Spec
	AddBatch(*btf.Spec) (dedup.Remap, error)
	Table() *btf.Spec
	Finish() (*btf.Spec, dedup.Remap, error)
}

// flatSink appends every batch as is: ids do not change.
type flatSink struct{ s *btf.Spec }

func newFlatSink(base *btf.Spec) *flatSink {
	if base != nil {
		return &flatSink{btf.NewSplitSpec(base)}
	}
	return &flatSink{btf.NewSpec()}
}

func (f *flatSink) NewBatch() *btf.Spec { return btf.NewSplitSpec(f.s) }
func (f *flatSink) Table() *btf.Spec    { return f.s }

func (f *flatSink) AddBatch(b *btf.Spec) (dedup.Remap, error) {
	// Read every batch string before the table's strings grow: a split
	// string table's offsets move with its base's length.
	var names []string
	for id := b.FirstID(); id < b.NextID(); id++ {
		b.ForEachStr(id, func(off *uint32) { names = append(names, b.Strings().Name(btf.StrOff(*off))) })
	}
	strs := f.s.Strings()
	k := 0
	for id := b.FirstID(); id < b.NextID(); id++ {
		nid := f.s.Add(b.Type(id), append([]uint32(nil), b.Extra(id)...)...)
		f.s.ForEachStr(nid, func(off *uint32) { *off = uint32(strs.Add(names[k])); k++ })
	}
	return dedup.Remap{}, nil
}

func (f *flatSink) Finish() (*btf.Spec, dedup.Remap, error) { return f.s, dedup.Remap{}, nil }
