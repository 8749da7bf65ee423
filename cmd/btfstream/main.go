// Command btfstream encodes DWARF into deduplicated BTF like `pahole -J`, in
// bounded memory, and carries the BTF tools that check it.
//
//	btfstream [flags] FILE              encode (pahole -J compatible flags)
//	btfstream dump FILE [--base BASE]   print BTF like `bpftool btf dump ... format raw`
//	btfstream dedup IN -o OUT [--base]  deduplicate raw BTF
//	btfstream diff A B [--base BASE]    compare two BTFs as type graphs
//
// Each subcommand lives in its own file (cmd_*.go) and returns an exit code.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

// subcommand runs with the arguments after its name and returns the exit
// status.
type subcommand func(args []string) int

func subcommands() map[string]subcommand {
	return map[string]subcommand{
		"dump":  runDump,
		"dedup": runDedup,
		"diff":  runDiff,
	}
}

func main() {
	args := os.Args[1:]
	if len(args) > 0 {
		if run, ok := subcommands()[args[0]]; ok {
			os.Exit(run(args[1:]))
		}
	}
	os.Exit(runEncode(args))
}

// newFlagSet returns a flag set that treats '_' and '-' alike in long flag
// names, so pahole's spellings (--btf_encode_detached) and ours
// (--mem-limit) both work.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, n string) pflag.NormalizedName {
		return pflag.NormalizedName(strings.ReplaceAll(n, "_", "-"))
	})
	fs.SortFlags = false
	return fs
}

// fail prints an error as "btfstream: ..." and returns exit code code.
func fail(code int, format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "btfstream: "+format+"\n", a...)
	return code
}

// parseOperands parses a subcommand's flags and checks that exactly n
// operands remain. When ok is false the caller returns code: 0 after
// --help, 2 for a usage error (usage already printed).
func parseOperands(fs *pflag.FlagSet, usage string, args []string, n int) (code int, ok bool) {
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: "+usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() != n {
		fs.Usage()
		return 2, false
	}
	return 0, true
}

// loadWithBase loads an optional base BTF and then path's BTF (raw or an
// ELF file's .BTF) on top of it.
func loadWithBase(path, base string) (*btf.Spec, error) {
	var baseSpec *btf.Spec
	if base != "" {
		var err error
		if baseSpec, err = elffile.LoadBTF(base, nil); err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
	}
	return elffile.LoadBTF(path, baseSpec)
}
