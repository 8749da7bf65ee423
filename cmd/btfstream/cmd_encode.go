package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/elfwrite"
	"github.com/btfstream/btfstream/stream/outfile"
	"github.com/spf13/pflag"
)

// runEncode implements `btfstream [flags] FILE` (sub "") and `btfstream
// encode [flags] FILE`, the `pahole -J` replacement.
func runEncode(sub string, args []string) int {
	var f encodeFlags
	fs := newEncodeFlagSet(&f)
	fs.Usage = func() { fmt.Fprint(stdout, encodeUsage()+fs.FlagUsages()) }
	if err := f.parse(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return usageError(sub, err)
	}
	switch {
	case f.version:
		fmt.Fprintln(stdout, paholeVersion)
		return 0
	case f.numericVersion:
		fmt.Fprintln(stdout, strings.ReplaceAll(strings.TrimPrefix(paholeVersion, "v"), ".", ""))
		return 0
	case f.supported:
		fmt.Fprintln(stdout, stream.Features(^uint32(0)).String())
		return 0
	}
	if err := checkOperands(fs.Args(), "FILE"); err != nil {
		return usageError(sub, err)
	}
	opts, err := f.options()
	if err != nil {
		return usageError(sub, err)
	}
	if f.jobsNote != "" && !f.quiet {
		fmt.Fprintf(stderr, "btfstream: note: %s\n", f.jobsNote)
	}
	if opts.Verbose != nil {
		in := fs.Arg(0)
		opts.Verbose = func(msg string) { fmt.Fprintf(stderr, "btfstream: %s: %s\n", in, msg) }
	}
	if f.memFloor {
		if f.base != "" {
			if opts.Base, err = loadModuleBase(f.base, opts.MemLimit); err != nil {
				return fail(1, "--btf_base: %v", err)
			}
		}
		floor, err := stream.MemFloor(fs.Arg(0), opts)
		switch {
		case err != nil:
			return fail(1, "%v", err)
		case floor == 0:
			fmt.Fprintln(stdout, "unknown (compressed or no .debug_info)")
		default:
			fmt.Fprintln(stdout, spill.FormatSize(floor))
		}
		return 0
	}
	return encode(fs.Arg(0), &f, opts)
}

