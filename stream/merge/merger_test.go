package merge

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/encode"
)

// indexBatch is a unit with a base type "int" of the given size, an array
// of it indexed by it, and a pointer to the array.
func indexBatch(intSize uint32) *encode.Batch {
	b := encode.NewBatch()
	s := b.Types
	in := s.Add(btf.Type{NameOff: s.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: intSize},
		btf.MakeIntInfo(btf.IntSigned, 0, 8*intSize))
	arr := s.Add(btf.Type{Info: btf.MakeInfo(btf.KindArray, 0, false)}, uint32(in), uint32(in), 4)
	s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(arr)})
	b.Name = "unit"
	b.Index = encode.IndexUse{LocalInt: in, Arrays: []btf.TypeID{arr}}
	return b
}

// TestAddPreparedFallback: a unit whose own "int" is not the index type an
// earlier unit provided is placed with the table's index type, not added
// as prepared; its Prepared (whose edges Prepare moved) must read as the
// unit did. Prepared or not, the merger's output is the same.
func TestAddPreparedFallback(t *testing.T) {
	run := func(prepare bool) []byte {
		m, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		pp := m.NewPreparer()
		for _, size := range []uint32{4, 8, 4} {
			b := indexBatch(size)
			var p *Prepared
			if prepare {
				if p, err = pp.Prepare(b, nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Add(b, p); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := m.Funcs(); err != nil {
			t.Fatal(err)
		}
		out, err := m.Finish(binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		return out.Marshal()
	}
	want, got := run(false), run(true)
	if !bytes.Equal(got, want) {
		t.Errorf("prepared units give %d bytes, unprepared %d, not the same", len(got), len(want))
	}
}
