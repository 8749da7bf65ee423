package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/elfwrite"
)

// paholeVersion is the pahole release whose output and options btfstream
// follows. kbuild reads it with `$(PAHOLE) --version` (scripts/
// pahole-version.sh) to pick the flags it passes.
const paholeVersion = "v1.31"

// encodeFlags holds the encode command line: pahole's spellings, which
// kbuild (scripts/Makefile.btf, link-vmlinux.sh, gen-btf.sh,
// Makefile.modfinal) passes, and btfstream's own.
type encodeFlags struct {
	encode         bool
	detached       string
	base           string
	features       []string
	featuresStrict []string
	langExclude    string
	jobs           int
	verbose, quiet bool
	version        bool
	numericVersion bool
	supported      bool

	// Pre---btf_features switches (pahole 1.18-1.25).
	skipVars, skipDeclTag, skipTypeTag, skipEnum64 bool
	genFloats, genAll, encodeForce, genOptimized   bool
	skipInconsistentProto, reproducible            bool

	memLimit string
	tmpDir   string
	summary  bool
}

func newEncodeFlagSet(f *encodeFlags) *pflag.FlagSet {
	fs := newFlagSet("btfstream")
	fs.BoolVarP(&f.encode, "btf_encode", "J", false, "encode BTF into FILE's .BTF section (added, or replaced)")
	fs.StringVar(&f.detached, "btf_encode_detached", "", "write raw BTF to this file instead of changing FILE")
	fs.StringVar(&f.base, "btf_base", "", "base BTF (vmlinux ELF or raw) to encode split BTF against, for modules")
	fs.StringArrayVar(&f.features, "btf_features", nil, "BTF features as pahole: default, +LIST, or LIST (repeatable; unknown names ignored)")
	fs.StringArrayVar(&f.featuresStrict, "btf_features_strict", nil, "like --btf_features, but unknown names are an error")
	fs.BoolVar(&f.supported, "supported_btf_features", false, "print the known BTF feature names and exit")
	fs.StringVar(&f.langExclude, "lang_exclude", "", "skip compile units in these languages (comma-separated, e.g. rust)")
	fs.IntVarP(&f.jobs, "jobs", "j", 1, "decode with N goroutines (-j alone: number of CPUs); output is the same for every N")
	fs.Lookup("jobs").NoOptDefVal = "0"
	fs.BoolVarP(&f.verbose, "verbose", "V", false, "report skipped functions and types on stderr")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing but errors")
	fs.BoolVar(&f.version, "version", false, "print the pahole version whose behaviour this follows ("+paholeVersion+") and exit")
	fs.BoolVar(&f.numericVersion, "numeric_version", false, "print that version as a number (131) and exit")

	legacy := []struct {
		p          *bool
		name, help string
	}{
		{&f.skipVars, "skip_encoding_btf_vars", "no VAR/DATASEC (pahole < 1.26 spelling; also turns off with --btf_features)"},
		{&f.skipDeclTag, "skip_encoding_btf_decl_tag", "no DECL_TAG"},
		{&f.skipTypeTag, "skip_encoding_btf_type_tag", "no TYPE_TAG"},
		{&f.skipEnum64, "skip_encoding_btf_enum64", "no ENUM64"},
		{&f.genFloats, "btf_gen_floats", "FLOAT for floating-point types"},
		{&f.genAll, "btf_gen_all", "all default features"},
		{&f.encodeForce, "btf_encode_force", "skip what cannot be encoded instead of failing"},
		{&f.genOptimized, "btf_gen_optimized", "encode functions with optimized-away parameters when safe"},
		{&f.skipInconsistentProto, "skip_encoding_btf_inconsistent_proto", "drop functions whose prototypes differ between CUs"},
		{&f.reproducible, "reproducible_build", "accepted; output never depends on -j"},
	}
	for _, l := range legacy {
		fs.BoolVar(l.p, l.name, false, l.help)
	}

	fs.StringVar(&f.memLimit, "mem-limit", "", "memory budget: bytes, or with a K, M or G suffix (powers of 1024); 0: no limit.\n"+
		"Without the flag: min(1G, half of RAM) = "+spill.FormatSize(stream.DefaultMemLimit())+" here. Peak RSS stays within\n"+
		"about 5% of it; function states spill to --tmpdir when it is reached. Smallest usable: about 48M for vmlinux")
	fs.StringVar(&f.tmpDir, "tmpdir", "", "directory for spill files when the budget is exceeded (default $TMPDIR); files are unlinked at creation")
	fs.BoolVar(&f.summary, "summary", false, "print one line to stderr: types by kind, functions, bytes, time, peak RSS")
	return fs
}

