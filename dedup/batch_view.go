package dedup

import "github.com/btfstream/btfstream/btf"

// How a batch reads its types and their classes by id: batch-local types
// (i = id - t0), table types and base types. Split from batch.go, which
// keeps the batch's lifecycle and the resolution of its components.

// typ returns batch type i.
func (st *batchState) typ(i uint32) (btf.Type, []uint32) {
	return st.types[i], st.words[st.at[i]:st.at[i+1]]
}

func (st *batchState) kind(i uint32) btf.Kind {
	t, _ := st.typ(i)
	return t.Kind()
}

// nodeOf returns a view of any id: existing ids through the table, batch
// ids through the batch.
func (st *batchState) nodeOf(id uint32) node {
	if id >= st.t0 {
		t, w := st.typ(id - st.t0)
		return node{t, w, st.bv}
	}
	if i := id - st.tv.first; i < uint32(len(st.tv.types)) {
		return node{st.tv.types[i], st.tv.words[st.tv.at[i]:st.tv.at[i+1]], &st.ts}
	}
	if i := id - st.basev.first; i < uint32(len(st.basev.types)) {
		return node{st.basev.types[i], st.basev.extra(i), &st.ts}
	}
	return node{st.d.table.Type(btf.TypeID(id)), st.d.table.Extra(btf.TypeID(id)), &st.ts}
}

// bnode returns a view of batch type i.
func (st *batchState) bnode(i uint32) node {
	t, w := st.typ(i)
	return node{t, w, st.bv}
}

// typesView is a Spec's local types, read in place: id first+i is
// types[i], with words[at[i]:at[i+1]].
type typesView struct {
	first     uint32
	types     []btf.Type
	at, words []uint32
	sparse    *btf.Spec // at is nil: a sparse base, whose words it finds
}

func typesOf(s *btf.Spec) typesView {
	types, at, words := s.Raw()
	v := typesView{uint32(s.FirstID()), types, at, words, nil}
	if at == nil {
		v.sparse = s
	}
	return v
}

// extra returns the words of type i.
func (v *typesView) extra(i uint32) []uint32 {
	if v.sparse != nil {
		return v.sparse.LocalExtra(int(i))
	}
	return v.words[v.at[i]:v.at[i+1]]
}

// resolve returns the class of id, or none for an unresolved batch type.
func (st *batchState) resolve(id uint32) uint32 {
	if id < st.t0 {
		return st.d.canonEx(id)
	}
	return st.res[id-st.t0]
}

func (st *batchState) tagOf(id uint32) uint64 {
	if id < st.t0 {
		return st.d.exTag(id)
	}
	return st.btag[id-st.t0]
}

func (st *batchState) lhOf(id uint32) uint64 {
	if id < st.t0 {
		return st.d.exLHReady(id)
	}
	return st.blh[id-st.t0]
}

func (st *batchState) finOf(id uint32) bool {
	if id < st.t0 {
		return st.d.exFin(id)
	}
	return st.fin[id-st.t0]
}

func (st *batchState) hashOf(id uint32) uint64 {
	if id < st.t0 {
		return st.d.exHash(id)
	}
	return st.bhash[id-st.t0]
}

// candChild returns the class of edge j of a class c (an existing id, or a
// creator of this batch, whose edges are all resolved).
func (st *batchState) candChild(c uint32, j int) uint32 {
	n := st.nodeOf(c)
	return st.resolve(refAt(n.t, n.w, j))
}
