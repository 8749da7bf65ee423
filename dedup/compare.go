package dedup

import (
	"fmt"

	"github.com/btfstream/btfstream/btf"
)

// Comparison is the result of Compare: the equivalence classes of the
// disjoint union of two BTFs (VAR and DATASEC included, compared like any
// other type) and, per class, how many more types A has than B.
type Comparison struct {
	A, B   *btf.Spec
	classA []uint32 // by A local index: class (a local index in the union)
	classB []uint32
	delta  []int32 // by class: members in A minus members in B
	inA    []bool  // by class: A has a member (over a base: see Equal)
	inB    []bool
	graph  bool   // compared as graphs: over a base, or asked (CompareGraphs)
	n      uint32 // types in the union; class n+id is base type id
	d      *Incremental
}

// Compare computes the complete equivalence over the disjoint union of a
// and b, independent of ids and order. Both must be base BTF, or split
// BTF over the same base.
func Compare(a, b *btf.Spec) (*Comparison, error) { return compare(a, b, true) }

// CompareGraphs is Compare with the graph meaning of Equal even without a
// base: types identical to each other are one node, so a side may hold
// more of them than the other. For BTF flattened from split BTF over a
// distilled base (an out-of-tree module's .BTF with its .BTF.base), where
// libbpf's copies of base types end up next to the base types they copy.
func CompareGraphs(a, b *btf.Spec) (*Comparison, error) {
	c, err := compare(a, b, true)
	if err == nil {
		c.graph = true
	}
	return c, err
}

// compare is Compare; without mergeAll, VAR and DATASEC stay distinct as
// in Dedup.
func compare(a, b *btf.Spec, mergeAll bool) (*Comparison, error) {
	if a.Base() != b.Base() {
		return nil, fmt.Errorf("dedup: compare: A and B have different bases")
	}
	for _, s := range []*btf.Spec{a, b} {
		if err := checkRefs(s); err != nil {
			return nil, err
		}
	}
	d, err := newIncremental(a.Base(), mergeAll)
	if err != nil {
		return nil, err
	}
	t0 := uint32(d.NextID())
	u := d.NewBatch()
	u.Grow(a.Len()+b.Len(), 0)
	copyIn := func(s *btf.Spec, shift uint32) {
		v := viewOf(s.Strings())
		ust := u.Strings()
		first := uint32(s.FirstID())
		ref := func(c uint32) uint32 {
			if c < first {
				return c
			}
			return c - first + t0 + shift
		}
		str := func(off uint32) uint32 { return uint32(ust.AddBytes(v.bytes(off))) }
		var w []uint32
		for id := s.FirstID(); id < s.NextID(); id++ {
			t := s.Type(id)
			w = append(w[:0], s.Extra(id)...)
			mapWords(&t, w, ref, str)
			u.Add(t, w...)
		}
	}
	copyIn(a, 0)
	copyIn(b, uint32(a.Len()))
	st := d.loadSpec(u)
	st.run()
	n := uint32(u.Len())
	c := &Comparison{A: a, B: b, delta: make([]int32, n+t0), n: n, d: d, graph: a.Base() != nil,
		inA: make([]bool, n+t0), inB: make([]bool, n+t0)}
	class := func(i int) uint32 {
		if r := st.res[i]; r >= t0 {
			return r - t0
		} else {
			return n + r // equivalent to a base type
		}
	}
	c.classA = make([]uint32, a.Len())
	for i := range c.classA {
		c.classA[i] = class(i)
		c.delta[c.classA[i]]++
		c.inA[c.classA[i]] = true
	}
	c.classB = make([]uint32, b.Len())
	for i := range c.classB {
		c.classB[i] = class(a.Len() + i)
		c.delta[c.classB[i]]--
		c.inB[c.classB[i]] = true
	}
	return c, nil
}

// Equal reports whether A and B hold the same multiset of types; split
// BTF over a base, whether they are the same graph over the base. There a
// type of A or B identical to a base type (a copy of it, as libbpf leaves
// in modules: see BaseCopies) is that base type, on both sides, and so
// counts for neither; and types identical to each other are one node of
// the graph: a side may hold more of them than the other (Duplicates).
// libbpf makes such twins out of copies: in nfsd.ko it keeps a copy of
// struct xdr_stream, and a prototype taking a pointer to the copy beside
// the same prototype taking one to the base's.
func (c *Comparison) Equal() bool {
	for k, d := range c.delta {
		if d == 0 || c.isBase(uint32(k)) {
			continue
		}
		if !c.graph || c.inA[k] != c.inB[k] {
			return false
		}
	}
	return true
}

// Duplicates returns, over a base, how many types of A and of B are
// identical to an earlier type of the same side (not to a base type).
func (c *Comparison) Duplicates() (a, b int) {
	count := func(cl []uint32) int {
		seen := make(map[uint32]bool)
		n := 0
		for _, k := range cl {
			if c.isBase(k) {
				continue
			}
			if seen[k] {
				n++
			}
			seen[k] = true
		}
		return n
	}
	return count(c.classA), count(c.classB)
}

// isBase reports whether class k is that of a base type.
func (c *Comparison) isBase(k uint32) bool { return k >= c.n }

// BaseCopies returns how many types of A and of B are identical to a base
// type (0 and 0 without a base).
func (c *Comparison) BaseCopies() (a, b int) {
	for _, k := range c.classA {
		if c.isBase(k) {
			a++
		}
	}
	for _, k := range c.classB {
		if c.isBase(k) {
			b++
		}
	}
	return a, b
}

