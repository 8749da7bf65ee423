package dedup

import (
	"encoding/binary"
	"fmt"

	"github.com/btfstream/btfstream/btf"
)

// RecordStore keeps byte records out of memory for an Incremental: the
// encoder passes one backed by a zstd spill file (stream/merge adapts a
// spill.Store), so dedup itself imports btf only. Append copies rec and
// returns its index (0, 1, ...); Get returns record i, valid until Close.
type RecordStore interface {
	Append(rec []byte) (uint32, error)
	Get(i uint32) ([]byte, error)
	Close() error
}

// SetStore gives the Incremental somewhere to put what it will read again
// only in order. Finish writes the old table there while it rebuilds it,
// so the old and the new table are not both in memory (on a vmlinux, 3-4
// MiB each). newStore is called once per rebuild; nil (the default): the
// old table stays in memory.
func (d *Incremental) SetStore(newStore func() RecordStore) { d.newStore = newStore }

// storedTypes is a table's types written to a RecordStore in groups:
// each record holds up to groupTypes types, each as its three header
// words, its number of extra words and those words (little endian).
type storedTypes struct {
	st    RecordStore
	n     uint32 // records
	first uint32 // id of the first type
	count uint32 // types
}

const groupTypes = 1024

// storeTypes writes the local types of s to a new store of d's.
func (d *Incremental) storeTypes(s *btf.Spec) (*storedTypes, error) {
	ts := &storedTypes{st: d.newStore(), first: uint32(s.FirstID()), count: uint32(s.Len())}
	var rec []byte
	flush := func() error {
		if len(rec) == 0 {
			return nil
		}
		if _, err := ts.st.Append(rec); err != nil {
			return err
		}
		ts.n++
		rec = rec[:0]
		return nil
	}
	for id := s.FirstID(); id < s.NextID(); id++ {
		t, w := s.Type(id), s.Extra(id)
		rec = binary.LittleEndian.AppendUint32(rec, uint32(t.NameOff))
		rec = binary.LittleEndian.AppendUint32(rec, t.Info)
		rec = binary.LittleEndian.AppendUint32(rec, t.SizeOrType)
		rec = binary.LittleEndian.AppendUint32(rec, uint32(len(w)))
		for _, x := range w {
			rec = binary.LittleEndian.AppendUint32(rec, x)
		}
		if (id-s.FirstID()+1)%groupTypes == 0 {
			if err := flush(); err != nil {
				ts.st.Close()
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		ts.st.Close()
		return nil, err
	}
	return ts, nil
}

// typeReader reads stored types back in id order.
type typeReader struct {
	ts  *storedTypes
	r   uint32 // next record
	rec []byte // rest of the current record
	id  uint32 // id of the next type
	w   []uint32
	err error
}

func (ts *storedTypes) reader() *typeReader { return &typeReader{ts: ts, id: ts.first} }

// next returns the next type and its words (valid until the next call);
// ok is false after the last one or on an error (tr.err).
func (tr *typeReader) next() (btf.Type, []uint32, bool) {
	for len(tr.rec) == 0 {
		if tr.r >= tr.ts.n {
			if tr.id != tr.ts.first+tr.ts.count && tr.err == nil {
				tr.err = fmt.Errorf("dedup: %d stored types read back, want %d", tr.id-tr.ts.first, tr.ts.count)
			}
			return btf.Type{}, nil, false
		}
		rec, err := tr.ts.st.Get(tr.r)
		if err != nil {
			tr.err = err
			return btf.Type{}, nil, false
		}
		tr.rec = rec
		tr.r++
	}
	rec := tr.rec
	if len(rec) < 16 || len(rec)-16 < 4*int(binary.LittleEndian.Uint32(rec[12:])) {
		tr.err = fmt.Errorf("dedup: stored type [%d] truncated", tr.id)
		tr.r, tr.rec = tr.ts.n, nil
		return btf.Type{}, nil, false
	}
	t := btf.Type{NameOff: btf.StrOff(binary.LittleEndian.Uint32(rec)), Info: binary.LittleEndian.Uint32(rec[4:]),
		SizeOrType: binary.LittleEndian.Uint32(rec[8:])}
	nw := int(binary.LittleEndian.Uint32(rec[12:]))
	rec = rec[16:]
	tr.w = tr.w[:0]
	for j := 0; j < nw; j++ {
		tr.w = append(tr.w, binary.LittleEndian.Uint32(rec[4*j:]))
	}
	tr.rec = rec[4*nw:]
	tr.id++
	return t, tr.w, true
}
