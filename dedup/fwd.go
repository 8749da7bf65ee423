package dedup

import "github.com/btfstream/btfstream/btf"

// FWD <-> STRUCT/UNION equivalence (see the package documentation,
// "Forward declarations inside the types that hold them").

// cutKey reports whether n is a named STRUCT, UNION or FWD and returns its
// shallow key: a hash of its name and of struct-or-union (a FWD's
// kind_flag), the same for FWD 'x' and STRUCT 'x'. Parents mix this key,
// not the type's hash, so an edge to FWD x hashes like an edge to
// STRUCT x, and hashing stops there (every cycle in C passes through a
// struct or union).
func cutKey(n node) (uint64, bool) {
	var cls uint64
	switch n.t.Kind() {
	case btf.KindStruct:
		cls = fwdStruct
	case btf.KindUnion:
		cls = fwdUnion
	case btf.KindFwd:
		if n.t.KindFlag() {
			cls = fwdUnion
		}
	default:
		return 0, false
	}
	b := n.s.tail(uint32(n.t.NameOff))
	if len(b) == 0 || b[0] == 0 {
		return 0, false
	}
	return finalize(mix(mix(0x73686c6c, cls), cstrHash(b))), true
}

// fwdMatch reports whether f (a FWD) and s (a STRUCT or UNION) stand for
// the same type: equal names, and the FWD's kind_flag names s's kind.
func fwdMatch(f, s node) bool {
	switch s.t.Kind() {
	case btf.KindStruct:
		if f.t.KindFlag() {
			return false
		}
	case btf.KindUnion:
		if !f.t.KindFlag() {
			return false
		}
	default:
		return false
	}
	return f.t.NameOff != 0 && strEq(f, s, uint32(f.t.NameOff), uint32(s.t.NameOff))
}

// elem returns what id stands for in a walk: its class if resolved, and
// for a FWD class already resolved to a struct, that struct (or its
// class).
func (st *batchState) elem(id uint32) uint32 {
	c := st.classOr(id)
	if len(st.d.fwdTo) > 0 {
		if s, ok := st.d.fwdTo[c]; ok {
			c = st.classOr(s)
		}
	}
	return c
}

// classOr returns the class of id, or id itself for an unresolved batch type.
func (st *batchState) classOr(id uint32) uint32 {
	if id < st.t0 {
		return st.d.canonEx(id)
	}
	if r := st.res[id-st.t0]; r != none {
		return r
	}
	return id
}

// isClass reports whether element e is a class (an existing id or a
// creator of this batch), not an unresolved batch type.
func (st *batchState) isClass(e uint32) bool {
	return e < st.t0 || st.res[e-st.t0] != none
}

// parent is the union-find link of element e during a walk (none: root).
func (st *batchState) parent(e uint32) *uint32 {
	if e >= st.t0 {
		return &st.aux[e-st.t0]
	}
	return &st.tpar[e]
}

func (st *batchState) find(e uint32) uint32 {
	for {
		p := st.parent(e)
		if *p == none {
			return e
		}
		if g := *st.parent(*p); g != none {
			*p = g // path halving; e was linked before, so it is in touched
		}
		e = *p
	}
}

// link makes root r the parent of root e.
func (st *batchState) link(e, r uint32) {
	*st.parent(e) = r
	st.touched = append(st.touched, e)
}

// walk checks whether batch type v (in the current component, or a single
// STRUCT/UNION) is equivalent to class c by walking both graphs in step.
// It unifies the types met at the same place (union-find over batch types
// and classes); two types unify when their labels are equal (and then
// their edges, position by position, must unify too), or when one is a
// FWD and the other a STRUCT/UNION it may stand for. A FWD unified with a
// struct is resolved to it, first come first served (fwdTo). The first
// conflict (labels differ) ends the walk: nothing is kept. On success every
// unresolved batch type met takes the class of its set, if the set holds
// one that is not a FWD.
func (st *batchState) walk(v, c uint32) bool {
	retry := false
	st.touched = st.touched[:0]
	st.adjust = false
	st.pairs = append(st.pairs[:0], st.t0+v, c)
	ok := true
	for ok && len(st.pairs) > 0 {
		k := len(st.pairs) - 2
		a, b := st.find(st.elem(st.pairs[k])), st.find(st.elem(st.pairs[k+1]))
		st.pairs = st.pairs[:k]
		if a != b {
			ok = st.unite(a, b)
		}
	}
	if ok && st.adjust {
		// Not really equivalent (the base would have to change): only
		// record the base FWDs' structs.
		tFirst := uint32(st.d.table.FirstID())
		for _, e := range st.touched {
			if e == 0 || e >= tFirst || st.nodeOf(e).t.Kind() != btf.KindFwd {
				continue
			}
			if _, done := st.d.fwdTo[e]; done {
				continue
			}
			if r := st.find(e); r >= tFirst && st.nodeOf(r).t.Kind() != btf.KindFwd {
				if st.d.fwdTo == nil {
					st.d.fwdTo = make(map[uint32]uint32)
				}
				st.d.fwdTo[e] = r
				st.d.dirty = nil
				if r >= st.t0 {
					st.fwdNew = append(st.fwdNew, e)
				}
				retry = true
			}
		}
		ok = false
	}
	if ok {
		for _, e := range st.touched {
			r := st.find(e)
			if e >= st.t0 && st.res[e-st.t0] == none && st.isClass(r) && !st.d.baseDirty(r) {
				st.res[e-st.t0] = r
			}
		}
		for _, e := range st.touched {
			if !st.isClass(e) || st.nodeOf(e).t.Kind() != btf.KindFwd {
				continue
			}
			if r := st.find(e); r != e && st.nodeOf(r).t.Kind() != btf.KindFwd {
				if st.d.fwdTo == nil {
					st.d.fwdTo = make(map[uint32]uint32)
				}
				st.d.fwdTo[e] = r
				if e >= st.t0 || r >= st.t0 {
					st.fwdNew = append(st.fwdNew, e)
				}
			}
		}
	}
	for _, e := range st.touched {
		*st.parent(e) = none
	}
	if retry {
		// A base FWD now stands for its table struct: compare again.
		return st.walk(v, c)
	}
	return ok
}

