package main

import (
	"fmt"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
)

type unitTimes struct{ decode, encode, key, prepare, resolve time.Duration }

type seenKey struct {
	class  btf.TypeID
	btfKey uint64
}

type stats struct {
	units                                   int
	t                                       unitTimes
	types, pre, exact, closure              int
	closureCost, skipCost                   time.Duration // encode+prepare+resolve share
	dieTypes, hits, tp, sameNotExact, wrong int
	missed                                  int // closure-exact DIE types without a hit
	cutUnsound                              int // hits whose BTF closure differs
	skippable                               int
	cl                                      closureStats
	closureTime                             time.Duration
	dieKeyTime                              time.Duration
	die                                     dieStats
	firstDecl, lastDecl                     map[uint64]btf.TypeID // keys with declarations: their first and last copies' classes
}

// sameType reports whether batch type x, its edges mapped by remap, is table
// type c: same header, words and names.
func sameType(b *btf.Spec, x btf.TypeID, tab *btf.Spec, c btf.TypeID, remap dedup.Remap) bool {
	tb, tt := b.Type(x), tab.Type(c)
	if tb.Info != tt.Info || b.Name(x) != tab.Name(c) {
		return false
	}
	k := tb.Kind()
	if k.HasType() {
		if remap.Map(tb.Ref()) != tt.Ref() {
			return false
		}
	} else if tb.SizeOrType != tt.SizeOrType {
		return false
	}
	wb, wt := b.Extra(x), tab.Extra(c)
	if len(wb) != len(wt) {
		return false
	}
	refs, strs := wordKinds(k, len(wb))
	for j := range wb {
		switch {
		case refs(j):
			if remap.Map(btf.TypeID(wb[j])) != btf.TypeID(wt[j]) {
				return false
			}
		case strs(j):
			nb, _ := b.Strings().Lookup(btf.StrOff(wb[j]))
			nt, _ := tab.Strings().Lookup(btf.StrOff(wt[j]))
			if nb != nt {
				return false
			}
		default:
			if wb[j] != wt[j] {
				return false
			}
		}
	}
	return true
}

// wordKinds says which extra words of a kind are type ids and which are
// string offsets (as btf.Spec.ForEachRef and ForEachStr).
func wordKinds(k btf.Kind, n int) (refs, strs func(int) bool) {
	no := func(int) bool { return false }
	switch k {
	case btf.KindArray:
		return func(j int) bool { return j < 2 }, no
	case btf.KindStruct, btf.KindUnion:
		return func(j int) bool { return j%3 == 1 }, func(j int) bool { return j%3 == 0 }
	case btf.KindEnum64:
		return no, func(j int) bool { return j%3 == 0 }
	case btf.KindEnum:
		return no, func(j int) bool { return j%2 == 0 }
	case btf.KindFuncProto:
		return func(j int) bool { return j%2 == 1 }, func(j int) bool { return j%2 == 0 }
	case btf.KindDatasec:
		return func(j int) bool { return j%3 == 0 }, no
	}
	return no, no
}

// edges calls fn for each edge of batch type x to another batch type.
func edges(b *btf.Spec, x btf.TypeID, fn func(y btf.TypeID)) {
	t := b.Type(x)
	k := t.Kind()
	if k.HasType() && b.Local(t.Ref()) {
		fn(t.Ref())
	}
	w := b.Extra(x)
	refs, _ := wordKinds(k, len(w))
	for j := range w {
		if refs(j) && b.Local(btf.TypeID(w[j])) {
			fn(btf.TypeID(w[j]))
		}
	}
}

func (st *stats) add(b, tab *btf.Spec, remap dedup.Remap, before btf.TypeID, u unitTimes, keys []key, dieType []btf.TypeID, ckeys []uint64, seen map[key]seenKey) {
	st.units++
	st.t.decode += u.decode
	st.t.encode += u.encode
	st.t.key += u.key
	st.t.prepare += u.prepare
	st.t.resolve += u.resolve
	n := b.Len()
	if n == 0 {
		return
	}
	share := (u.encode + u.prepare + u.resolve) / time.Duration(n)
	first := b.FirstID()
	ok := make([]bool, n)
	parents := make([][]btf.TypeID, n)
	for x := first; x < b.NextID(); x++ {
		c := remap.Map(x)
		st.types++
		if c < before {
			st.pre++
			if sameType(b, x, tab, c, remap) {
				st.exact++
				ok[x-first] = true
			}
		}
		edges(b, x, func(y btf.TypeID) { parents[y-first] = append(parents[y-first], x) })
	}
	// A type is closure-exact when every type it reaches is exact.
	var work []btf.TypeID
	for x := first; x < b.NextID(); x++ {
		if !ok[x-first] {
			work = append(work, x)
		}
	}
	for len(work) > 0 {
		y := work[len(work)-1]
		work = work[:len(work)-1]
		for _, p := range parents[y-first] {
			if ok[p-first] {
				ok[p-first] = false
				work = append(work, p)
			}
		}
	}
	for x := range ok {
		if ok[x] {
			st.closure++
			st.closureCost += share
		}
	}
	// DIE keys.
	skip := make([]bool, n)
	var roots []btf.TypeID
	for i, x := range dieType {
		if x == 0 || keys[i] == 0 {
			continue
		}
		st.dieTypes++
		c := remap.Map(x)
		ce := ok[x-first]
		s, hit := seen[keys[i]]
		switch {
		case !hit:
			seen[keys[i]] = seenKey{class: c, btfKey: ckeys[x-first]}
			if ce {
				st.missed++
			}
		case s.class == c && ce:
			st.hits++
			st.tp++
			roots = append(roots, x)
		case s.class == c:
			st.hits++
			st.sameNotExact++
		default:
			st.hits++
			st.wrong++
		}
		if hit && s.btfKey != ckeys[x-first] {
			st.cutUnsound++
		}
	}
	for len(roots) > 0 {
		x := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if skip[x-first] {
			continue
		}
		skip[x-first] = true
		st.skippable++
		st.skipCost += share
		edges(b, x, func(y btf.TypeID) {
			if !skip[y-first] {
				roots = append(roots, y)
			}
		})
	}
}

