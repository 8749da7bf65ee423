// Command btfstream encodes DWARF into deduplicated BTF like `pahole -J`, in
// bounded memory, and carries the BTF tools that check it.
//
//	btfstream [flags] FILE              encode FILE's .BTF in place (pahole -J flags)
//	btfstream encode [flags] FILE       the same, spelled out
//	btfstream dump FILE [--base BASE]   print BTF like `bpftool btf dump ... format raw`
//	btfstream dedup IN -o OUT [--base]  deduplicate raw BTF
//	btfstream diff A B [--base BASE]    compare two BTFs as type graphs
//	btfstream check FILE [--base BASE]  check BTF against the kernel verifier's rules
//	btfstream version                   btfstream's own version (--version is pahole's)
//
// Each subcommand lives in its own file (cmd_*.go) and returns an exit code:
// 0 success, 1 a failure of the work (bad input, I/O), 2 a command-line
// error (printed as pflag's message and a one-line hint).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/spf13/pflag"
)

// subcommand runs with the arguments after its name and returns the exit
// status.
type subcommand func(args []string) int

func subcommands() map[string]subcommand {
	return map[string]subcommand{
		"encode":  func(args []string) int { return runEncode("encode", args) },
		"dump":    runDump,
		"dedup":   runDedup,
		"diff":    runDiff,
		"check":   runCheck,
		"version": runVersion,
	}
}

func main() {
	exitOnSignal()
	os.Exit(run(os.Args[1:]))
}

// run dispatches on the first argument: a subcommand name, else the
// encoder with pahole's command line (kbuild always starts with a flag).
func run(args []string) int {
	if len(args) > 0 {
		if cmd, ok := subcommands()[args[0]]; ok {
			return cmd(args[1:])
		}
	}
	return runEncode("", args)
}

// stdout and stderr are where commands print; tests replace them.
var (
	stdout io.Writer = os.Stdout
	stderr io.Writer = os.Stderr
)

// newFlagSet returns a flag set that treats '_' and '-' alike in long flag
// names, so pahole's spellings (--btf_encode_detached) and ours
// (--mem-limit) both work either way, while --help shows each as it was
// registered. pflag prints nothing itself: errors go through usageError,
// --help through the Usage the caller sets.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	// Flags are registered before anything is parsed, so the first
	// spelling seen of a name is the registered one.
	registered := map[string]string{}
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, n string) pflag.NormalizedName {
		k := strings.ReplaceAll(n, "-", "_")
		if r, ok := registered[k]; ok {
			return pflag.NormalizedName(r)
		}
		registered[k] = n
		return pflag.NormalizedName(n)
	})
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	return fs
}

// cmdName is how messages name a subcommand: "btfstream" or "btfstream dedup".
func cmdName(sub string) string {
	if sub == "" {
		return "btfstream"
	}
	return "btfstream " + sub
}

// fail prints an error as "btfstream: ..." and returns exit code code.
func fail(code int, format string, a ...any) int {
	showProgress(nil)
	fmt.Fprintf(stderr, "btfstream: "+format+"\n", a...)
	return code
}

// usageError prints a command-line error (pflag's message, or ours) and a
// one-line hint, and returns 2.
func usageError(sub string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", cmdName(sub), err)
	fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmdName(sub))
	return 2
}

// errUsage is a command-line error of ours (pflag's have their own types).
type errUsage string

func (e errUsage) Error() string { return string(e) }

// setHelp makes --help print usage (the synopsis lines, then the flags) to
// stdout.
func setHelp(fs *pflag.FlagSet, usage string) {
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: %s\n\n%s", usage, fs.FlagUsages())
	}
}

// parseOperands parses a subcommand's flags and checks that the operands
// left are the ones named (e.g. "A", "B"). When ok is false the caller
// returns code: 0 after --help, 2 for a command-line error (printed).
func parseOperands(fs *pflag.FlagSet, sub, usage string, args []string, names ...string) (code int, ok bool) {
	setHelp(fs, usage)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0, false
		}
		return usageError(sub, err), false
	}
	if err := checkOperands(fs.Args(), names...); err != nil {
		return usageError(sub, err), false
	}
	return 0, true
}

// checkOperands reports a missing or an extra operand.
func checkOperands(got []string, names ...string) error {
	switch {
	case len(got) < len(names):
		return errUsage("missing operand " + strings.Join(names[len(got):], " "))
	case len(got) > len(names):
		return errUsage(fmt.Sprintf("extra operand %q (want %s)", got[len(names)], strings.Join(names, " ")))
	}
	return nil
}

// loadBase loads a base BTF (--base) and checks its structure.
func loadBase(base string) (*btf.Spec, error) {
	if base == "" {
		return nil, nil
	}
	s, err := loadSound(base, nil)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	return s, nil
}

// loadSound loads path's BTF (raw or an ELF file's .BTF) over base and
// checks its structure (btf.Spec.CheckStructure), which every tool needs:
// dump, dedup and diff read BTF that only the kernel verifier's rules
// refuse (`btfstream check` applies those). Errors name path and, for
// malformed BTF, the type id and byte offset.
func loadSound(path string, base *btf.Spec) (*btf.Spec, error) {
	return elffile.LoadSoundBTF(path, base)
}

// loadRaw loads path's BTF over base without validating it ("" gives nil).
func loadRaw(path string, base *btf.Spec) (*btf.Spec, error) {
	if path == "" {
		return nil, nil
	}
	return elffile.LoadBTF(path, base)
}

// loadWithBase loads an optional base BTF and then path's BTF on top of
// it, both checked for structure.
func loadWithBase(path, base string) (*btf.Spec, error) {
	b, err := loadBase(base)
	if err != nil {
		return nil, err
	}
	return loadSound(path, b)
}
