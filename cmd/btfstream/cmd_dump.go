package main

import (
	"errors"
	"io"
	"os"

	"github.com/btfstream/btfstream/btf"
	"github.com/spf13/pflag"
)

// runDump implements `btfstream dump FILE [--base BASE]`: it prints the
// types of FILE (raw BTF, or an ELF file's .BTF section) exactly like
// `bpftool btf dump file FILE [-B BASE] format raw`.
func runDump(args []string) int { return dump(args, os.Stdout) }

func dump(args []string, stdout io.Writer) int {
	fs := newFlagSet("dump")
	base := fs.StringP("base", "B", "", "base BTF (raw or ELF) of split BTF such as a module's")
	validate := fs.Bool("validate", false, "also check the BTF against the kernel verifier's rules")
	fs.Usage = func() {
		os.Stderr.WriteString("usage: btfstream dump FILE [--base BASE] [--validate]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	var baseSpec *btf.Spec
	if *base != "" {
		var err error
		if baseSpec, err = btf.LoadFile(*base, nil); err != nil {
			return fail(1, "dump: base: %v", err)
		}
	}
	spec, err := btf.LoadFile(fs.Arg(0), baseSpec)
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
