package dedup

import (
	"cmp"
	"slices"

	"github.com/btfstream/btfstream/btf"
)

// Split mode: module structs kept apart from the base (see the package
// documentation, "Modules: what stays a module type").

// adjustBase runs before a split batch is resolved. In id order, each
// STRUCT or UNION of the batch is checked against the base aggregates of
// equal label, newest first. A check that is OK but for base FWDs opposite
// complete structs of the batch (ADJ) resolves those base FWDs to the
// batch's structs and keeps the batch type apart from the base, unless a
// later candidate is OK; later checks read the resolved FWDs as the
// structs, so only the first type (in id order) to reach a base FWD is
// kept for it. This is libbpf's hypot_adjust_canon, in libbpf's order.
// The checks compare labels only (hashes are not known yet for AddBatch's
// batches); candidates whose check would FAIL at its first pair are
// skipped by their key (aggKey; the index holds the base's aggregates by
// label signature, and a candidate's key is computed when it is met).
func (st *batchState) adjustBase() { st.adjustBaseOf(nil) }

// adjustBaseOf is adjustBase for a batch that p prepared (nil: another
// batch). Only a check that meets an unresolved base FWD opposite a
// complete struct or union of its name and kind can give ADJ (a resolved
// one reads as what it stands for), and OK or FAIL results leave nothing
// behind but memoised pairs: a prepared batch reads nothing but its own
// types on the left of a pair, so its types that reach no struct or union
// named like an unresolved base FWD are not checked (mayAdjust).
func (st *batchState) adjustBaseOf(p *Prepared) {
	d := st.d
	if d.base == nil || !st.fwdOK || st.t0 < uint32(d.table.FirstID()) {
		return
	}
	d.indexBaseAggregates()
	var may []bool
	if p != nil && !adjustCheckAll {
		if may = st.mayAdjust(p); may == nil {
			return
		}
	}
	st.noHash = true
	for i := 0; i < st.n; i++ {
		v := st.t0 + uint32(i)
		n := st.nodeOf(v)
		if k := n.t.Kind(); (k != btf.KindStruct && k != btf.KindUnion) || n.t.Vlen() == 0 {
			continue
		}
		if may != nil && !may[i] {
			continue
		}
		kept := false
		key := st.aggKey(v, n)
		for e := d.agg.find(st.aggSig(v, n), d.aggSig, 1); e != 0; e = d.aggNext[e-1] {
			b := d.aggID[e-1]
			if d.baseAggKey(b) != key || !labelEq(n, st.nodeOf(b)) {
				continue
			}
			r := st.check(v, b)
			if r == pairOK {
				kept = false
				break
			}
			if r == pairAdj {
				st.adjustFwds(v, b)
				kept = true
				if _, ok := st.twinOf(b); !ok {
					// v stands for b below module types (moduleView).
					if st.btwin == nil {
						st.btwin = make(map[uint32]uint32)
					}
					st.btwin[b] = v
					st.twins = true
					// What the view reads changes when v gets its class.
					st.markFwdTarget(uint32(i))
				}
			}
		}
		if kept {
			if st.kept == nil {
				st.kept = make([]bool, st.n)
			}
			st.kept[i] = true
		}
	}
	st.noHash = false
}

// mayAdjust marks the types of prepared batch p that reach, through
// their edges, a STRUCT or UNION of the name and kind of an unresolved
// base FWD (whose label signatures are alike), in one pass over p's
// components (children first). It returns nil when no type does.
func (st *batchState) mayAdjust(p *Prepared) []bool {
	d := st.d
	if len(d.baseFwd) == 0 && !d.baseFwdAnon {
		return nil
	}
	var may []bool
	for i := 0; i < st.n; i++ {
		t, _ := st.typ(uint32(i))
		if k := t.Kind(); (k != btf.KindStruct && k != btf.KindUnion) || t.NameOff == 0 {
			continue
		}
		if st.openBaseFwd(st.blh[i]) || (d.baseFwdAnon && len(st.bv.bytes(uint32(t.NameOff))) == 0) {
			if may == nil {
				may = make([]bool, st.n)
			}
			may[i] = true
		}
	}
	if may == nil {
		return nil
	}
	start := uint32(0)
	for _, e := range p.ends {
		end := e &^ cyclicComp
		members := p.comps[start:end]
		start = end
		reach := false
		for _, m := range members {
			if may[m] {
				reach = true
				break
			}
			t, w := st.typ(m)
			for j, k := 0, numRefs(t, w); j < k && !reach; j++ {
				if c := refAt(t, w, j); c >= st.t0 && may[c-st.t0] {
					reach = true
				}
			}
			if reach {
				break
			}
		}
		if reach {
			for _, m := range members {
				may[m] = true
			}
		}
	}
	return may
}

// openBaseFwd reports whether a base FWD of label signature key is a
// class that stands for nothing yet: a right side of a pair can read it
// as a FWD.
func (st *batchState) openBaseFwd(key uint64) bool {
	d := st.d
	i, _ := slices.BinarySearchFunc(d.baseFwd, key, func(e baseFwd, k uint64) int { return cmp.Compare(e.key, k) })
	for ; i < len(d.baseFwd) && d.baseFwd[i].key == key; i++ {
		if c := d.canonEx(d.baseFwd[i].id); st.declares(c) {
			if _, done := d.fwdTo[c]; !done {
				return true
			}
		}
	}
	return false
}

// baseFwd is a named FWD of the base and its label signature.
type baseFwd struct {
	key uint64
	id  uint32
}