// BaseCopiesOf returns the types of A (side 0) or B (side 1) identical to
// a base type, with the base type each is a copy of.
func (c *Comparison) BaseCopiesOf(side int) (ids, of []btf.TypeID) {
	s, cl := c.A, c.classA
	if side == 1 {
		s, cl = c.B, c.classB
	}
	for i, k := range cl {
		if c.isBase(k) {
			ids = append(ids, s.FirstID()+btf.TypeID(i))
			of = append(of, btf.TypeID(k-c.n))
		}
	}
	return ids, of
}

// Unmatched returns the types of A and of B that have no counterpart on
// the other side (for a class with n more members in A, its last n A
// members; likewise for B). Over a base, the types of the classes only
// one side has; copies of base types are never unmatched.
func (c *Comparison) Unmatched() (onlyA, onlyB []btf.TypeID) {
	if c.graph {
		// The types of classes only one side has.
		for i, k := range c.classA {
			if !c.isBase(k) && !c.inB[k] {
				onlyA = append(onlyA, c.A.FirstID()+btf.TypeID(i))
			}
		}
		for i, k := range c.classB {
			if !c.isBase(k) && !c.inA[k] {
				onlyB = append(onlyB, c.B.FirstID()+btf.TypeID(i))
			}
		}
		return onlyA, onlyB
	}
	left := make([]int32, len(c.delta))
	copy(left, c.delta)
	for i := len(c.classA) - 1; i >= 0; i-- {
		if k := c.classA[i]; left[k] > 0 && !c.isBase(k) {
			left[k]--
			onlyA = append(onlyA, c.A.FirstID()+btf.TypeID(i))
		}
	}
	for i := len(c.classB) - 1; i >= 0; i-- {
		if k := c.classB[i]; left[k] < 0 && !c.isBase(k) {
			left[k]++
			onlyB = append(onlyB, c.B.FirstID()+btf.TypeID(i))
		}
	}
	reverse(onlyA)
	reverse(onlyB)
	return onlyA, onlyB
}

func reverse(s []btf.TypeID) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// classOf returns the class of an id of A (side 0) or B (side 1); ids below
// the local range (void, base) have the classes past the union.
func (c *Comparison) classOf(side int, id btf.TypeID) uint32 {
	s, cl := c.A, c.classA
	if side == 1 {
		s, cl = c.B, c.classB
	}
	if id < s.FirstID() {
		return c.n + c.d.canonEx(uint32(id))
	}
	return cl[id-s.FirstID()]
}

// Explain says how type a of A differs from type b of B, naming the first
// difference: a label field, or an edge leading to inequivalent types.
func (c *Comparison) Explain(a, b btf.TypeID) string {
	ta, tb := c.A.Type(a), c.B.Type(b)
	switch {
	case c.classOf(0, a) == c.classOf(1, b):
		return "equivalent"
	case ta.Kind() != tb.Kind():
		return fmt.Sprintf("kind %s vs %s", ta.Kind(), tb.Kind())
	case c.A.Name(a) != c.B.Name(b):
		return fmt.Sprintf("name '%s' vs '%s'", c.A.Name(a), c.B.Name(b))
	case ta.Vlen() != tb.Vlen():
		return fmt.Sprintf("vlen %d vs %d", ta.Vlen(), tb.Vlen())
	case ta.KindFlag() != tb.KindFlag():
		return fmt.Sprintf("kind_flag %v vs %v", ta.KindFlag(), tb.KindFlag())
	case ta.Kind().HasSize() && ta.Size() != tb.Size():
		return fmt.Sprintf("size %d vs %d", ta.Size(), tb.Size())
	}
	va, vb := viewOf(c.A.Strings()), viewOf(c.B.Strings())
	if !labelEq(node{ta, c.A.Extra(a), &va}, node{tb, c.B.Extra(b), &vb}) {
		return fmt.Sprintf("contents differ: %s vs %s", FormatType(c.A, a), FormatType(c.B, b))
	}
	// Prefer an edge whose targets differ in themselves over one whose
	// targets differ only further down.
	wa, wb := c.A.Extra(a), c.B.Extra(b)
	first := -1
	for j, n := 0, numRefs(ta, wa); j < n; j++ {
		x, y := btf.TypeID(refAt(ta, wa, j)), btf.TypeID(refAt(tb, wb, j))
		if c.classOf(0, x) == c.classOf(1, y) {
			continue
		}
		if first < 0 {
			first = j
		}
		if x == 0 || y == 0 || !labelEq(node{c.A.Type(x), c.A.Extra(x), &va}, node{c.B.Type(y), c.B.Extra(y), &vb}) {
			return fmt.Sprintf("%s differs: %s vs %s", edgeName(c.A, a, j), FormatType(c.A, x), FormatType(c.B, y))
		}
	}
	if first >= 0 {
		x, y := btf.TypeID(refAt(ta, wa, first)), btf.TypeID(refAt(tb, wb, first))
		return fmt.Sprintf("%s differs: %s vs %s", edgeName(c.A, a, first), FormatType(c.A, x), FormatType(c.B, y))
	}
	return "differs"
}

// Counterpart returns the unmatched type of the other side that has the
// same kind and name as id (side 0: id is in A), or 0.
func Counterpart(s *btf.Spec, id btf.TypeID, other *btf.Spec, candidates []btf.TypeID) btf.TypeID {
	k, name := s.Kind(id), s.Name(id)
	for _, o := range candidates {
		if other.Kind(o) == k && other.Name(o) == name {
			return o
		}
	}
	return 0
}
