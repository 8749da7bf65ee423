package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

// diffDistilled compares two out-of-tree modules that carry their own
// distilled base (.BTF.base, see btf.Distill): first the two .BTF.base
// sections, then each .BTF together with its own .BTF.base (btf.Flatten),
// since their ids refer to different bases; both as graphs
// (dedup.CompareGraphs: libbpf 1.7 leaves copies of base types in the
// split BTF, which end up beside the base types they copy once flattened).
// done is false when neither
// file has a .BTF.base section; the caller then compares as usual. A file
// with .BTF.base against one without is a difference (exit 1); a base
// given with --base is an error, as such a .BTF is not split over it.
func diffDistilled(w io.Writer, pathA, pathB, base string, maxShown int) (code int, done bool) {
	hasA, err := hasDistilledBase(pathA)
	if err != nil {
		return fail(2, "diff: %v", err), true
	}
	hasB, err := hasDistilledBase(pathB)
	if err != nil {
		return fail(2, "diff: %v", err), true
	}
	switch {
	case !hasA && !hasB:
		return 0, false
	case base != "" && hasA && hasB:
		return diffRelocated(w, pathA, pathB, base, maxShown), true
	case base != "":
		return fail(2, "diff: --base: a module with a %s section is split BTF over that section, not over %s; compare two such modules, or without --base", btf.BaseSection, base), true
	case hasA != hasB:
		with, without := "A", "B"
		if hasB {
			with, without = "B", "A"
		}
		fmt.Fprintf(w, "differ: %s has a %s section (split BTF over a distilled base), %s has none\n", with, btf.BaseSection, without)
		return 1, true
	}
	baseA, splitA, err := loadDistilled(pathA)
	if err != nil {
		return fail(2, "diff: %v", err), true
	}
	baseB, splitB, err := loadDistilled(pathB)
	if err != nil {
		return fail(2, "diff: %v", err), true
	}
	fmt.Fprintf(w, "%s (distilled base):\n", btf.BaseSection)
	printKindTable(w, baseA, baseB)
	code = diffReport(w, baseA, baseB, maxShown, true)
	fmt.Fprintf(w, ".BTF (each over its own %s):\n", btf.BaseSection)
	printKindTable(w, splitA, splitB)
	return max(code, diffReport(w, btf.Flatten(splitA), btf.Flatten(splitB), maxShown, true)), true
}

// diffRelocated compares two out-of-tree modules over the full base
// their distilled bases were made from (base, e.g. vmlinux): each .BTF is
// relocated onto it (btf.Relocate, as the kernel does at load) and the two
// are compared as split BTF over one base, so a type identical to a base
// type is that base type on both sides, whatever each .BTF.base held.
func diffRelocated(w io.Writer, pathA, pathB, base string, maxShown int) int {
	full, err := loadBase(base)
	if err != nil {
		return fail(2, "diff: %v", err)
	}
	var rel [2]*btf.Spec
	for i, path := range []string{pathA, pathB} {
		_, split, err := loadDistilled(path)
		if err != nil {
			return fail(2, "diff: %v", err)
		}
		if rel[i], err = btf.Relocate(split, full); err != nil {
			return fail(2, "diff: %s: %v", path, err)
		}
	}
	fmt.Fprintf(w, ".BTF (each relocated from its %s onto %s):\n", btf.BaseSection, base)
	printKindTable(w, rel[0], rel[1])
	return diffReport(w, rel[0], rel[1], maxShown, false)
}

// hasDistilledBase reports whether path is an ELF file with a .BTF.base
// section.
func hasDistilledBase(path string) (bool, error) {
	f, _, err := elffile.OpenInput(path, path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [4]byte
	if n, _ := f.ReadAt(magic[:], 0); n < 4 || string(magic[:]) != "\x7fELF" {
		return false, nil
	}
	_, err = elffile.ReadNamedSection(path, btf.BaseSection)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, elffile.ErrNoSection):
		return false, nil
	}
	return false, err
}

// loadDistilled loads a module's .BTF.base and its .BTF over it, and
// checks the structure of both, as loadSound does for other inputs.
func loadDistilled(path string) (base, split *btf.Spec, err error) {
	if base, split, err = elffile.LoadDistilledBTF(path); err != nil {
		return nil, nil, err
	}
	if err := base.CheckStructure(); err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %w", path, btf.BaseSection, err)
	}
	if err := split.CheckStructure(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return base, split, nil
}

// loadDumpInput loads what dump prints: path's BTF over base, its
// structure checked unless validate is false; without a base, a module with a .BTF.base
// section is read over it (as bpftool would need -B).
func loadDumpInput(path, base string, validate bool) (*btf.Spec, error) {
	if base == "" {
		has, err := hasDistilledBase(path)
		if err != nil {
			return nil, err
		}
		if has && validate {
			_, split, err := loadDistilled(path)
			return split, err
		}
		if has {
			_, split, err := elffile.LoadDistilledBTF(path)
			return split, err
		}
	}
	if !validate {
		b, err := loadRaw(base, nil)
		if err != nil {
			return nil, err
		}
		return loadRaw(path, b)
	}
	return loadWithBase(path, base)
}
