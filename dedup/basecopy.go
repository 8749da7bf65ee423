package dedup

import "github.com/btfstream/btfstream/btf"

// Split mode: base reference types over a base FWD that stands for a
// module struct (see the package documentation, "Modules: references to
// a base FWD that stands for a module struct").
//
// libbpf deduplicates all of a module's structs before any of its
// reference types: by then every base FWD that some module struct X
// reached opposite its definition (hypot_adjust_canon) points at X, and
// a module reference to the declaration, through the module's own FWD,
// resolves to X. Such a reference never equals the base's, which names
// the FWD itself, so libbpf keeps it in the module, with every reference
// type above it. The units are deduplicated here one by one, and a unit
// before the one that made the FWD stand for X resolved its references
// to the base's (PTR -> FWD). Finish puts that right: every edge of the
// table to a base type that is not a STRUCT or UNION and reaches such a
// FWD through types that are not STRUCTs or UNIONs is replaced by a copy
// of that base type whose edges are replaced the same way (the FWD by X),
// and the rebuild then merges the copies with the table's own references
// to X. (Base structs are not copied: libbpf's struct check reads the FWD
// as X, so module structs still fold onto them.)

// baseCopies finds the base types that table edges must not lead to:
// those that reach, through edges of types that are neither STRUCT nor
// UNION, a base FWD resolved to a table struct (in baseTo). It returns
// their order of first need (depth first from the table's edges in id
// order, a type before what it references) and their position among
// them; nil if there are none.
func (d *Incremental) baseCopies(old *btf.Spec, baseTo map[uint32]uint32) ([]uint32, map[uint32]uint32) {
	if len(baseTo) == 0 {
		return nil, nil
	}
	first := uint32(old.FirstID())
	const (
		unknown = iota
		visiting
		clean
		reaches
	)
	state := make(map[uint32]uint8)
	var reach func(c uint32) bool
	reach = func(c uint32) bool {
		if c == 0 || c >= first {
			return false
		}
		if _, ok := baseTo[c]; ok {
			return true
		}
		switch state[c] {
		case clean, visiting:
			return false
		case reaches:
			return true
		}
		t, w := d.base.Type(btf.TypeID(c)), d.base.Extra(btf.TypeID(c))
		if k := t.Kind(); k == btf.KindStruct || k == btf.KindUnion {
			state[c] = clean
			return false
		}
		state[c] = visiting
		r := false
		for j, k := 0, numRefs(t, w); j < k; j++ {
			if reach(refAt(t, w, j)) {
				r = true
			}
		}
		state[c] = clean
		if r {
			state[c] = reaches
		}
		return r
	}
	var order []uint32
	pos := make(map[uint32]uint32)
	var place func(c uint32)
	place = func(c uint32) {
		if _, done := pos[c]; done || !reach(c) {
			return
		}
		if _, fwd := baseTo[c]; fwd {
			return
		}
		pos[c] = uint32(len(order))
		order = append(order, c)
		t, w := d.base.Type(btf.TypeID(c)), d.base.Extra(btf.TypeID(c))
		for j, k := 0, numRefs(t, w); j < k; j++ {
			place(refAt(t, w, j))
		}
	}
	for id := old.FirstID(); id < old.NextID(); id++ {
		t, w := old.Type(id), old.Extra(id)
		for j, k := 0, numRefs(t, w); j < k; j++ {
			place(refAt(t, w, j))
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	return order, pos
}
