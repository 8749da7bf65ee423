package main

import (
	"io"
)

// runDump implements `btfstream dump FILE [--base BASE]`: it prints the
// types of FILE (raw BTF, or an ELF file's .BTF section) exactly like
// `bpftool btf dump file FILE [-B BASE] format raw`. FILE (and BASE) are
// checked for structure first, as every tool here does (BTF that breaks
// only the kernel verifier's rules is printed; `btfstream check` finds
// that); --no-validate prints whatever parses, to look at it.
func runDump(args []string) int { return dump(args, stdout) }

func dump(args []string, out io.Writer) int {
	fs := newFlagSet("dump")
	base := fs.StringP("base", "B", "", "base BTF (raw or ELF) of split BTF such as a module's;\nwithout it, a module's own .BTF.base serves")
	noValidate := fs.Bool("no-validate", false, "print the types even if the BTF is malformed (beyond what parsing needs)")
	fs.Bool("validate", true, "check the BTF's structure first (the default)")
	fs.MarkHidden("validate")
	header := fs.Bool("header", false, "print the header first (the kernel verifier log's lines) and the layout section's entries;\nbpftool prints neither")
	if code, ok := parseOperands(fs, "dump", "btfstream dump FILE [--base BASE] [--no-validate] [--header]", args, "FILE"); !ok {
		return code
	}
	spec, err := loadDumpInput(fs.Arg(0), *base, !*noValidate)
	if err != nil {
		return fail(1, "dump: %v", err)
	}
	if *header {
		if err := spec.DumpHeader(out); err != nil {
			return fail(1, "dump: %v", err)
		}
	}
	if err := spec.Dump(out); err != nil {
		return fail(1, "dump: %v", err)
	}
	return 0
}
