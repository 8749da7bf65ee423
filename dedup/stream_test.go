package dedup

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// oneBatch deduplicates s as a single AddBatch (what Dedup did before it
// cut its input into chunks).
func oneBatch(t *testing.T, s *btf.Spec) (*btf.Spec, Remap) {
	t.Helper()
	d, err := NewIncremental(s.Base())
	if err != nil {
		t.Fatal(err)
	}
	r1, err := d.AddBatch(s)
	if err != nil {
		t.Fatal(err)
	}
	out, r2, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range r1.IDs {
		r1.IDs[i] = r2.Map(id)
	}
	return out, r1
}

// rebuildsSeen counts the Finish rebuilds of checkChunked's inputs, so
// the tests know the chunked rebuild was exercised.
var rebuildsSeen int

// checkChunked checks that every chunk size, and DedupStream, give the
// bytes and remap of one batch, and that Finish's rebuild in chunks of
// every size gives the bytes of a rebuild in one.
func checkChunked(t *testing.T, in *btf.Spec, sizes ...int) {
	t.Helper()
	want, wantMap := oneBatch(t, in)
	raw := want.Marshal()
	for _, size := range sizes {
		for _, stored := range []bool{false, true} {
			d, err := NewIncremental(in.Base())
			if err != nil {
				t.Fatal(err)
			}
			d.rebuildChunk = size
			var stores []*memStore
			if stored {
				d.SetStore(func() RecordStore { s := &memStore{}; stores = append(stores, s); return s })
			}
			if _, err := d.AddBatch(in); err != nil {
				t.Fatal(err)
			}
			out, _, err := d.Finish()
			if err != nil {
				t.Fatal(err)
			}
			rebuildsSeen += d.rebuilds
			if !bytes.Equal(out.Marshal(), raw) {
				t.Fatalf("Finish rebuilding in chunks of %d (stored %v) differs from one batch:\n\t%v\nvs\n\t%v", size, stored, dump(out), dump(want))
			}
			if stored && in.Base() == nil && len(stores) != d.rebuilds {
				t.Fatalf("%d rebuilds, %d stores", d.rebuilds, len(stores))
			}
			for _, s := range stores {
				if !s.closed {
					t.Fatal("a rebuild's store was left open")
				}
			}
		}
	}
	for _, size := range sizes {
		out, remap, err := dedupSpec(in, size)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Marshal(), raw) || !slices.Equal(remap.IDs, wantMap.IDs) {
			t.Fatalf("chunks of %d differ from one batch:\n\t%v\nvs\n\t%v\ninput\n\t%v", size, dump(out), dump(want), dump(in))
		}
	}
	if in.Base() != nil {
		return
	}
	open := func() Source { return specSource(in) }
	for _, size := range sizes {
		p, err := makePlan(1, in.Strings(), open(), size, false)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := NewIncremental(nil)
		out, kept, err := d.dedupAll(p, in.Strings(), open())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Marshal(), raw) {
			t.Fatalf("streamed chunks of %d differ from one batch", size)
		}
		// The kept ids are those of the types a later chunk references.
		for id := in.FirstID(); id < in.NextID(); id++ {
			if p.keeps(uint32(id)) && kept[p.slot(uint32(id))] != wantMap.Map(id) {
				t.Fatalf("chunks of %d: kept id of [%d] is %d, want %d", size, id, kept[p.slot(uint32(id))], wantMap.Map(id))
			}
		}
	}
	out, err := DedupStream(in.Strings(), open)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Marshal(), raw) {
		t.Fatalf("DedupStream differs from one batch")
	}
}

func TestChunksCases(t *testing.T) {
	before := rebuildsSeen
	for _, c := range dedupCases {
		t.Run(c.name, func(t *testing.T) {
			_, _, in := buildCase(c)
			checkChunked(t, in, 1, 2, 3, 1<<30)
		})
	}
	if rebuildsSeen == before {
		t.Error("no case resolved a declaration in Finish: the chunked rebuild was not tested")
	}
}

func TestChunksProperties(t *testing.T) {
	trials := 200
	if testing.Short() {
		trials = 30
	}
	rng := rand.New(rand.NewSource(3))
	before := rebuildsSeen
	for trial := 0; trial < trials; trial++ {
		cus, perms := genInput(rng, trial%2 == 1)
		checkChunked(t, concat(cus, perms), 1, 2, 5, 17)
	}
	t.Logf("%d rebuilds in chunks", rebuildsSeen-before)
	if rebuildsSeen == before {
		t.Error("no input resolved a declaration in Finish: the chunked rebuild was not tested")
	}
}

func TestChunksVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	checkChunked(t, copies(vmlinuxBTF(t), 2), 1, 1000, 1<<30)
}

// A chunk must not be cut before a type that an earlier one references.
func TestChunksForwardReference(t *testing.T) {
	s := btf.NewSpec()
	ptr := btf.MakeInfo(btf.KindPtr, 0, false)
	s.Add(btf.Type{Info: ptr, SizeOrType: 3})
	s.Add(btf.Type{Info: ptr, SizeOrType: 4})
	s.Add(btf.Type{Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, 32)
	s.Add(btf.Type{Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, 32)
	checkChunked(t, s, 1, 2)
	s.Add(btf.Type{Info: ptr, SizeOrType: 9})
	if _, _, err := dedupSpec(s, 1); err == nil {
		t.Error("dangling reference accepted")
	}
}

// memStore is a RecordStore in memory.
type memStore struct {
	recs   [][]byte
	closed bool
	fail   int // Get of record fail-1 fails (0: none)
}

func (m *memStore) Append(rec []byte) (uint32, error) {
	m.recs = append(m.recs, bytes.Clone(rec))
	return uint32(len(m.recs) - 1), nil
}

func (m *memStore) Get(i uint32) ([]byte, error) {
	if m.fail != 0 && int(i) == m.fail-1 {
		return nil, errStoreRead
	}
	return m.recs[i], nil
}

func (m *memStore) Close() error { m.closed = true; return nil }

var errStoreRead = errors.New("store read failed")

// TestRebuildStoreError: a store that fails to read back makes Finish
// fail with its error, not with a wrong table.
func TestRebuildStoreError(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; ; trial++ {
		if trial > 500 {
			t.Fatal("no generated input resolved a declaration in Finish")
		}
		cus, perms := genInput(rng, false)
		in := concat(cus, perms)
		d, _ := NewIncremental(nil)
		d.SetStore(func() RecordStore { return &memStore{fail: 1} })
		if _, err := d.AddBatch(in); err != nil {
			t.Fatal(err)
		}
		_, _, err := d.Finish()
		if d.rebuilds == 0 {
			continue
		}
		if !errors.Is(err, errStoreRead) {
			t.Fatalf("Finish with a failing store: %v", err)
		}
		return
	}
}

// TestReserve: room reserved at once is used without growing the table
// or its per-type state again, and changes nothing in the output.
func TestReserve(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	cus, perms := genInput(rng, false)
	in := concat(cus, perms)
	want, _ := oneBatch(t, in)
	d, _ := NewIncremental(nil)
	d.Reserve(in.Len(), 0, in.Len())
	hashCap, room := cap(d.hash), d.room
	if _, err := d.AddBatch(in); err != nil {
		t.Fatal(err)
	}
	if cap(d.hash) != hashCap || room < in.Len() {
		t.Errorf("per-type state grew from %d to %d (room %d for %d types)", hashCap, cap(d.hash), room, in.Len())
	}
	got, _, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Marshal(), want.Marshal()) {
		t.Error("output with Reserve differs")
	}
}
