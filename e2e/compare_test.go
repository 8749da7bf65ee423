package e2e

import (
	"debug/elf"
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

// funcClasses sorts the function names of an ELF file's symbol table by
// how pahole 1.31's function selection treats them compared with 1.30's,
// using nothing but the symbol table:
//
//   - multiAddr: FUNC symbols of exactly this name sit at more than one
//     address (static functions of one name in several files). 1.31 leaves
//     every such function out; 1.30 kept one.
//   - cloned: the compiler also emitted clones of it (name.isra.N,
//     name.constprop.N, name.part.N, name.cold). 1.31 checks where such a
//     function's parameters really live and may leave it out.
//
// Any other function 1.30 encoded, 1.31 encodes too. On the Debian 6.12
// cloud-amd64 vmlinux this splits 1.31's 458 dropped FUNCs into 248
// multiAddr and 210 cloned, with no multiAddr function kept; the test
// derives the classes again from whatever kernel it is given.
type funcClasses struct {
	multiAddr, cloned map[string]bool
}

func classifyFuncSymbols(path string) (funcClasses, error) {
	f, err := elf.Open(path)
	if err != nil {
		return funcClasses{}, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return funcClasses{}, fmt.Errorf("%s: .symtab: %w", path, err)
	}
	type place struct {
		sec elf.SectionIndex
		val uint64
	}
	addrs := map[string]map[place]bool{}
	c := funcClasses{multiAddr: map[string]bool{}, cloned: map[string]bool{}}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF {
			continue
		}
		if base, _, clone := strings.Cut(s.Name, "."); clone {
			c.cloned[base] = true
			continue
		}
		if addrs[s.Name] == nil {
			addrs[s.Name] = map[place]bool{}
		}
		addrs[s.Name][place{s.Section, s.Value}] = true
		if len(addrs[s.Name]) > 1 {
			c.multiAddr[s.Name] = true
		}
	}
	return c, nil
}

// checkAgainst130 checks that got (a pahole 1.31-style encoding of the file
// at elfPath) differs from old, the file's own pahole 1.30 BTF, only as
// 1.31's function selection explains, everything derived from the file:
//
//   - no FUNC of got is missing from old, and nothing of got is missing
//     from old as a type graph;
//   - of old's FUNCs, every multiAddr one is left out, every one that is
//     neither multiAddr nor cloned is kept;
//   - old's types with no counterpart in got are only those left-out FUNCs
//     and FUNC_PROTOs that nothing but left-out FUNCs refers to.
//
// It returns the problems and a one-line account of what was left out.
func checkAgainst130(got, old *btf.Spec, elfPath string) (errs []string, account string) {
	cls, err := classifyFuncSymbols(elfPath)
	if err != nil {
		return []string{err.Error()}, ""
	}
	gotFuncs := namesOf(got, btf.KindFunc)
	if extra := minus(gotFuncs, namesOf(old, btf.KindFunc)); len(extra) > 0 {
		errs = append(errs, fmt.Sprintf("%d FUNCs not in 1.30: %s", len(extra), head(extra, 20)))
	}
	dropped := map[string]bool{}
	var keptMulti, droppedPlain []string
	nMulti, nCloned := 0, 0
	for id := old.FirstID(); id < old.NextID(); id++ {
		if old.Kind(id) != btf.KindFunc {
			continue
		}
		name := old.Name(id)
		_, kept := gotFuncs[name]
		switch {
		case cls.multiAddr[name] && kept:
			keptMulti = append(keptMulti, name)
		case cls.multiAddr[name]:
			nMulti++
		case !kept && cls.cloned[name]:
			nCloned++
		case !kept:
			droppedPlain = append(droppedPlain, name)
		}
		if !kept {
			dropped[name] = true
		}
	}
	if len(keptMulti) > 0 {
		errs = append(errs, fmt.Sprintf("%d FUNCs kept whose name has several addresses: %s", len(keptMulti), head(keptMulti, 20)))
	}
	if len(droppedPlain) > 0 {
		errs = append(errs, fmt.Sprintf("%d FUNCs of 1.30 left out with one address and no clones: %s", len(droppedPlain), head(droppedPlain, 20)))
	}

	// FUNC_PROTOs that only left-out FUNCs use may go too.
	pinned, byDropped := map[btf.TypeID]bool{}, map[btf.TypeID]bool{}
	for id := old.FirstID(); id < old.NextID(); id++ {
		gone := old.Kind(id) == btf.KindFunc && dropped[old.Name(id)]
		old.ForEachRef(id, func(ref *uint32) {
			if to := btf.TypeID(*ref); old.Kind(to) == btf.KindFuncProto {
				if gone {
					byDropped[to] = true
				} else {
					pinned[to] = true
				}
			}
		})
	}
	c, err := dedup.Compare(got, old)
	if err != nil {
		return append(errs, err.Error()), ""
	}
	onlyGot, onlyOld := c.Unmatched()
	for _, id := range onlyGot {
		errs = append(errs, "only ours: "+firstLine(got.DumpType(id)))
		if len(errs) > 40 {
			break
		}
	}
	protos, intoBase := 0, 0
	for _, id := range onlyOld {
		switch k := old.Kind(id); {
		case k == btf.KindFunc && dropped[old.Name(id)]:
		case k == btf.KindFuncProto && byDropped[id] && !pinned[id]:
			protos++
		case foldedIntoBase(old, got, id):
			intoBase++
		default:
			errs = append(errs, "only 1.30, not explained by 1.31's function selection: "+firstLine(old.DumpType(id)))
		}
		if len(errs) > 40 {
			break
		}
	}
	account = fmt.Sprintf("1.30 FUNCs left out: %d with several addresses, %d cloned (of %d cloned in all); %d FUNC_PROTOs only they used; %d module copies of base types folded into the base",
		nMulti, nCloned, len(cls.cloned), protos, intoBase)
	return errs, account
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

// foldedIntoBase reports whether a type of old, a module's split BTF, is
// one btfstream may leave to the base where libbpf keeps a module copy:
// libbpf will not merge a module type whose graph reaches a struct that the
// base has only as a FWD (hypot_adjust_canon) and keeps the copy; dedup
// treats the two as equivalent and uses the base type. Such a copy is a
// layout or reference kind and, when named, the base or got (which then
// holds the one copy that uses the base's types) has a type of the same
// kind and name. FUNCs, VARs, DATASECs, DECL_TAGs and FWDs never qualify.
func foldedIntoBase(old, got *btf.Spec, id btf.TypeID) bool {
	base := old.Base()
	if base == nil {
		return false
	}
	k := old.Kind(id)
	switch k {
	case btf.KindFunc, btf.KindVar, btf.KindDatasec, btf.KindDeclTag, btf.KindFwd:
		return false
	}
	name := old.Name(id)
	if name == "" {
		return true
	}
	for b := base.FirstID(); b < got.NextID(); b++ {
		if got.Kind(b) == k && got.Name(b) == name {
			return true
		}
	}
	return false
}