// encode runs the encoder on in, validates the result and writes it.
func encode(in string, f *encodeFlags, opts stream.EncodeOptions) int {
	start := time.Now()
	// The budget covers the whole run, validation and writing included.
	if lim := stream.SoftLimit(opts.MemLimit); lim > 0 {
		debug.SetMemoryLimit(lim)
	}
	if f.base != "" {
		// Only the base's structure is checked: the kernel's rules are
		// checked on the types the output reaches (TrustBase below), as
		// the kernel does not check vmlinux's BTF again for a module.
		// Validating all of a vmlinux took a fifth of a small module's
		// encode.
		base, err := loadModuleBase(f.base, opts.MemLimit)
		if err != nil {
			return fail(1, "--btf_base: %v", err)
		}
		opts.Base = base
		setModuleGC()
		if w := baseReleaseWarning(in, f.base); w != "" && !f.quiet {
			fmt.Fprintf(stderr, "btfstream: warning: %s\n", w)
		}
	}
	// pahole's btf__distill_base fails without a base; it only applies
	// to ELF output (a detached file gets plain split BTF).
	distilled := opts.Features.Has(stream.FeatDistilledBase) && f.detached == ""
	if distilled && opts.Base == nil {
		return fail(2, "--btf_features=distilled_base needs --btf_base: it applies to modules only")
	}
	if err := elfwrite.Check(in); err != nil {
		return fail(1, "%v", err)
	}
	// Errors name the file (*elffile.Error); the BTF is in the target's
	// byte order, as pahole writes it.
	if warning, err := checkOutput(in, f.detached); err != nil {
		return fail(1, "%v", err)
	} else if warning != "" && !f.quiet {
		fmt.Fprintf(stderr, "btfstream: warning: %s\n", warning)
	}
	if wantProgress(f.progress, f.quiet) {
		line := newProgressLine(stderr, in)
		opts.Progress = func(p stream.Progress) { line.Update(p.Units, p.TotalUnits, p.Read) }
		showProgress(line)
	}
	spec, stats, err := stream.EncodeFile(in, opts)
	showProgress(nil)
	if err != nil {
		return fail(1, "%v", err)
	}
	// Of the base, only what the module's types reach is checked. The
	// output is marshaled and written beside its path while it is
	// checked, and put in place only if it is valid.
	checking := make(chan error, 1)
	go func() {
		checking <- spec.ValidateWith(btf.ValidateOptions{TrustBase: opts.Base != nil && spec.Base() == opts.Base})
	}()
	var verr error
	checked := false
	valid := func() error {
		if !checked {
			verr, checked = <-checking, true
		}
		return verr
	}
	var size int
	switch {
	case f.detached != "":
		raw := spec.Marshal()
		size, err = len(raw), outfile.WriteFileIf(f.detached, raw, valid)
	case distilled:
		if err = valid(); err == nil {
			size, err = writeDistilled(in, spec)
		}
	default:
		raw := spec.Marshal()
		size, err = len(raw), elfwrite.WriteSectionsIf(in, valid, elfwrite.Section{Name: ".BTF", Data: raw})
	}
	if err := valid(); err != nil {
		if baseError(err, spec) {
			return fail(1, "--btf_base: %s: %v", f.base, err)
		}
		return fail(1, "%s: encoded BTF is invalid, nothing written: %v", in, err)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	if (f.summary || f.verbose) && !f.quiet {
		fmt.Fprintln(os.Stderr, summaryLine(in, spec, &stats, opts.Jobs, size, time.Since(start)))
	}
	return 0
}

// loadModuleBase loads a module encode's --btf_base, checking its
// structure. The base is used until the process exits, so it is kept
// outside the Go heap (elffile.LoadBaseForProcess), where it does not
// count toward the collector's goal: at GOGC 50 a small module's heap held
// ~3 MB more garbage because of it. Under a memory limit below
// outsideBaseLimit (--mem-limit, or the host's default budget) it stays
// on the heap: there the plan's budget and the Go runtime's soft limit
// count the base as heap, and its floors were measured so.
func loadModuleBase(path string, memLimit int64) (*btf.Spec, error) {
	limit := memLimit
	if limit == 0 {
		limit = stream.DefaultMemLimit()
	}
	if limit > 0 && limit < outsideBaseLimit {
		return loadSound(path, nil)
	}
	return elffile.LoadBaseForProcess(path)
}

// outsideBaseLimit is the memory limit from which a module encode keeps
// its base outside the Go heap (loadModuleBase): a module encode peaks
// far below it, so the ~6 MB the runtime's soft limit does not see cannot
// push the process past the limit.
const outsideBaseLimit = 256 << 20

// setModuleGC sets stream.ModuleGCPercent for an encode over a base,
// unless GOGC is set in the environment. A --mem-limit still applies on
// top (debug.SetMemoryLimit).
func setModuleGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(stream.ModuleGCPercent)
	}
}

// baseError reports whether a validation error of split BTF spec is about
// one of its base's types.
func baseError(err error, spec *btf.Spec) bool {
	var fe *btf.FormatError
	return spec.Base() != nil && errors.As(err, &fe) && fe.ID != 0 && fe.ID < spec.FirstID()
}

