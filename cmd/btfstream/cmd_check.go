package main

import "fmt"

// runCheck implements `btfstream check FILE [--base BASE]`: it checks
// FILE's BTF (raw, or an ELF file's .BTF; a module's .BTF.base serves as
// base when --base is not given) against the kernel verifier's rules for
// loading BTF (btf.Spec.Validate), the base included. The other tools
// refuse only malformed BTF; check refuses what the kernel would.
// Exit status: 0 valid, 1 a violation (printed with the file, type id,
// byte offset and rule) or unreadable input, 2 usage error.
func runCheck(args []string) int {
	fs := newFlagSet("check")
	base := fs.StringP("base", "B", "", "base BTF (raw or ELF) of split BTF such as a module's;\nwithout it, a module's own .BTF.base serves")
	quiet := fs.BoolP("quiet", "q", false, "print nothing when the BTF is valid")
	if code, ok := parseOperands(fs, "check", "btfstream check FILE [--base BASE]", args, "FILE"); !ok {
		return code
	}
	path := fs.Arg(0)
	spec, err := loadDumpInput(path, *base, true)
	if err != nil {
		return fail(1, "check: %v", err)
	}
	if err := spec.Validate(); err != nil {
		if b := spec.Base(); b != nil && *base != "" {
			// Validate prefixes the base's errors with "base: ".
			if berr := b.Validate(); berr != nil {
				return fail(1, "check: %s: %v", *base, berr)
			}
		}
		return fail(1, "check: %s: %v", path, err)
	}
	if !*quiet {
		fmt.Fprintf(stdout, "%s: %d types, valid BTF\n", path, spec.Len())
	}
	return 0
}
