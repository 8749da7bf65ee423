package main

import (
	"fmt"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/stream/encode"
)

type dieSeen struct {
	btfKey uint64
	class  btf.TypeID
}

type dieStats struct {
	keyed, decl, hits, right, unsound, wrongClass int
	skippable                                     int
	declHits, declSameAsLast, declSameAsFirst     int
	skipW                                         time.Duration
}

// addDIEKeys checks the DIE keys of one unit against those of earlier
// units: a hit whose batch type has another BTF closure key is unsound
// (the key did not imply the encoded closure); one whose type went into
// another class than the earlier copy's would change the output if
// skipped. Only keys of closures without declarations are looked up.
func (st *stats) addDIEKeys(b *btf.Spec, remap dedup.Remap, ckeys []uint64, dieType []btf.TypeID, dkeys []uint64, ddecl []bool, seen map[uint64]dieSeen, u unitTimes) {
	n := b.Len()
	if n == 0 {
		return
	}
	first := b.FirstID()
	total := 0
	for x := first; x < b.NextID(); x++ {
		total += b.TypeBytes(x)
	}
	perByte := float64(u.encode+u.prepare+u.resolve) / float64(total)
	var roots []btf.TypeID
	for i, x := range dieType {
		if x == 0 || dkeys[i] == 0 {
			continue
		}
		st.die.keyed++
		if ddecl[i] {
			st.die.decl++
			// Keys with declarations: does a copy go where the last
			// copy went (the class changes when a declaration in the
			// closure is resolved)?
			c := remap.Map(x)
			if last, ok := st.lastDecl[dkeys[i]]; ok {
				st.die.declHits++
				if last == c {
					st.die.declSameAsLast++
				}
				if first := st.firstDecl[dkeys[i]]; first == c {
					st.die.declSameAsFirst++
				}
			} else {
				st.firstDecl[dkeys[i]] = c
			}
			st.lastDecl[dkeys[i]] = c
			continue
		}
		c := remap.Map(x)
		bk := ckeys[x-first]
		s, hit := seen[dkeys[i]]
		switch {
		case !hit:
			seen[dkeys[i]] = dieSeen{btfKey: bk, class: c}
		case s.btfKey != bk:
			st.die.hits++
			st.die.unsound++
		case s.class != c:
			st.die.hits++
			st.die.wrongClass++
		default:
			st.die.hits++
			st.die.right++
			roots = append(roots, x)
		}
	}
	skip := make([]bool, n)
	for len(roots) > 0 {
		x := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if skip[x-first] {
			continue
		}
		skip[x-first] = true
		st.die.skippable++
		st.die.skipW += time.Duration(perByte * float64(b.TypeBytes(x)))
		edges(b, x, func(y btf.TypeID) {
			if !skip[y-first] {
				roots = append(roots, y)
			}
		})
	}
}

func (st *stats) printDIEKeys(k *encode.ClosureKeys) {
	all := st.t.decode + st.t.encode + st.t.prepare + st.t.resolve
	d := st.die
	fmt.Printf("sound DIE closure keys (encode.ClosureKeys, %.2fs, %.1f%% of decode..resolve): unkeyed %d; %d type DIEs keyed, %d reach a declaration\n",
		st.dieKeyTime.Seconds(), 100*st.dieKeyTime.Seconds()/all.Seconds(), k.Unkeyed, d.keyed, d.decl)
	fmt.Printf("  declaration-free: %d hits: %d right, %d UNSOUND (another BTF closure), %d into another class\n",
		d.hits, d.right, d.unsound, d.wrongClass)
	fmt.Printf("  keys with declarations: %d hits, %d into the first copy's class, %d into the last copy's; %d keys\n",
		d.declHits, d.declSameAsFirst, d.declSameAsLast, len(st.firstDecl))
	fmt.Printf("  types reachable from right hits %d (%.1f%%), their size-weighted share of encode+prepare+resolve %.2fs (%.1f%% of decode..resolve)\n",
		d.skippable, 100*float64(d.skippable)/float64(st.types), d.skipW.Seconds(), 100*d.skipW.Seconds()/all.Seconds())
}
