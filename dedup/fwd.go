package dedup

import "github.com/btfstream/btfstream/btf"

// FWD <-> STRUCT/UNION equivalence (see the package documentation,
// "Forward declarations inside the types that hold them").

// cutKey reports whether n is a named STRUCT, UNION, FWD, ENUM or ENUM64
// and returns its shallow key: a hash of its name and of struct, union or
// enum (a FWD's kind_flag), the same for FWD 'x' and STRUCT 'x', and for
// an enum with and without values. Parents mix this key, not the type's
// hash, so an edge to a forward declaration hashes like an edge to what it
// stands for, and hashing stops there (every cycle in C passes through a
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
	case btf.KindEnum, btf.KindEnum64:
		cls = fwdEnum
	default:
		return 0, false
	}
	b := n.s.tail(uint32(n.t.NameOff))
	if len(b) == 0 || b[0] == 0 {
		return 0, false
	}
	return nameKey(cls, b), true
}

// nameKey is the cutKey of a type of class cls (fwdStruct, fwdUnion or
// fwdEnum) named b (NUL-terminated, or ending with the slice).
func nameKey(cls uint64, b []byte) uint64 { return nameKeyOf(cls, cstrHash(b)) }

// nameKeyOf is nameKey given the name's cstrHash.
func nameKeyOf(cls, nameHash uint64) uint64 {
	return finalize(mix(mix(0x73686c6c, cls), nameHash))
}

// elem returns what id stands for on the right of a pair: its class if
// resolved, and for a forward declaration already resolved, what it stands
// for (or its class).
func (st *batchState) elem(id uint32) uint32 {
	c := st.classOr(id)
	if (len(st.d.fwdTo) > 0 || st.rec != nil) && c != 0 && st.declares(c) {
		if s, ok := st.fwdOf(c); ok {
			c = st.classOr(s)
		}
	}
	return c
}

// declares reports whether id is a forward declaration (isFwd), reading
// only its header.
func (st *batchState) declares(id uint32) bool {
	var t btf.Type
	if id < st.t0 {
		t = st.header(id)
	} else {
		t, _ = st.typ(id - st.t0)
	}
	switch t.Kind() {
	case btf.KindFwd:
		return true
	case btf.KindEnum, btf.KindEnum64:
		return t.Vlen() == 0
	}
	return false
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
	moved := st.scratch[:0] // free here: commit is done with it
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
	st.scratch = moved[:0]
	st.fwdNew = st.fwdNew[:0]
	// The log gets what the batch added, as the table now reads it.
	for _, e := range st.fwdAdded {
		k := ref(e.key)
		if v, ok := d.fwdTo[k]; ok {
			d.fwdLog = append(d.fwdLog, fwdEntry{k, v})
		}
	}
	st.fwdAdded = st.fwdAdded[:0]
}
