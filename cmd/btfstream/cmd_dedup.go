package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/spf13/pflag"
)

// runDedup implements `btfstream dedup IN -o OUT [--base BASE]`: it
// deduplicates the BTF of IN (raw, or an ELF file's .BTF) and writes raw
// BTF. With a base, IN is split BTF and stays split over the same base.
func runDedup(args []string) int {
	fs := newFlagSet("dedup")
	out := fs.StringP("output", "o", "", "write the deduplicated raw BTF here")
	base := fs.StringP("base", "B", "", "base BTF (raw or ELF) of split BTF such as a module's")
	quiet := fs.BoolP("quiet", "q", false, "do not print the type counts")
	fs.Usage = func() {
		os.Stderr.WriteString("usage: btfstream dedup IN -o OUT [--base BASE]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 || *out == "" {
		fs.Usage()
		return 2
	}
	_, spec, code := loadPair(fs.Arg(0), *base)
	if code != 0 {
		return code
	}
	res, _, err := dedup.Dedup(spec)
	if err != nil {
		return fail(2, "dedup: %s: %v", fs.Arg(0), err)
	}
	res.ByteOrder = spec.ByteOrder
	if err := os.WriteFile(*out, res.Marshal(), 0o644); err != nil {
		return fail(1, "dedup: %v", err)
	}
	if !*quiet {
		fmt.Fprintf(os.Stderr, "%s: %d types -> %d types\n", fs.Arg(0), spec.Len(), res.Len())
	}
	return 0
}

// loadPair loads an optional base and a file on top of it; bad input
// yields exit code 2.
func loadPair(path, base string) (*btf.Spec, *btf.Spec, int) {
	var baseSpec *btf.Spec
	if base != "" {
		var err error
		if baseSpec, err = btf.LoadFile(base, nil); err != nil {
			return nil, nil, fail(2, "base: %v", err)
		}
	}
	spec, err := btf.LoadFile(path, baseSpec)
	if err != nil {
		return nil, nil, fail(2, "%v", err)
	}
	return baseSpec, spec, 0
}
