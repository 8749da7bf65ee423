package stream

import (
	"debug/elf"
	"slices"
	"strings"
)

// elfFunc is one function name of the ELF symbol table, as pahole's
// elf_functions table has it: the symbol name up to its first '.', with
// every FUNC symbol of that name (".isra.0", ".constprop.0", ...) folded in.
type elfFunc struct {
	name      string
	addr      uint64 // address of the first symbol
	ambiguous bool   // symbols of this name sit at different addresses
	kfunc     bool
	kflags    uint32
}

// elfFuncs is the table, sorted by name.
type elfFuncs []elfFunc

// hasNonFuncSuffix reports suffixes that are parts of functions, not
// functions: ".cold" and ".part" anywhere after the first '.'.
func hasNonFuncSuffix(name string) bool {
	i := strings.IndexByte(name, '.')
	if i < 0 {
		return false
	}
	s := name[i:]
	return strings.Contains(s, ".cold") || strings.Contains(s, ".part")
}

func collectELFFuncs(syms []elf.Symbol) elfFuncs {
	type sym struct {
		name string
		addr uint64
		seq  int
	}
	var all []sym
	for i, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Name == "" || hasNonFuncSuffix(s.Name) {
			continue
		}
		n := s.Name
		if i := strings.IndexByte(n, '.'); i >= 0 {
			n = n[:i]
		}
		all = append(all, sym{n, s.Value, i})
	}
	slices.SortStableFunc(all, func(a, b sym) int { return strings.Compare(a.name, b.name) })
	var out elfFuncs
	for _, s := range all {
		if n := len(out); n > 0 && out[n-1].name == s.name {
			if out[n-1].addr != s.addr {
				out[n-1].ambiguous = true
			}
			continue
		}
		out = append(out, elfFunc{name: s.name, addr: s.addr})
	}
	return out
}

// find returns the index of name, or -1.
func (fs elfFuncs) find(name string) int {
	i, ok := slices.BinarySearchFunc(fs, name, func(f elfFunc, n string) int { return strings.Compare(f.name, n) })
	if !ok {
		return -1
	}
	return i
}