// checkOutput fails early, before the encoding, when the output cannot be
// written: its directory is missing or read-only, or its file system has
// less room than the output's least size (in place: the input without its
// old .BTF; detached: a BTF header). With less room than an upper bound
// of the output (the BTF at most a 32nd of the input plus 1 MiB: vmlinux's
// is 2.2% of it) it only warns: the output may still fit, and a full file
// system fails the write cleanly (ENOSPC, nothing left behind).
func checkOutput(in, detached string) (warning string, err error) {
	st, err := os.Stat(in)
	if err != nil {
		return "", err
	}
	least, most, path := int64(btf.HeaderLen), outputBound(st.Size()), detached
	if detached == "" {
		path, least = in, st.Size()-oldBTFSize(in)
		most += st.Size()
	}
	if err := outfile.Check(path, 0); err != nil {
		return "", err
	}
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	dir := filepath.Dir(real)
	free, err := freeSpace(dir)
	switch {
	case err != nil:
		return "", nil
	case free < least:
		return "", fmt.Errorf("%s: %s free in %s, the output needs at least %s", path, spill.FormatSize(free), dir, spill.FormatSize(least))
	case free < most:
		return fmt.Sprintf("%s: %s free in %s, the output may need up to %s", path, spill.FormatSize(free), dir, spill.FormatSize(most)), nil
	}
	return "", nil
}

// freeSpace is outfile.FreeSpace; tests replace it.
var freeSpace = outfile.FreeSpace

// outputBound is an upper bound of the BTF encoded from an input of
// inSize bytes (checked on the fixtures and kernels: TestOutputBound).
func outputBound(inSize int64) int64 { return inSize/32 + 1<<20 }

// oldBTFSize is the size of in's .BTF section, which the output replaces
// (0 if none or unreadable).
func oldBTFSize(in string) int64 {
	f, err := elffile.Open(in, elffile.Options{CacheBytes: -1})
	if err != nil {
		return 0
	}
	defer f.Close()
	if s, ok := f.Section(".BTF"); ok {
		return int64(s.Size)
	}
	return 0
}

// summaryLine is the one-line report:
//
//	btfstream: vmlinux: 157632 types (INT 20, PTR 11000, ...), 61000 funcs, 5.2 MiB BTF, 41.3s, peak RSS 310 MiB
func summaryLine(in string, spec *btf.Spec, st *stream.EncodeStats, jobs, size int, d time.Duration) string {
	var kinds []string
	for k, n := range st.KindCounts {
		if n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", btf.Kind(k), n))
		}
	}
	rss := "?"
	if kb := peakRSSKiB(); kb > 0 {
		rss = fmt.Sprintf("%.1f MiB", float64(kb)/1024)
	}
	ran := ""
	if st.Jobs > 0 && st.Jobs < jobs {
		ran = fmt.Sprintf(", %d of %d jobs (the compile units and the memory limit hold %d)", st.Jobs, jobs, st.Jobs)
	}
	budget := "no memory budget (--mem-limit 0)"
	if st.MemLimit > 0 {
		budget = fmt.Sprintf("budget %s (%s)", spill.FormatSize(st.MemLimit), st.MemLimitFrom)
	}
	return fmt.Sprintf("btfstream: %s: %d types (%s), %d funcs, %d vars, %d CUs, %d bytes of BTF, %.1fs, peak RSS %s, %s, peak accounted %s, spilled %d bytes%s",
		in, spec.Len(), strings.Join(kinds, ", "), st.Funcs, st.Vars, st.CUs, size, d.Seconds(), rss,
		budget, spill.FormatSize(st.PeakAccounted), st.Spilled, ran)
}

// peakRSSKiB returns VmHWM from /proc/self/status, or 0.
func peakRSSKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// parseSize parses "512M", "2G", "64k", "1048576" or "0": K, M, G and T
// are powers of 1024, with an optional "B" or "iB" after them.
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	shift := 0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		case 'T':
			shift = 40
		}
		if shift > 0 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseUint(strings.TrimSpace(t), 10, 63)
	if errors.Is(err, strconv.ErrRange) || err == nil && v > (1<<63-1)>>shift {
		return 0, fmt.Errorf("size %q overflows (at most 2^63-1 bytes, 8388607T)", s)
	}
	if err != nil {
		return 0, fmt.Errorf("bad size %q (want a number with an optional K, M or G suffix)", s)
	}
	return int64(v << shift), nil
}
