package dedup

import "github.com/btfstream/btfstream/btf"

// A cyclic component whose structs are a copy of table classes.
//
// On a vmlinux most units repeat the kernel's big cycles (task_struct and
// everything around it) as earlier units had them. resolveComponent
// checks the component's first struct against the newest candidate of its
// hash: the check walks every pair of a member and a class (labels,
// hashes, the pair memo, a Tarjan stack), finds them OK, and its commit
// walks them again to give the structs their classes. pairCopy makes the
// same walk once, more cheaply, where it can tell in advance what check
// and commit would do.

// maxDeep bounds the pairs pairCopy explores whose left side already has a
// class (a larger walk is left to check).
const maxDeep = 4096

// pairCopy does what match(m0, c) would, c the head of m0's hash chain in
// the table, when every pair that check(m0, c) meets is certainly OK, and
// reports whether it did; if so, the caller calls unpair once done with
// the pairs (pairedTo), and if not, it changed nothing but the resolutions
// a Resolver records as read (reading more only makes AddPrepared resolve
// more itself). It walks the pairs as check does (leftRef, rightRef and
// pairOf's rules, so it reads what check reads) and gives up on anything
// but:
//
//   - a leaf whose left side has the class opposite it (OK);
//   - a member of the component (no class yet) opposite a table class of
//     equal label and hash, neither a declaration nor a type that a
//     resolved declaration reads;
//   - a type with a class (an earlier component's, or a table id read as
//     written) opposite another table class, of equal label and hash (at
//     most maxDeep of them);
//   - a leaf of a declaration and what it may stand for (fwdPair OK) that
//     resolveFwd would find already resolved, or that is an enum's; a
//     leaf of two types without edges.
//
// check is then OK: every pair it meets is OK. commitPair visits the same
// pairs, and in the same order: it pops a pair from a stack and pushes the
// pairs of its edges it has not visited, as pairCopy does (a pair it skips
// because its left side got the class opposite it during the commit was
// pushed when it got it). So the first pair of each struct or union
// member, which commit's first come assigns, is the first pairCopy meets
// (aux). commit resolves no declaration and ends no epoch; match then
// gives a typedef m0 its class. The pair memo stays without these pairs:
// it is a cache (package documentation, "Resolving against a snapshot").
// Only tables without base, with forward declarations resolved (not
// Compare's), take this path, and only when no class of this batch has
// m0's hash (tryCandidates tries those first).
func (st *batchState) pairCopy(m0 uint32) bool {
	d := st.d
	if noPairCopy || d.base != nil || d.mergeAll || !st.fwdOK || st.kept != nil || st.twins {
		return false
	}
	h := st.bhash[m0]
	if st.bindex.find(h, st.bhash, 1) != 0 {
		return false
	}
	c0 := d.chain(h)
	if c0 == 0 {
		return false
	}
	paired, stack, seen := st.cpaired[:0], st.cstack[:0], &st.cseen
	deep := 0
	// explore reports whether the pair (a, b), met on an edge (or the
	// root), is OK as far as can be told now, and pushes it if its edges
	// are to be looked at.
	explore := func(a, b uint32) bool {
		if a == b || st.leftClass(a) == b {
			return true
		}
		if a == 0 || b == 0 || b >= st.t0 {
			return false
		}
		key := uint64(a)<<32 | uint64(b)
		if seen.has(key) {
			return true // explored already
		}
		member := a >= st.t0 && st.res[a-st.t0] == none
		if member && st.fwdTarget != nil && st.fwdTarget[a-st.t0] {
			return false
		}
		na, nb := st.nodeOf(a), st.nodeOf(b)
		if isFwd(na) || isFwd(nb) {
			return !member && st.fwdPair(a, b, na, nb) == pairOK && st.fwdSettled(a, b, na, nb)
		}
		k := na.t.Kind()
		if k != nb.t.Kind() || d.neverMerged(k) || st.hashOf(a) != d.hash[b] || !labelEq(na, nb) {
			return false
		}
		switch {
		case member:
			if numRefs(na.t, na.w) == 0 {
				return false
			}
			if x := a - st.t0; st.aux[x] == none { // aux is none outside refine
				st.aux[x] = b // its first pair
				paired = append(paired, x)
			}
		case numRefs(na.t, na.w) == 0:
			return true // a leaf of two types without edges
		case deep == maxDeep:
			return false
		default:
			deep++
		}
		seen.add(key)
		stack = append(stack, key)
		return true
	}
	ok := explore(st.t0+m0, c0)
	for ok && len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		a, b := uint32(p>>32), uint32(p)
		na, nb := st.nodeOf(a), st.nodeOf(b)
		for j, k := 0, numRefs(na.t, na.w); j < k; j++ {
			// leftRef and rightRef (without twins: elem), the common
			// case inline.
			l := refAt(na.t, na.w, j)
			if l < st.t0 {
				l = d.canonEx(l)
			}
			y := refAt(nb.t, nb.w, j) // b is a table id: so is y
			r := d.canonEx(y)
			if r != 0 && st.declares(r) {
				r = st.elem(y)
			}
			if !explore(l, r) {
				ok = false // check would look further, or FAIL
				break
			}
		}
	}
	st.cpaired, st.cstack = paired, stack[:0]
	if !ok {
		st.unpair()
		return false
	}
	for _, x := range paired {
		if k := st.kind(x); k == btf.KindStruct || k == btf.KindUnion || x == m0 {
			st.res[x] = st.aux[x]
		}
	}
	st.copies++
	return true
}

