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

// knownDiff is what pahole 1.31 changed against 1.30 on one kernel or
// module: the FUNCs it no longer emits (1.31 leaves out functions whose
// name has several addresses and some that exist only as
// .part/.isra/.constprop clones) and, by kind, how many types of 1.30 have
// no counterpart in 1.31 as type graphs (those FUNCs and the FUNC_PROTOs
// only they used).
type knownDiff struct {
	droppedFuncs []string
	onlyOld      map[btf.Kind]int
	// derived is set when onlyOld was estimated from droppedFuncs (no
	// recorded figures): FUNC_PROTOs only dropped FUNCs refer to. The
	// estimate can be high: pahole 1.31 keeps a few such prototypes (sctp.ko).
	derived bool
}

// deriveKnownDiff computes the dropped FUNC names from the 1.30 BTF old
// and the FUNC names of the newer encoding, and takes onlyOld from
// recorded if non-nil, else estimates it.
func deriveKnownDiff(old *btf.Spec, newFuncs map[string]int, recorded map[btf.Kind]int) knownDiff {
	d := knownDiff{droppedFuncs: minus(namesOf(old, btf.KindFunc), newFuncs), onlyOld: recorded}
	if recorded != nil {
		return d
	}
	d.derived = true
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
	d.onlyOld = map[btf.Kind]int{}
	if n := len(d.droppedFuncs); n > 0 {
		d.onlyOld[btf.KindFunc] = n
	}
	for id := range byDropped {
		if !pinned[id] {
			d.onlyOld[btf.KindFuncProto]++
		}
	}
	return d
}

// checkAgainst130 checks that got differs from the pahole 1.30 BTF old
// exactly by d: per-kind counts, names of named kinds, and as type graphs
// (nothing of got missing from old; old has exactly d.onlyOld more).
func checkAgainst130(got, old *btf.Spec, d knownDiff) []string {
	var errs []string
	if n := len(d.droppedFuncs); n != d.onlyOld[btf.KindFunc] {
		errs = append(errs, fmt.Sprintf("%d FUNC names of 1.30 missing, want %d: %s", n, d.onlyOld[btf.KindFunc], head(d.droppedFuncs, 20)))
	}
	gc, oc := kindCounts(got), kindCounts(old)
	for k := btf.KindInt; k <= btf.MaxKind; k++ {
		if want := oc[k] - d.onlyOld[k]; gc[k] != want {
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
	onlyGot, onlyOld, shown, err := graphDiff(got, old, 20)
	if err != nil {
		return append(errs, err.Error())
	}
	if len(onlyGot) > 0 || !sameCounts(onlyOld, d.onlyOld) {
		errs = append(errs, fmt.Sprintf("graph diff against 1.30: only ours %v, only 1.30 %v (want %v)\n%s",
			onlyGot, onlyOld, d.onlyOld, strings.Join(shown, "\n")))
	}
	return errs
}

// sameCounts compares two per-kind counts, zero entries equal to absent.
func sameCounts(a, b map[btf.Kind]int) bool {
	for k := btf.KindUnknown; k <= btf.MaxKind; k++ {
		if a[k] != b[k] {
			return false
		}
	}
	return true
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
			shown = append(shown, "only A: "+firstLine(a.DumpType(id)))
		}
	}
	for i, id := range ub {
		onlyB[b.Kind(id)]++
		if i < max {
			shown = append(shown, "only B: "+firstLine(b.DumpType(id)))
		}
	}
	return onlyA, onlyB, shown, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
