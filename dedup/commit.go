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

// commit gives every class of the batch its id and appends the new classes
// to the table, in the order of their first occurrence in the batch.
//
// With indexOnly (the base of a split table) nothing is appended: the
// batch is the base, each class is represented by its first member, and
// canon records where the others went.
func (st *batchState) commit(indexOnly bool) Remap {
	d := st.d
	remap := make([]btf.TypeID, st.n)
	order := st.low[:0] // creators by first occurrence; low is free after Tarjan
	next := st.t0
	for i := 0; i < st.n; i++ {
		r := st.res[i]
		if r < st.t0 {
			remap[i] = btf.TypeID(r)
			continue
		}
		ci := r - st.t0
		if st.idx[ci] == none {
			if indexOnly {
				st.idx[ci] = st.t0 + uint32(i)
			} else {
				st.idx[ci] = next
				next++
			}
			order = append(order, ci)
		}
		remap[i] = btf.TypeID(st.idx[ci])
	}

	if indexOnly {
		dup := false
		for i := 0; i < st.n; i++ {
			id := st.t0 + uint32(i)
			rep := uint32(remap[i]) == id
			dup = dup || !rep
			d.push(st.bhash[i], st.btag[i], st.blh[i], st.fin[i], rep && !d.neverMerged(st.b.Type(btf.TypeID(id)).Kind()))
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
		return Remap{First: btf.TypeID(st.t0), IDs: remap}
	}

	tstr := d.table.Strings()
	ref := func(c uint32) uint32 {
		if c < st.t0 {
			return d.canonEx(c)
		}
		return uint32(remap[c-st.t0])
	}
	str := func(off uint32) uint32 { return uint32(tstr.AddBytes(st.bs.bytes(off))) }
	words := 0
	for _, ci := range order {
		words += len(st.b.Extra(btf.TypeID(st.t0 + ci)))
	}
	d.table.Grow(len(order), words)
	d.grow(len(order))
	var w []uint32
	for _, ci := range order {
		id := btf.TypeID(st.t0 + ci)
		t := st.b.Type(id)
		w = append(w[:0], st.b.Extra(id)...)
		mapWords(&t, w, ref, str)
		d.table.Add(t, w...)
		d.push(st.bhash[ci], st.btag[ci], st.blh[ci], st.fin[ci], !d.neverMerged(t.Kind()))
	}
	return Remap{First: btf.TypeID(st.t0), IDs: remap}
}
