package dedup

import "github.com/btfstream/btfstream/btf"

// mapWords rewrites a type's edges with ref and its string offsets with str
// (either may be nil), in place on t and w.
func mapWords(t *btf.Type, w []uint32, ref, str func(uint32) uint32) {
	k := t.Kind()
	if ref != nil && k.HasType() {
		t.SizeOrType = ref(t.SizeOrType)
	}
	if str != nil {
		t.NameOff = btf.StrOff(str(uint32(t.NameOff)))
	}
	sh := shapes[k]
	if sh.stride == 0 {
		return
	}
	p := 0
	for i := range w {
		switch sh.class[p] {
		case wRef:
			if ref != nil {
				w[i] = ref(w[i])
			}
		case wStr:
			if str != nil {
				w[i] = str(w[i])
			}
		}
		p++
		if p == int(sh.stride) {
			p = 0
		}
	}
}

// number gives every class of the batch its id, in the order of the
// classes' first occurrence in the batch, and writes every batch type's id
// to remap. New classes get ids from next on (with base, the id of their
// first member). It returns the creators of new classes in order.
func (st *batchState) number(remap []btf.TypeID, base bool) []uint32 {
	order := st.low[:0] // creators by first occurrence; low is free after Tarjan
	next := uint32(st.d.table.NextID())
	for i := 0; i < st.n; i++ {
		r := st.res[i]
		if r < st.t0 {
			remap[i] = btf.TypeID(r)
			continue
		}
		ci := r - st.t0
		if st.idx[ci] == none {
			if base {
				st.idx[ci] = st.t0 + uint32(i)
			} else {
				st.idx[ci] = next
				next++
			}
			order = append(order, ci)
		}
		remap[i] = btf.TypeID(st.idx[ci])
	}
	return order
}

// commitBase indexes the batch as the base of a split table: nothing is
// appended, each class is represented by its first member, and canon
// records where the others went.
func (st *batchState) commitBase() {
	d := st.d
	remap := make([]btf.TypeID, st.n)
	st.number(remap, true)
	dup := false
	st.fwdNew = st.fwdNew[:0]
	// The hashes are in place (indexBase): only the chain links are
	// added.
	for i := 0; i < st.n; i++ {
		id := st.t0 + uint32(i)
		rep := uint32(remap[i]) == id
		dup = dup || !rep
		d.link(rep && !d.neverMerged(st.kind(uint32(i))))
	}
	if dup {
		d.canon = make([]uint32, st.t0+uint32(st.n))
		for i := range d.canon {
			d.canon[i] = uint32(i)
		}
		for i, r := range remap {
			d.canon[st.t0+uint32(i)] = uint32(r)
		}
	}
}

// commit appends the batch's new classes to the table, in the order of
// their first occurrence in the batch, and writes every batch type's table
// id to remap (len n).
func (st *batchState) commit(remap []btf.TypeID) {
	d := st.d
	first := uint32(d.table.NextID()) // of the new classes
	order := st.number(remap, false)
	ref := func(c uint32) uint32 {
		if c < st.t0 {
			return d.canonEx(c)
		}
		return uint32(remap[c-st.t0])
	}
	var str func(uint32) uint32
	if st.bv != &st.ts {
		tstr := d.table.Strings()
		str = func(off uint32) uint32 { return uint32(tstr.AddBytes(st.bs.bytes(off))) }
	}
	words := 0
	for _, ci := range order {
		_, w := st.typ(ci)
		words += len(w)
	}
	// Grow the table by at least a quarter, as d.grow does. Spec.Grow
	// reserves exactly what it is asked for, so the room is counted here.
	if d.room < len(order) || d.wroom < words {
		n, nw := max(len(order), d.table.Len()/4), max(words, d.words/4)
		d.table.Grow(n, nw)
		d.room, d.wroom = n, nw
	}
	d.room -= len(order)
	d.wroom -= words
	d.grow(len(order))
	d.words += words
	w := st.scratch[:0]
	for _, ci := range order {
		t, tw := st.typ(ci)
		w = append(w[:0], tw...)
		mapWords(&t, w, ref, str)
		d.table.Add(t, w...)
		d.push(st.bhash[ci], st.btag[ci], st.blh[ci], st.fin[ci], !d.neverMerged(t.Kind()))
	}
	st.scratch = w[:0]
	st.commitFwds(remap)
	if st.kept != nil {
		for i, k := range st.kept {
			if id := uint32(remap[i]); k && id >= first {
				if d.kept == nil {
					d.kept = make(map[uint32]bool)
				}
				d.kept[id] = true
			}
		}
	}
	for b, v := range st.btwin {
		if _, ok := d.twin[b]; !ok {
			if id := uint32(remap[v-st.t0]); id >= uint32(d.table.FirstID()) {
				if d.twin == nil {
					d.twin = make(map[uint32]uint32)
				}
				d.twin[b] = id
			}
		}
	}
}

// unshare gives the table its own interned string table, when a batch
// arrives with strings other than the shared ones.
func (d *Incremental) unshare() {
	old := viewOf(d.table.Strings())
	own := btf.NewStrings(nil).NoMemo()
	str := func(off uint32) uint32 { return uint32(own.AddBytes(old.bytes(off))) }
	for id := d.table.FirstID(); id < d.table.NextID(); id++ {
		t := d.table.Type(id)
		mapWords(&t, d.table.Extra(id), nil, str)
		d.table.SetType(id, t)
	}
	d.table.SetStrings(own)
	d.shared = false
}
