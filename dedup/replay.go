package dedup

import (
	"fmt"
	"slices"

	"github.com/btfstream/btfstream/btf"
)

// Taking a batch resolved elsewhere (see "Resolving against a snapshot"
// in the package documentation): AddPrepared walks the components in
// order and takes the record of each clean one; it resolves the dirty
// ones itself, and marks those tainted whose outcome may differ from
// what the worker had for later components to read.

// replayState is AddPrepared's state while it takes a batch resolved
// elsewhere, kept between batches.
type replayState struct {
	dirty  []bool   // by component: resolve it here
	taint  []bool   // by batch index: member of a tainted component
	rkeys  []uint64 // hashes of the classes added since the snapshot
	recent hindex
	hkeys  []uint64 // hashes whose batch chains may differ from the worker's
	hbad   hindex
	kbad   map[uint32]bool // declarations whose resolution may differ
	rec    preResolution   // what resolving a component here put in the chains
}

// takeResolved resolves the batch's components, taking what the worker
// recorded where it is still valid.
func (st *batchState) takeResolved(p *Prepared) error {
	d, pre, rs := st.d, &p.pre, &st.rs
	nc := len(p.ends)
	rs.dirty = resize(rs.dirty, nc)
	clear(rs.dirty)
	rs.taint = resize(rs.taint, st.n)
	clear(rs.taint)
	if rs.kbad == nil {
		rs.kbad = make(map[uint32]bool)
	}
	clear(rs.kbad)
	rs.hkeys = rs.hkeys[:0]
	rs.hbad.reset(0)
	// The resolutions batches made since the snapshot: whoever read one
	// read something else.
	for _, e := range d.fwdLog[pre.fwdSeq:] {
		pre.readers(e.key, func(c uint32) { rs.dirty[c] = true })
	}
	// The classes added since the snapshot: a lookup of their hashes
	// meets them first.
	rs.rkeys = rs.rkeys[:0]
	for id := pre.n; id < uint32(d.table.NextID()); id++ {
		if !d.neverMerged(d.table.Type(btf.TypeID(id)).Kind()) {
			rs.rkeys = append(rs.rkeys, d.hash[id])
		}
	}
	if len(rs.rkeys) > 0 {
		rs.recent.reset(len(rs.rkeys))
		for i, h := range rs.rkeys {
			rs.recent.put(h, uint32(i)+1, rs.rkeys, 1)
		}
		start := uint32(0)
		for k := range p.ends {
			end := p.ends[k] &^ cyclicComp
			for _, m := range p.comps[start:end] {
				if rs.recent.find(p.bhash[m], rs.rkeys, 1) != 0 {
					rs.dirty[k] = true
					break
				}
			}
			start = end
		}
	}
	tainting := false // some component is tainted
	start := uint32(0)
	for k := range p.ends {
		e := p.ends[k]
		end := e &^ cyclicComp
		members := p.comps[start:end]
		start = end
		dirty := rs.dirty[k] || tainting && (st.reachesTaint(members) || st.hashBad(members))
		if !dirty {
			if err := st.replay(p, k, members); err != nil {
				return err
			}
			d.stats.replayed++
			continue
		}
		d.stats.resolved++
		child := tainting && st.reachesTaint(members)
		rec := &rs.rec
		rec.puts, rec.noReads = rec.puts[:0], true
		fw0 := len(st.fwdAdded)
		st.rec = rec
		if e&cyclicComp == 0 {
			st.resolveSingle(members[0])
		} else {
			st.resolveComponent(members)
		}
		st.rec = nil
		ps, fs := pre.compStarts(k)
		wPuts, wFwds := pre.puts[ps:pre.putEnd[k]], pre.fwds[fs:pre.fwdEnd[k]]
		if !child && st.sameAs(pre, members, wPuts, wFwds, fw0) && !st.namesTaint(members, wFwds) {
			continue
		}
		// Tainted: what reads its members, its new classes or its
		// resolutions is resolved here too.
		tainting = true
		for _, m := range members {
			rs.taint[m] = true
		}
		for _, puts := range [][]uint32{wPuts, rec.puts} {
			for _, v := range puts {
				rs.hkeys = append(rs.hkeys, st.bhash[v])
				rs.hbad.put(st.bhash[v], uint32(len(rs.hkeys)), rs.hkeys, 1)
			}
		}
		for _, fws := range [][]fwdEntry{wFwds, st.fwdAdded[fw0:]} {
			for _, e := range fws {
				if !rs.kbad[e.key] {
					rs.kbad[e.key] = true
					pre.readers(e.key, func(c uint32) { rs.dirty[c] = true })
				}
			}
		}
	}
	return nil
}