// shortJobs matches pahole's "-jN" (an optional argument glued to the
// short flag), which pflag would read as -j followed by flag "N".
var shortJobs = regexp.MustCompile(`^-j([0-9]+)$`)

// normalizeEncodeArgs rewrites "-jN" to "--jobs=N" before pflag sees it.
func normalizeEncodeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if m := shortJobs.FindStringSubmatch(a); m != nil {
			a = "--jobs=" + m[1]
		}
		out = append(out, a)
	}
	return out
}

// runEncode implements `btfstream [flags] FILE`, the `pahole -J`
// replacement.
func runEncode(args []string) int {
	var f encodeFlags
	fs := newEncodeFlagSet(&f)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: btfstream [-J] [--btf_encode_detached OUT] [--btf_base BASE] [flags] FILE\n"+
			"       btfstream dump|dedup|diff ...\n\nEncode FILE's DWARF as BTF like pahole -J (%s).\n\n", paholeVersion)
		fs.PrintDefaults()
	}
	if err := fs.Parse(normalizeEncodeArgs(args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case f.version:
		fmt.Println(paholeVersion)
		return 0
	case f.numericVersion:
		fmt.Println(strings.ReplaceAll(strings.TrimPrefix(paholeVersion, "v"), ".", ""))
		return 0
	case f.supported:
		fmt.Println(stream.Features(^uint32(0)).String())
		return 0
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	if !f.encode && f.detached == "" {
		return fail(2, "nothing to do: give -J (encode into FILE) or --btf_encode_detached OUT")
	}
	opts, err := f.options()
	if err != nil {
		return fail(2, "%v", err)
	}
	return encode(fs.Arg(0), &f, opts)
}

// options turns the flags into EncodeOptions.
func (f *encodeFlags) options() (stream.EncodeOptions, error) {
	opts := stream.DefaultEncodeOptions()
	opts.Jobs = f.jobs
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.NumCPU()
	}
	opts.LangExclude = nil
	for _, l := range strings.Split(f.langExclude, ",") {
		if l = strings.TrimSpace(l); l != "" {
			opts.LangExclude = append(opts.LangExclude, l)
		}
	}
	feats, err := f.featureSet()
	if err != nil {
		return opts, err
	}
	opts.Features = feats
	if f.memLimit != "" {
		if opts.MemLimit, err = parseSize(f.memLimit); err != nil {
			return opts, fmt.Errorf("--mem-limit: %w", err)
		}
		if opts.MemLimit == 0 {
			opts.MemLimit = -1 // explicit 0: no limit
		}
	}
	opts.TmpDir = f.tmpDir
	if f.verbose {
		opts.Verbose = func(msg string) { fmt.Fprintln(os.Stderr, msg) }
	}
	return opts, nil
}

// legacyFeatures is what pahole encodes when no --btf_features is given:
// VARs, decl and type tags, ENUM64; no floats, no prototype checks.
const legacyFeatures = stream.Features(stream.FeatVar | stream.FeatDeclTag | stream.FeatTypeTag | stream.FeatEnum64)