// adjustFwds resolves every base FWD that the ADJ pair (a, b) reaches
// opposite a complete type to that type (first come).
func (st *batchState) adjustFwds(a, b uint32) {
	st.stamp++
	st.bump = false
	i := st.pm.find(a, b)
	stack := append(st.ptstack[:0], i)
	st.pm.nodes[i].mark = st.stamp
	for len(stack) > 0 {
		p := st.pm.nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		na, nb := st.nodeOf(p.a), st.nodeOf(p.b&^moduleView)
		for j, k := 0, numRefs(na.t, na.w); j < k; j++ {
			x, y := st.leftRef(na, j), st.rightRef(p.b, nb, j)
			r, c := st.pairOf(x, y, false)
			if c == none {
				if r == pairAdj {
					st.setFwd(y&^moduleView, st.classOr(x))
				}
				continue
			}
			if q := &st.pm.nodes[c]; q.mark != st.stamp {
				q.mark = st.stamp
				stack = append(stack, c)
			}
		}
	}
	st.ptstack = stack[:0]
	if st.bump {
		st.newEpoch()
	}
}

// indexBaseAggregates indexes the base's STRUCTs and UNIONs by their
// label signature (d.lh: a named one's is its cutKey, of its name and
// struct or union), once, for adjustBase (which takes those of its key,
// baseAggKey) and resolveFwds (those of a name). Only their headers are
// read.
func (d *Incremental) indexBaseAggregates() {
	if d.aggID != nil {
		return
	}
	s := viewOf(d.base.Strings())
	types, _, _ := d.base.Raw()
	// Sized by a count first: grown by appending, the arrays and the
	// hash index left about as much garbage as they keep (~0.9 MB for a
	// vmlinux base, in a small module's heap of ~4 MB).
	n := 0
	for _, t := range types {
		if k := t.Kind(); k == btf.KindStruct || k == btf.KindUnion {
			n++
		}
	}
	d.agg.reset(n)
	d.aggID = make([]uint32, 0, n)
	d.aggSig = slices.Grow(d.aggSig[:0], n)
	d.aggNext = slices.Grow(d.aggNext[:0], n)
	d.baseFwd = d.baseFwd[:0]
	for i, t := range types {
		id := uint32(i + 1)
		switch t.Kind() {
		case btf.KindStruct, btf.KindUnion:
			if d.canonEx(id) != id {
				continue
			}
			d.aggSig = append(d.aggSig, d.exLH(id))
			d.aggID = append(d.aggID, id)
			d.aggNext = append(d.aggNext, d.agg.put(d.aggSig[len(d.aggSig)-1], uint32(len(d.aggID)), d.aggSig, 1))
		case btf.KindFwd:
			key, cut := cutKey(node{t: t, s: &s})
			if !cut {
				d.baseFwdAnon = true
				continue
			}
			d.baseFwd = append(d.baseFwd, baseFwd{key, id})
		}
	}
	slices.SortFunc(d.baseFwd, func(a, b baseFwd) int { return cmp.Compare(a.key, b.key) })
}

// baseAggKey is aggKey of base aggregate id.
func (d *Incremental) baseAggKey(id uint32) uint64 {
	t, w := d.base.Type(btf.TypeID(id)), d.base.Extra(btf.TypeID(id))
	if adjustLabelsOnly {
		v := viewOf(d.base.Strings())
		return labelHash(node{t, w, &v})
	}
	// The base's label signatures are d.lh: no string is read.
	h := d.exLH(id)
	for j, k := 0, numRefs(t, w); j < k; j++ {
		h = mix(h, d.exLH(refAt(t, w, j)))
	}
	return finalize(h)
}

// aggSig is the label signature of a batch STRUCT or UNION (d.lh's for
// the base's).
func (st *batchState) aggSig(v uint32, n node) uint64 {
	switch {
	case v < st.t0:
		return st.d.exLH(v)
	case st.borrowedHashes:
		return st.blh[v-st.t0]
	}
	return labelSig(n)
}

// aggKey is the key of a batch STRUCT or UNION in adjustBase's lookups,
// as baseAggKey computes it for the base's: its label signature
// mixed with those of its edges' targets (the base's are d.lh). A check of
// a pair whose keys differ FAILs at once, so only candidates with the
// batch struct's key are checked: a pair's edge whose targets' signatures
// differ is a FAIL leaf (different kinds or labels, or declarations that
// cannot stand for each other), and a signature is the same for a type,
// its class and what its resolved declaration stands for. In xfs.ko, 600
// tracepoint unions { event; handler } share their label with 830 of the
// base's, and differ by the handler's typedef.
func (st *batchState) aggKey(v uint32, n node) uint64 {
	if adjustLabelsOnly {
		return labelHash(n)
	}
	// A prepared batch's label hashes are known (Prepare's blh is
	// labelSig); other batches are hashed after adjustBase (aggSig).
	h := st.aggSig(v, n)
	for j, k := 0, numRefs(n.t, n.w); j < k; j++ {
		c := st.leftRef(n, j)
		var cn node
		if c >= st.t0 && !st.borrowedHashes {
			cn = st.nodeOf(c)
		}
		h = mix(h, st.aggSig(c, cn))
	}
	return finalize(h)
}

// adjustCheckAll makes adjustBaseOf check every type of a prepared batch
// (tests compare).
var adjustCheckAll = false

// adjustLabelsOnly keys adjustBase's index by label only (tests compare).
var adjustLabelsOnly = false

// labelSig is a type's label signature, what the table keeps as its lh: a
// named STRUCT, UNION, FWD, ENUM or ENUM64 signs with its cutKey (kind
// class and name: a declaration and what it stands for sign alike),
// anything else with its label hash. Two types whose pair does not FAIL
// as a leaf in pairOf sign alike.
func labelSig(n node) uint64 {
	if key, cut := cutKey(n); cut {
		return key
	}
	return labelHash(n)
}