// reachesTaint reports whether an edge of a member leads to a member of a
// tainted component.
func (st *batchState) reachesTaint(members []uint32) bool {
	for _, m := range members {
		t, w := st.typ(m)
		for j, n := 0, numRefs(t, w); j < n; j++ {
			if c := refAt(t, w, j); c >= st.t0 && st.rs.taint[c-st.t0] {
				return true
			}
		}
	}
	return false
}

// namesTaint reports whether a member's class, or a declaration resolved
// or what it stands for, is a member of a tainted component.
func (st *batchState) namesTaint(members []uint32, fwds []fwdEntry) bool {
	tainted := func(id uint32) bool { return id >= st.t0 && id != none && st.rs.taint[id-st.t0] }
	for _, m := range members {
		if tainted(st.res[m]) {
			return true
		}
	}
	for _, e := range fwds {
		if tainted(e.key) || tainted(e.val) {
			return true
		}
	}
	return false
}

// hashBad reports whether a member's hash is one whose batch chain may
// differ from the worker's.
func (st *batchState) hashBad(members []uint32) bool {
	if len(st.rs.hkeys) == 0 {
		return false
	}
	for _, m := range members {
		if st.rs.hbad.find(st.bhash[m], st.rs.hkeys, 1) != 0 {
			return true
		}
	}
	return false
}

// sameAs reports whether resolving a component here gave its members the
// worker's classes, put the worker's new classes in the chains in the
// worker's order (rs.rec.puts) and made the worker's resolutions (those
// from fw0 on in fwdAdded).
func (st *batchState) sameAs(pre *preResolution, members []uint32, wPuts []uint32, wFwds []fwdEntry, fw0 int) bool {
	for _, m := range members {
		if st.res[m] != pre.res[m] {
			return false
		}
	}
	return slices.Equal(wPuts, st.rs.rec.puts) && slices.Equal(wFwds, st.fwdAdded[fw0:])
}

// compStarts returns where component k's puts and resolutions start.
func (pre *preResolution) compStarts(k int) (puts, fwds uint32) {
	if k > 0 {
		return pre.putEnd[k-1], pre.fwdEnd[k-1]
	}
	return 0, 0
}

// replay gives the members of component k the classes the worker found,
// puts the new classes in the batch's chains in the worker's order and
// makes the worker's resolutions (batch ids start at batchBase on both
// sides). Resolutions start a new epoch, as when a commit makes them.
func (st *batchState) replay(p *Prepared, k int, members []uint32) error {
	pre := &p.pre
	for _, m := range members {
		st.res[m] = pre.res[m]
	}
	ps, fs := pre.compStarts(k)
	for _, v := range pre.puts[ps:pre.putEnd[k]] {
		st.bnext[v] = st.bindex.put(st.bhash[v], v+1, st.bhash, 1)
	}
	fws := pre.fwds[fs:pre.fwdEnd[k]]
	for _, e := range fws {
		if _, done := st.d.fwdTo[e.key]; done {
			return fmt.Errorf("dedup: replaying a batch resolved elsewhere: declaration [%d] is already resolved", e.key)
		}
		st.setFwd(e.key, e.val)
	}
	if len(fws) > 0 {
		st.newEpoch()
	}
	return nil
}
