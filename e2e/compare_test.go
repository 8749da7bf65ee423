package e2e

import (
	"fmt"
	"sort"
	"strings"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
)

// kindCounts counts the local types of s by kind.
func kindCounts(s *btf.Spec) map[btf.Kind]int {
	m := map[btf.Kind]int{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		m[s.Kind(id)]++
	}
	return m
}

// namesOf returns the multiset of names of the local types of kind k.
func namesOf(s *btf.Spec, k btf.Kind) map[string]int {
	m := map[string]int{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		if s.Kind(id) == k {
			m[s.Name(id)]++
		}
	}
	return m
}

// minus returns the names in a but not in b (by count), sorted.
func minus(a, b map[string]int) []string {
	var out []string
	for n, c := range a {
		for i := b[n]; i < c; i++ {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// countTable prints per-kind counts of several Specs side by side.
func countTable(names []string, counts ...map[btf.Kind]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s", "KIND")
	for _, n := range names {
		fmt.Fprintf(&b, " %14s", n)
	}
	b.WriteString("\n")
	for k := btf.KindInt; k <= btf.MaxKind; k++ {
		fmt.Fprintf(&b, "%-12s", k)
		for _, c := range counts {
			fmt.Fprintf(&b, " %14d", c[k])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// knownDiff is what pahole 1.31 changed against 1.30 on a kernel, derived
// from the 1.30 BTF and the set of function names 1.31 keeps.
type knownDiff struct {
	// droppedFuncs are FUNC names 1.30 emits and 1.31 does not: 1.31
	// leaves out functions whose name has several addresses and some that
	// exist only as .part/.isra/.constprop clones.
	droppedFuncs []string
	// orphanProtos counts the FUNC_PROTOs of 1.30 that only dropped FUNCs
	// refer to; deduplication leaves them out of 1.31.
	orphanProtos int
}

// deriveKnownDiff computes knownDiff from the 1.30 BTF old and the FUNC
// names of the newer encoding.
func deriveKnownDiff(old *btf.Spec, newFuncs map[string]int) knownDiff {
	var d knownDiff
	d.droppedFuncs = minus(namesOf(old, btf.KindFunc), newFuncs)
	dropped := map[string]bool{}
	for _, n := range d.droppedFuncs {
		dropped[n] = true
	}
	// Who refers to each FUNC_PROTO: kept referrers pin it.
	pinned := map[btf.TypeID]bool{}
	byDropped := map[btf.TypeID]bool{}
	for id := old.FirstID(); id < old.NextID(); id++ {
		isDropped := old.Kind(id) == btf.KindFunc && dropped[old.Name(id)]
		old.ForEachRef(id, func(ref *uint32) {
			to := btf.TypeID(*ref)
			if old.Kind(to) != btf.KindFuncProto {
				return
			}
			if isDropped {
				byDropped[to] = true
			} else {
				pinned[to] = true
			}
		})
	}
	for id := range byDropped {
		if !pinned[id] {
			d.orphanProtos++
		}
	}
	return d
}

// checkAgainst130 checks that got differs from the pahole 1.30 BTF old
// exactly by d: FUNC and FUNC_PROTO counts, FUNC names, nothing else.
func checkAgainst130(got, old *btf.Spec, d knownDiff) []string {
	var errs []string
	gc, oc := kindCounts(got), kindCounts(old)
	for k := btf.KindInt; k <= btf.MaxKind; k++ {
		want := oc[k]
		switch k {
		case btf.KindFunc:
			want -= len(d.droppedFuncs)
		case btf.KindFuncProto:
			want -= d.orphanProtos
		}
		if gc[k] != want {
			errs = append(errs, fmt.Sprintf("%s: %d, want %d (1.30 has %d)", k, gc[k], want, oc[k]))
		}
	}
	if extra := minus(namesOf(got, btf.KindFunc), namesOf(old, btf.KindFunc)); len(extra) > 0 {
		errs = append(errs, fmt.Sprintf("%d FUNCs not in 1.30: %s", len(extra), head(extra, 20)))
	}
	for _, k := range []btf.Kind{btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindTypedef, btf.KindVar, btf.KindFwd, btf.KindDeclTag} {
		gn, on := namesOf(got, k), namesOf(old, k)
		if a, b := minus(gn, on), minus(on, gn); len(a)+len(b) > 0 {
			errs = append(errs, fmt.Sprintf("%s names: %d extra %s, %d missing %s", k, len(a), head(a, 10), len(b), head(b, 10)))
		}
	}
	return errs
}

func head(s []string, n int) string {
	if len(s) > n {
		return fmt.Sprintf("%q ...", s[:n])
	}
	return fmt.Sprintf("%q", s)
}

// graphDiff compares a and b as type graphs (dedup.Compare) and returns,
// by kind, how many types of each side have no counterpart, and up to max
// dumps of each side's unmatched types.
func graphDiff(a, b *btf.Spec, max int) (onlyA, onlyB map[btf.Kind]int, shown []string, err error) {
	c, err := dedup.Compare(a, b)
	if err != nil {
		return nil, nil, nil, err
	}
	ua, ub := c.Unmatched()
	onlyA, onlyB = map[btf.Kind]int{}, map[btf.Kind]int{}
	for _, id := range ua {
		onlyA[a.Kind(id)]++
		if len(shown) < max {
			shown = append(shown, "only A: "+a.DumpType(id))
		}
	}
	for i, id := range ub {
		onlyB[b.Kind(id)]++
		if i < max {
			shown = append(shown, "only B: "+b.DumpType(id))
		}
	}
	return onlyA, onlyB, shown, nil
}
