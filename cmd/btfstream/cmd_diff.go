package main

import (
	"fmt"
	"io"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
)

// runDiff implements `btfstream diff A B [--base BASE]`: it compares two
// BTFs (raw or ELF .BTF) as type graphs, independent of ids and order, and
// exits 0 when they hold the same types, 1 when they differ, 2 on bad
// input. It prints a per-kind count table and the types without a
// counterpart, each explained against the other side's type of the same
// kind and name when there is one.
func runDiff(args []string) int {
	fs := newFlagSet("diff")
	base := fs.StringP("base", "B", "", "base BTF (raw or ELF) of both A and B when they are split BTF;\nwithout it, modules with a .BTF.base section are compared over their own")
	maxShown := fs.Int("max", 50, "show at most this many differing types per side (0: all)")
	quiet := fs.BoolP("quiet", "q", false, "print nothing, only set the exit status")
	if code, ok := parseOperands(fs, "diff", "btfstream diff A B [--base BASE]", args, "A", "B"); !ok {
		return code
	}
	w := stdout
	if *quiet {
		w = io.Discard
	}
	// Out-of-tree modules carry their own base (.BTF.base).
	if code, done := diffDistilled(w, fs.Arg(0), fs.Arg(1), *base, *maxShown); done {
		return code
	}
	// One base Spec for both: Compare requires split BTF over the same base.
	baseSpec, err := loadBase(*base)
	if err != nil {
		return fail(2, "diff: %v", err)
	}
	a, err := loadSound(fs.Arg(0), baseSpec)
	if err != nil {
		return fail(2, "diff: %v", err)
	}
	b, err := loadSound(fs.Arg(1), baseSpec)
	if err != nil {
		return fail(2, "diff: %v", err)
	}
	printKindTable(w, a, b)
	return diffReport(w, a, b, *maxShown, false)
}

// diffReport compares a and b as type graphs and prints "equal", or the
// types without a counterpart; it returns diff's exit status.
func diffReport(w io.Writer, a, b *btf.Spec, maxShown int, graphs bool) int {
	compare := dedup.Compare
	if graphs {
		compare = dedup.CompareGraphs
	}
	c, err := compare(a, b)
	if err != nil {
		return fail(2, "diff: %v", err)
	}
	if ca, cb := c.BaseCopies(); ca+cb > 0 {
		fmt.Fprintf(w, "base copies (types identical to a base type; each counts as that type): A %d%s, B %d%s\n",
			ca, copyKinds(c, 0), cb, copyKinds(c, 1))
	}
	if da, db := c.Duplicates(); da+db > 0 {
		fmt.Fprintf(w, "twins (types identical to another of their side, one node of the graph): A %d, B %d\n", da, db)
	}
	if c.Equal() {
		fmt.Fprintln(w, "equal")
		return 0
	}
	onlyA, onlyB := c.Unmatched()
	fmt.Fprintf(w, "differ: %d types of A and %d of B have no counterpart\n", len(onlyA), len(onlyB))
	byName := map[string][]btf.TypeID{}
	key := func(s *btf.Spec, id btf.TypeID) string { return s.Kind(id).String() + "\x00" + s.Name(id) }
	for _, id := range onlyB {
		byName[key(b, id)] = append(byName[key(b, id)], id)
	}
	used := map[btf.TypeID]bool{}
	shown := 0
	for _, id := range onlyA {
		if maxShown > 0 && shown == maxShown {
			fmt.Fprintf(w, "... and more\n")
			break
		}
		shown++
		var other btf.TypeID
		for _, o := range byName[key(a, id)] {
			if !used[o] {
				other = o
				break
			}
		}
		if other != 0 {
			used[other] = true
			fmt.Fprintf(w, "A %s: %s (B [%d])\n", head(a, id), c.Explain(id, other), other)
		} else {
			fmt.Fprintf(w, "A %s: only in A\n", head(a, id))
		}
	}
	shown = 0
	for _, id := range onlyB {
		if used[id] {
			continue
		}
		if maxShown > 0 && shown == maxShown {
			fmt.Fprintf(w, "... and more\n")
			break
		}
		shown++
		fmt.Fprintf(w, "B %s: only in B\n", head(b, id))
	}
	return 1
}

// head renders "[42] STRUCT 'foo' size 16".
func head(s *btf.Spec, id btf.TypeID) string {
	h := dedup.Short(s, id)
	if t := s.Type(id); t.Kind().HasSize() {
		h += fmt.Sprintf(" size %d", t.Size())
	}
	return h
}

func printKindTable(w io.Writer, a, b *btf.Spec) {
	var ca, cb [btf.MaxKind + 1]int
	for id := a.FirstID(); id < a.NextID(); id++ {
		ca[a.Kind(id)]++
	}
	for id := b.FirstID(); id < b.NextID(); id++ {
		cb[b.Kind(id)]++
	}
	fmt.Fprintf(w, "%-12s %9s %9s\n", "kind", "A", "B")
	for k := btf.KindInt; k <= btf.MaxKind; k++ {
		if ca[k] == 0 && cb[k] == 0 {
			continue
		}
		mark := ""
		if ca[k] != cb[k] {
			mark = " *"
		}
		fmt.Fprintf(w, "%-12s %9d %9d%s\n", k, ca[k], cb[k], mark)
	}
	fmt.Fprintf(w, "%-12s %9d %9d\n", "total", a.Len(), b.Len())
}

// copyKinds renders the kinds of one side's base copies: " (TYPEDEF 3, PTR 2)".
func copyKinds(c *dedup.Comparison, side int) string {
	s := c.A
	if side == 1 {
		s = c.B
	}
	ids, _ := c.BaseCopiesOf(side)
	if len(ids) == 0 {
		return ""
	}
	var n [btf.MaxKind + 1]int
	for _, id := range ids {
		n[s.Kind(id)]++
	}
	out := ""
	for k := btf.KindInt; k <= btf.MaxKind; k++ {
		if n[k] > 0 {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("%s %d", k, n[k])
		}
	}
	return " (" + out + ")"
}