// featureSet combines --btf_features (the union of every occurrence, as
// pahole does), or pahole's pre-1.26 defaults, with the old single
// switches applied on top.
func (f *encodeFlags) featureSet() (stream.Features, error) {
	fs := legacyFeatures
	if len(f.features)+len(f.featuresStrict) > 0 {
		fs = 0
	}
	for _, l := range f.features {
		x, err := stream.ParseFeatures(l)
		if err != nil {
			return 0, fmt.Errorf("--btf_features=%s: %w", l, err)
		}
		fs |= x
	}
	for _, l := range f.featuresStrict {
		x, err := stream.ParseFeaturesStrict(l)
		if err != nil {
			return 0, fmt.Errorf("--btf_features_strict=%s: %w (known: %s)", l, err, stream.Features(^uint32(0)))
		}
		fs |= x
	}
	on := func(b bool, x stream.Feature) {
		if b {
			fs |= stream.Features(x)
		}
	}
	off := func(b bool, x stream.Feature) {
		if b {
			fs &^= stream.Features(x)
		}
	}
	if f.genAll {
		fs |= stream.DefaultFeatures
	}
	on(f.genFloats, stream.FeatFloat)
	on(f.encodeForce, stream.FeatEncodeForce)
	on(f.genOptimized, stream.FeatOptimizedFunc)
	on(f.skipInconsistentProto, stream.FeatConsistentFunc)
	on(f.reproducible, stream.FeatReproducibleBuild)
	off(f.skipVars, stream.FeatVar)
	off(f.skipDeclTag, stream.FeatDeclTag)
	off(f.skipTypeTag, stream.FeatTypeTag)
	off(f.skipEnum64, stream.FeatEnum64)
	return fs, nil
}

// encode runs the encoder on in, validates the result and writes it.
func encode(in string, f *encodeFlags, opts stream.EncodeOptions) int {
	start := time.Now()
	// The budget covers the whole run, validation and writing included.
	if lim := stream.SoftLimit(opts.MemLimit); lim > 0 {
		debug.SetMemoryLimit(lim)
	}
	if f.base != "" {
		base, err := elffile.LoadBTF(f.base, nil)
		if err != nil {
			return fail(1, "--btf_base: %v", err)
		}
		opts.Base = base
	}
	if err := elfwrite.Check(in); err != nil {
		return fail(1, "%v", err)
	}
	// Errors name the file (*elffile.Error); the BTF is in the target's
	// byte order, as pahole writes it.
	spec, stats, err := stream.EncodeFile(in, opts)
	if err != nil {
		return fail(1, "%v", err)
	}
	if err := spec.Validate(); err != nil {
		return fail(1, "%s: encoded BTF is invalid, nothing written: %v", in, err)
	}
	raw := spec.Marshal()
	if f.detached != "" {
		err = elfwrite.WriteFileAtomic(f.detached, raw)
	} else {
		err = elfwrite.WriteSection(in, ".BTF", raw)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	if (f.summary || f.verbose) && !f.quiet {
		fmt.Fprintln(os.Stderr, summaryLine(in, spec, &stats, len(raw), time.Since(start)))
	}
	return 0
}

// summaryLine is the one-line report:
//
//	btfstream: vmlinux: 157632 types (INT 20, PTR 11000, ...), 61000 funcs, 5.2 MiB BTF, 41.3s, peak RSS 310 MiB
func summaryLine(in string, spec *btf.Spec, st *stream.EncodeStats, size int, d time.Duration) string {
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
	return fmt.Sprintf("btfstream: %s: %d types (%s), %d funcs, %d vars, %d CUs, %d bytes of BTF, %.1fs, peak RSS %s, peak accounted %s, spilled %d bytes",
		in, spec.Len(), strings.Join(kinds, ", "), st.Funcs, st.Vars, st.CUs, size, d.Seconds(), rss,
		spill.FormatSize(st.PeakAccounted), st.Spilled)
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
	if err != nil || v > (1<<63-1)>>shift {
		return 0, fmt.Errorf("bad size %q (want a number with an optional K, M or G suffix)", s)
	}
	return int64(v << shift), nil
}
