package main

import (
	"fmt"

	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/stream/outfile"
)

// runDedup implements `btfstream dedup IN -o OUT [--base BASE]`: it
// deduplicates the BTF of IN (raw, or an ELF file's .BTF) and writes raw
// BTF. With a base, IN is split BTF and stays split over the same base.
// Exit status: 0 done, 1 bad input or output (as dump and the encoder),
// 2 usage error.
func runDedup(args []string) int {
	fs := newFlagSet("dedup")
	out := fs.StringP("output", "o", "", "write the deduplicated raw BTF here")
	base := fs.StringP("base", "B", "", "base BTF (raw or ELF) of split BTF such as a module's")
	quiet := fs.BoolP("quiet", "q", false, "do not print the type counts")
	if code, ok := parseOperands(fs, "dedup", "btfstream dedup IN -o OUT [--base BASE]", args, "IN"); !ok {
		return code
	}
	if *out == "" {
		return usageError("dedup", errUsage("missing -o OUT"))
	}
	if err := outfile.Check(*out, 0); err != nil {
		return fail(1, "dedup: %v", err)
	}
	spec, err := loadWithBase(fs.Arg(0), *base)
	if err != nil {
		return fail(1, "dedup: %v", err)
	}
	res, _, err := dedup.Dedup(spec)
	if err != nil {
		return fail(1, "dedup: %s: %v", fs.Arg(0), err)
	}
	res.ByteOrder = spec.ByteOrder
	if spec.HasLayout() {
		// libbpf's btf__dedup keeps the layout section too.
		res.SetLayout(spec.Header.Layout)
	}
	if err := outfile.WriteFile(*out, res.Marshal()); err != nil {
		return fail(1, "dedup: %v", err)
	}
	if !*quiet {
		fmt.Fprintf(stderr, "%s: %d types -> %d types\n", fs.Arg(0), spec.Len(), res.Len())
	}
	return 0
}
