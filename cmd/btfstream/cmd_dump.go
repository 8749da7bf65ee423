package main

import (
	"io"
	"os"
)

// runDump implements `btfstream dump FILE [--base BASE]`: it prints the
// types of FILE (raw BTF, or an ELF file's .BTF section) exactly like
// `bpftool btf dump file FILE [-B BASE] format raw`.
func runDump(args []string) int { return dump(args, os.Stdout) }

func dump(args []string, stdout io.Writer) int {
	fs := newFlagSet("dump")
	base := fs.StringP("base", "B", "", "base BTF (raw or ELF) of split BTF such as a module's")
	validate := fs.Bool("validate", false, "also check the BTF against the kernel verifier's rules")
	if code, ok := parseOperands(fs, "btfstream dump FILE [--base BASE] [--validate]", args, 1); !ok {
		return code
	}
	spec, err := loadWithBase(fs.Arg(0), *base)
	if err != nil {
		return fail(1, "dump: %v", err)
	}
	if *validate {
		if err := spec.Validate(); err != nil {
			return fail(1, "dump: %s: %v", fs.Arg(0), err)
		}
	}
	if err := spec.Dump(stdout); err != nil {
		return fail(1, "dump: %v", err)
	}
	return 0
}