// unite unifies two distinct roots, or reports a conflict.
func (st *batchState) unite(a, b uint32) bool {
	na, nb := st.nodeOf(a), st.nodeOf(b)
	ka, kb := na.t.Kind(), nb.t.Kind()
	if ka != kb && (ka == btf.KindFwd || kb == btf.KindFwd) {
		if !st.fwdOK {
			return false
		}
		f, s, nf, ns := a, b, na, nb
		if kb == btf.KindFwd {
			f, s, nf, ns = b, a, nb, na
		}
		if !fwdMatch(nf, ns) {
			return false
		}
		// A base FWD opposite a struct of the table or batch: as libbpf's
		// hypot_adjust_canon, the walk may succeed, but then only resolves
		// the base FWD (for later walks) and merges nothing.
		if f < uint32(st.d.table.FirstID()) && f != 0 && s >= uint32(st.d.table.FirstID()) {
			st.adjust = true
		}
		st.link(f, s)
		return true
	}
	if st.hashOf(a) != st.hashOf(b) || !labelEq(na, nb) || st.d.neverMerged(ka) {
		return false
	}
	// The root is the set's best representative: a class before an
	// unresolved batch type, and b (the class side) on a tie.
	if st.isClass(a) && !st.isClass(b) {
		st.link(b, a)
	} else {
		st.link(a, b)
	}
	for j, n := 0, numRefs(na.t, na.w); j < n; j++ {
		st.pairs = append(st.pairs, refAt(na.t, na.w, j), refAt(nb.t, nb.w, j))
	}
	return true
}

// commitFwds translates the resolutions recorded in this batch that name
// batch ids into table ids.
func (st *batchState) commitFwds(remap []btf.TypeID) {
	d := st.d
	ref := func(c uint32) uint32 {
		if c < st.t0 {
			return c
		}
		return uint32(remap[c-st.t0])
	}
	// Batch ids and the table ids of new classes are both numbered from
	// t0, so a translated key may equal a batch key still to translate
	// (and a key may be listed twice): take every entry out first, then
	// put the translations in.
	moved := st.pairs[:0] // free here: commit is done with it
	for _, k := range st.fwdNew {
		v, ok := d.fwdTo[k]
		if !ok {
			continue
		}
		delete(d.fwdTo, k)
		moved = append(moved, ref(k), ref(v))
	}
	for i := 0; i < len(moved); i += 2 {
		if nk, nv := moved[i], moved[i+1]; nk != nv {
			d.fwdTo[nk] = nv
		}
	}
	st.pairs = moved[:0]
	st.fwdNew = st.fwdNew[:0]
}

// baseDirty reports whether existing id c is a base type other than a
// struct, union or FWD that reaches a base FWD resolved to a table struct
// without passing through a named struct or union. libbpf deduplicates such
// reference types by their exact (resolved) edges, and a base type's edges
// still name the FWD, so no table type ever becomes one of them.
func (d *Incremental) baseDirty(c uint32) bool {
	if d.base == nil || len(d.fwdTo) == 0 || c == 0 || c >= uint32(d.table.FirstID()) {
		return false
	}
	if d.dirty == nil {
		d.dirty = make(map[uint32]bool)
	}
	if v, ok := d.dirty[c]; ok {
		return v
	}
	t, w := d.base.Type(btf.TypeID(c)), d.base.Extra(btf.TypeID(c))
	switch t.Kind() {
	case btf.KindStruct, btf.KindUnion:
		return false
	case btf.KindFwd:
		_, ok := d.fwdTo[c]
		return ok
	}
	d.dirty[c] = false // a cycle without a struct: not through this type
	v := false
	for j, n := 0, numRefs(t, w); j < n && !v; j++ {
		v = d.baseDirty(refAt(t, w, j))
	}
	d.dirty[c] = v
	return v
}