func (st *stats) print(tableLen int) {
	t := st.t
	work := t.encode + t.prepare + t.resolve
	all := work + t.decode
	pct := func(d time.Duration) float64 { return 100 * d.Seconds() / all.Seconds() }
	fmt.Printf("units %d, batch types %d, table %d\n", st.units, st.types, tableLen)
	fmt.Printf("CPU (one goroutine): decode %.2fs, encode %.2fs, prepare %.2fs, resolve+commit %.2fs; DIE keys %.2fs (%.0f%% of encode+prepare)\n",
		t.decode.Seconds(), t.encode.Seconds(), t.prepare.Seconds(), t.resolve.Seconds(), t.key.Seconds(), 100*t.key.Seconds()/(t.encode+t.prepare).Seconds())
	fmt.Printf("types mapped to an earlier class %d (%.1f%%), of them the same type edge for edge %d (%.1f%%)\n",
		st.pre, 100*float64(st.pre)/float64(st.types), st.exact, 100*float64(st.exact)/float64(st.types))
	fmt.Printf("closure-exact types (all they reach is an earlier class, edge for edge) %d (%.1f%%), their share of encode+prepare+resolve %.2fs (%.1f%% of decode..resolve)\n",
		st.closure, 100*float64(st.closure)/float64(st.types), st.closureCost.Seconds(), pct(st.closureCost))
	fmt.Printf("DIE keys: %d type DIEs, %d hits: %d right (same class, closure-exact), %d same class not exact, %d another class; %d closure-exact DIE types missed\n",
		st.dieTypes, st.hits, st.tp, st.sameNotExact, st.wrong, st.missed)
	fmt.Printf("  hits whose encoded closure differs from the earlier copy's (unsound): %d\n", st.cutUnsound)
	fmt.Printf("types reachable from right hits (skippable) %d (%.1f%%), share %.2fs (%.1f%%)\n",
		st.skippable, 100*float64(st.skippable)/float64(st.types), st.skipCost.Seconds(), pct(st.skipCost))
}

type closureStats struct {
	hits, right, wrong     int
	rightCost              time.Duration
	rightNoFwd, wrongNoFwd int // the same, closures without declarations
	rightNoFwdCost         time.Duration
	rightW, rightNoFwdW    time.Duration // shares weighted by type size
}

func (st *stats) addClosure(b *btf.Spec, remap dedup.Remap, ckeys []uint64, fwd []bool, seen map[uint64]btf.TypeID, u unitTimes) {
	n := b.Len()
	if n == 0 {
		return
	}
	share := (u.encode + u.prepare + u.resolve) / time.Duration(n)
	// Weighted by size instead: a type's encode and prepare cost grows
	// with its members.
	total := 0
	for x := b.FirstID(); x < b.NextID(); x++ {
		total += b.TypeBytes(x)
	}
	perByte := float64(u.encode+u.prepare+u.resolve) / float64(total)
	for i, k := range ckeys {
		wshare := time.Duration(perByte * float64(b.TypeBytes(b.FirstID()+btf.TypeID(i))))
		if k == 0 {
			continue
		}
		x := b.FirstID() + btf.TypeID(i)
		c := remap.Map(x)
		s, hit := seen[k]
		switch {
		case !hit:
			seen[k] = c
		case s == c:
			st.cl.hits++
			st.cl.right++
			st.cl.rightCost += share
			st.cl.rightW += wshare
			if !fwd[i] {
				st.cl.rightNoFwd++
				st.cl.rightNoFwdCost += share
				st.cl.rightNoFwdW += wshare
			}
		default:
			st.cl.hits++
			st.cl.wrong++
			if !fwd[i] {
				st.cl.wrongNoFwd++
			}
		}
	}
}

func (st *stats) printClosure(cl *closer) {
	all := st.t.decode + st.t.encode + st.t.prepare + st.t.resolve
	fmt.Printf("BTF closure keys (%.2fs, exact up to isomorphism): unkeyed %d, largest cyclic component %d; %d types repeat an earlier unit's closure: %d (%.1f%%) into its class, %d into another; share of the right ones %.2fs (%.1f%%)\n",
		st.closureTime.Seconds(), cl.unkey, cl.sccMax, st.cl.hits, st.cl.right, 100*float64(st.cl.right)/float64(st.types), st.cl.wrong, st.cl.rightCost.Seconds(), 100*st.cl.rightCost.Seconds()/all.Seconds())
	fmt.Printf("  weighted by type size: all right %.2fs (%.1f%%), without declarations %.2fs (%.1f%%)\n",
		st.cl.rightW.Seconds(), 100*st.cl.rightW.Seconds()/all.Seconds(), st.cl.rightNoFwdW.Seconds(), 100*st.cl.rightNoFwdW.Seconds()/all.Seconds())
	fmt.Printf("  of them closures without FWD or enum declaration: %d into its class (share %.2fs, %.1f%%), %d into another\n",
		st.cl.rightNoFwd, st.cl.rightNoFwdCost.Seconds(), 100*st.cl.rightNoFwdCost.Seconds()/all.Seconds(), st.cl.wrongNoFwd)
}