// noPairCopy turns pairCopy off (tests compare with check and commit).
var noPairCopy = false

// pairSet is a set of pairs (a<<32 | b, never 0), emptied in the time it
// took to fill.
type pairSet struct {
	slots []uint64 // 0: empty
	keys  []uint64
}

func (s *pairSet) has(k uint64) bool {
	if len(s.slots) == 0 {
		return false
	}
	m := uint64(len(s.slots) - 1)
	for i := pairHash(uint32(k>>32), uint32(k)) & m; ; i = (i + 1) & m {
		switch s.slots[i] {
		case k:
			return true
		case 0:
			return false
		}
	}
}

// add puts k, which is not in the set, in it.
func (s *pairSet) add(k uint64) {
	if 2*(len(s.keys)+1) > len(s.slots) {
		s.slots = make([]uint64, max(256, 2*len(s.slots)))
		for _, o := range s.keys {
			s.place(o)
		}
	}
	s.keys = append(s.keys, k)
	s.place(k)
}

func (s *pairSet) place(k uint64) {
	m := uint64(len(s.slots) - 1)
	i := pairHash(uint32(k>>32), uint32(k)) & m
	for s.slots[i] != 0 {
		i = (i + 1) & m
	}
	s.slots[i] = k
}

func (s *pairSet) reset() {
	m := uint64(len(s.slots) - 1)
	for _, k := range s.keys {
		for i := pairHash(uint32(k>>32), uint32(k)) & m; ; i = (i + 1) & m {
			if s.slots[i] == k {
				s.slots[i] = 0
				break
			}
		}
	}
	s.keys = s.keys[:0]
}

// pairedTo gives typedef m, after pairCopy did match's work for its
// component and before anything else changed, the newest candidate c of
// its hash, if pairCopy met the pair (m, c) and no class of this batch
// has m's hash; it reports whether it did. check(m, c) would then meet
// only pairs that pairCopy found OK (or OK leaves, as more members have
// classes now): it is OK, its commit changes nothing (a typedef is not
// assigned there, the structs it reaches have their classes, the
// declarations it meets are resolved), and match gives m the class c.
func (st *batchState) pairedTo(m uint32) bool {
	if st.kind(m) != btf.KindTypedef {
		return false
	}
	h := st.bhash[m]
	if st.bindex.find(h, st.bhash, 1) != 0 {
		return false
	}
	c := st.d.chain(h)
	if c == 0 || !st.cseen.has(uint64(st.t0+m)<<32|uint64(c)) {
		return false
	}
	st.res[m] = c
	return true
}

// unpair forgets pairCopy's pairs (aux is none outside refine).
func (st *batchState) unpair() {
	for _, x := range st.cpaired {
		st.aux[x] = none
	}
	st.cpaired = st.cpaired[:0]
	st.cseen.reset()
}

// fwdSettled reports whether resolveFwd(a, b), for a leaf pair of a
// declaration and what it may stand for, would change nothing: the
// declaration it would resolve is resolved already (reading it, as
// setFwd does), or it resolves none.
func (st *batchState) fwdSettled(a, b uint32, na, nb node) bool {
	if c, _ := fwdRank(na); c == fwdEnum {
		return true
	}
	fa, fb := isFwd(na), isFwd(nb)
	switch {
	case fb && !fa:
		_, done := st.fwdOf(b)
		return done
	case fa && !fb:
		if c := st.classOr(a); st.isClass(c) && c != 0 && isFwd(st.nodeOf(c)) {
			_, done := st.fwdOf(c)
			return done
		}
	}
	return true
}
