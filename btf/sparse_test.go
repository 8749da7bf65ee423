package btf

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// sparseMix returns a base of n types of every shape of words (none, one,
// three, per vlen), with a struct of many members now and then so that
// some types start deltaFar or more words after their anchor.
func sparseMix(n int) *Spec {
	s := NewSpec()
	intID := s.Add(Type{NameOff: s.Strings().Add("int"), Info: MakeInfo(KindInt, 0, false), SizeOrType: 4}, MakeIntInfo(IntSigned, 0, 32))
	for i := 1; s.Len() < n; i++ {
		name := s.Strings().Add(fmt.Sprintf("t%d", i))
		switch i % 7 {
		case 0:
			s.Add(Type{Info: MakeInfo(KindPtr, 0, false), SizeOrType: uint32(intID)})
		case 1:
			s.Add(Type{Info: MakeInfo(KindArray, 0, false)}, uint32(intID), uint32(intID), uint32(i))
		case 2: // a struct of i%5 members, or now and then of 100
			m := i % 5
			if i%61 == 2 {
				m = 100
			}
			var w []uint32
			for j := range m {
				w = append(w, uint32(name), uint32(intID), uint32(32*j))
			}
			s.Add(Type{NameOff: name, Info: MakeInfo(KindStruct, uint32(m), false), SizeOrType: uint32(4 * m)}, w...)
		case 3:
			s.Add(Type{NameOff: name, Info: MakeInfo(KindEnum, 2, false), SizeOrType: 4}, uint32(name), 1, uint32(name), 2)
		case 4:
			s.Add(Type{Info: MakeInfo(KindFuncProto, 1, false), SizeOrType: uint32(intID)}, 0, uint32(intID))
		case 5:
			s.Add(Type{NameOff: name, Info: MakeInfo(KindVar, 0, false), SizeOrType: uint32(intID)}, LinkageGlobal)
		default:
			s.Add(Type{NameOff: name, Info: MakeInfo(KindTypedef, 0, false), SizeOrType: uint32(intID)})
		}
	}
	return s
}

// TestSparseSpec: a base loaded for the process is sparse (no offset per
// type) and reads as the same BTF loaded on the heap: every type's words,
// its offsets counted, its structure check, a view, and types added and
// truncated after it.
func TestSparseSpec(t *testing.T) {
	for _, n := range []int{1, anchorEvery - 1, anchorEvery, anchorEvery + 1, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := sparseMix(n).Marshal()
			dense, err := LoadRaw(bytes.NewReader(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			sparse, err := LoadRawForProcess(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if dense.Sparse() || !sparse.Sparse() {
				t.Fatalf("Sparse: %v loaded on the heap, %v for the process", dense.Sparse(), sparse.Sparse())
			}
			if _, at, _ := sparse.Raw(); at != nil {
				t.Error("a sparse Spec's Raw gave offsets")
			}
			if !slices.Equal(sparse.Offsets(), dense.Offsets()) {
				t.Error("Offsets differ")
			}
			far := 0
			for id := TypeID(1); id < dense.NextID(); id++ {
				if !slices.Equal(sparse.Extra(id), dense.Extra(id)) || !slices.Equal(sparse.LocalExtra(int(id-1)), dense.Extra(id)) {
					t.Fatalf("type %d: words %v, want %v", id, sparse.Extra(id), dense.Extra(id))
				}
				if sparse.TypeOffset(id) != dense.TypeOffset(id) {
					t.Fatalf("type %d: offset %d, want %d", id, sparse.TypeOffset(id), dense.TypeOffset(id))
				}
				if sparse.deltas[id-1] == deltaFar {
					far++
				}
			}
			if n == 5000 && far == 0 {
				t.Error("no type is deltaFar words past its anchor: the far path is not tested")
			}
			if err := sparse.CheckStructure(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sparse.Marshal(), data) {
				t.Fatal("the sparse Spec marshals differently")
			}
			// A view, then types added and dropped again.
			v := sparse.View()
			next := sparse.NextID()
			intID := TypeID(1)
			sparse.Add(Type{Info: MakeInfo(KindStruct, 200, false), SizeOrType: 800}, make([]uint32, 600)...)
			sparse.Add(Type{Info: MakeInfo(KindArray, 0, false)}, uint32(intID), uint32(intID), 7)
			if got := sparse.Array(next + 1); got.Nelems != 7 || len(sparse.Extra(next)) != 600 {
				t.Errorf("types added to a sparse Spec read back as %+v, %d words", got, len(sparse.Extra(next)))
			}
			if v.NextID() != next || !slices.Equal(v.Extra(next-1), dense.Extra(next-1)) {
				t.Error("the view changed")
			}
			sparse.Truncate(next + 1)
			if sparse.NextID() != next+1 || !slices.Equal(sparse.Offsets()[:len(dense.Offsets())], dense.Offsets()) {
				t.Error("Truncate")
			}
			sparse.Truncate(next)
			if !bytes.Equal(sparse.Marshal(), data) {
				t.Fatal("added and truncated, the sparse Spec marshals differently")
			}
		})
	}
}

// TestWordCount: Type.WordCount is Kind.ExtraWords for every kind.
func TestWordCount(t *testing.T) {
	for k := Kind(0); k <= kindMask; k++ {
		for _, vlen := range []uint32{0, 1, 2, 1000, MaxVlen} {
			want := k.ExtraWords(vlen)
			if want < 0 {
				want = 0
			}
			if got := (Type{Info: MakeInfo(k, vlen, true)}).WordCount(); got != uint32(want) {
				t.Errorf("%s vlen %d: %d words, want %d", k, vlen, got, want)
			}
		}
	}
}
