package main

// The encode command line: pahole's spellings, as kbuild passes them
// (scripts/Makefile.btf, pahole-flags.sh, link-vmlinux.sh,
// Makefile.modfinal), and btfstream's own.
//
// What kbuild has passed with a pahole that says v1.31 (flags_kbuild_test.go
// holds them all):
//
//	Linux 5.15-6.6 (pahole-flags.sh):  -J --btf_gen_floats -j --lang_exclude=rust
//	                                   --skip_encoding_btf_inconsistent_proto --btf_gen_optimized
//	Linux 6.7 (Makefile.btf):          the same flags
//	Linux 6.8-6.12:                    -J -j --btf_features=encode_force,...[,decl_tag_kfuncs]
//	                                   [-j | -j --btf_features=+reproducible_build] --lang_exclude=rust
//	                                   [--btf_features=distilled_base] [--btf_base vmlinux] FILE
//	later:                             -j$(JOBS), --btf_features=attributes, --btf_features=layout,
//	                                   --btf_encode_detached=FILE
//
// so every kbuild invocation names its features explicitly, and each keeps
// pahole's meaning here. Only a command line without any feature flag
// (a person typing `btfstream vmlinux`) gets btfstream's own default, the
// set Linux 6.12 asks for.

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream"
	"github.com/spf13/pflag"
)

// paholeVersion is the pahole release whose output and options btfstream
// follows. kbuild reads it with `$(PAHOLE) --version` (scripts/
// pahole-version.sh) to pick the flags it passes.
const paholeVersion = "v1.32"

// encodeFlags holds the encode command line.
type encodeFlags struct {
	encode         bool
	detached       string
	base           string
	langExclude    string
	jobs           int
	jobsNote       string // set by options when -j was capped
	verbose, quiet bool
	version        bool
	numericVersion bool
	supported      bool

	// featureArgs are --btf_features, --btf_features_strict, --btf_gen_all
	// and the single-feature switches in command-line order, which
	// pahole's meaning depends on (featureSet).
	featureArgs []featureArg

	memLimit string
	memFloor bool
	tmpDir   string
	summary  bool
	progress string

	// explicit is set by parse: some flag chose the BTF content (features
	// or languages), so pahole's defaults apply instead of kbuild's set.
	explicit bool
}

// legacySwitches are pahole's single-feature switches: the feature each
// turns on (on) or off.
var legacySwitches = []struct {
	name string
	feat stream.Feature
	on   bool
	help string
}{
	{"skip_encoding_btf_vars", stream.FeatVar, false, "no VAR/DATASEC for per-CPU variables"},
	{"skip_encoding_btf_decl_tag", stream.FeatDeclTag, false, "no DECL_TAG"},
	{"skip_encoding_btf_type_tag", stream.FeatTypeTag, false, "no TYPE_TAG"},
	{"skip_encoding_btf_enum64", stream.FeatEnum64, false, "no ENUM64 (64-bit enums become 32-bit ENUMs)"},
	{"btf_gen_floats", stream.FeatFloat, true, "FLOAT for floating-point types"},
	{"btf_encode_force", stream.FeatEncodeForce, true, "skip what cannot be encoded instead of failing"},
	{"btf_gen_optimized", stream.FeatOptimizedFunc, true, "encode functions with optimized-away parameters when safe"},
	{"skip_encoding_btf_inconsistent_proto", stream.FeatConsistentFunc, true, "drop functions whose prototypes differ between CUs"},
	{"reproducible_build", stream.FeatReproducibleBuild, true, "accepted; output never depends on -j"},
	{"btf_attributes", stream.FeatAttributes, true, "attributes (kind_flag type and decl tags)"},
}

// featureArg is one feature-choosing flag as given: single switch sw of
// legacySwitches, or (sw < 0) a --btf_features list, strict for
// --btf_features_strict.
type featureArg struct {
	list   string
	strict bool
	sw     int
}

// featureValue records its flag's occurrences in encodeFlags.featureArgs.
// A single switch is a bool flag (no argument).
type featureValue struct {
	f      *encodeFlags
	strict bool
	sw     int // -1 for a list
	list   string
}

func (v *featureValue) Set(s string) error {
	if v.sw < 0 && v.list == "" { // a list flag
		v.f.featureArgs = append(v.f.featureArgs, featureArg{list: s, strict: v.strict, sw: -1})
		return nil
	}
	on, err := strconv.ParseBool(s)
	if on {
		v.f.featureArgs = append(v.f.featureArgs, featureArg{list: v.list, sw: v.sw})
	}
	return err
}

func (v *featureValue) String() string { return "" }

func (v *featureValue) Type() string {
	if v.sw >= 0 || v.list != "" {
		return "bool"
	}
	return "stringArray"
}

// contentFlags are the flags whose presence means "pahole's meaning":
// pahole's defaults changed by what they say.
var contentFlags = []string{"btf_features", "btf_features_strict", "lang_exclude", "btf_gen_all"}

// featureFlag registers a feature-choosing flag.
func featureFlag(fs *pflag.FlagSet, v *featureValue, name, usage string) {
	fs.Var(v, name, usage)
	if v.sw >= 0 || v.list != "" {
		fs.Lookup(name).NoOptDefVal = "true"
	}
}

// vmlinuxFloorExample is what stream.MemFloor gives for Debian's 6.12
// cloud-amd64 vmlinux at -j1; e2e/memfloor_test.go checks it against the
// kernel and that the run succeeds at that limit.
const vmlinuxFloorExample = "32M"

// A command line without content flags encodes what Linux 6.12's
// scripts/Makefile.btf asks for: its --btf_features list
// (stream.DefaultFeatures) and --lang_exclude=rust.
const kbuildLangExclude = "rust"

func newEncodeFlagSet(f *encodeFlags) *pflag.FlagSet {
	fs := newFlagSet("btfstream")
	fs.BoolVarP(&f.encode, "btf_encode", "J", false, "encode BTF into FILE's .BTF section (what btfstream does without --btf_encode_detached)")
	fs.StringVar(&f.detached, "btf_encode_detached", "", "write raw BTF to `OUT` instead of changing FILE")
	fs.StringVar(&f.base, "btf_base", "", "`BASE` BTF (vmlinux ELF or raw) to encode split BTF against, for modules")
	featureFlag(fs, &featureValue{f: f, sw: -1}, "btf_features", "BTF features as pahole: default, +`LIST`, or LIST (repeatable, combined; unknown names ignored)")
	featureFlag(fs, &featureValue{f: f, sw: -1, strict: true}, "btf_features_strict", "features in `LIST` as --btf_features, but unknown names are an error")
	fs.BoolVar(&f.supported, "supported_btf_features", false, "print the known BTF feature names and exit")
	fs.StringVar(&f.langExclude, "lang_exclude", "", "skip compile units in these `LANGS` (comma-separated, e.g. rust)")
	f.jobs = 1
	fs.VarP((*jobsValue)(&f.jobs), "jobs", "j", "decode with `N` goroutines (-jN, -j N; -j alone: number of CPUs), at most\n"+
		"twice the CPUs and the compile units; output is the same for every N")
	fs.Lookup("jobs").NoOptDefVal = "0"
	fs.BoolVarP(&f.verbose, "verbose", "V", false, "report variables left out (invalid name, void type, zero or oversized) on stderr")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing but errors")
	fs.BoolVar(&f.version, "version", false, "print the pahole version whose behaviour this follows ("+paholeVersion+") and exit;\n"+
		"kbuild reads it ('btfstream version' prints btfstream's own)")
	fs.BoolVar(&f.numericVersion, "numeric_version", false, "print that version as a number (132) and exit")
	featureFlag(fs, &featureValue{f: f, sw: -1, list: "all"}, "btf_gen_all", "--btf_features=all: every feature, as pahole 1.32 (1.31 took 'all' for no feature name)")
	for i, l := range legacySwitches {
		featureFlag(fs, &featureValue{f: f, sw: i}, l.name, l.help)
	}
	fs.StringVar(&f.memLimit, "mem-limit", "", "memory budget (`SIZE`): bytes, or with a K, M or G suffix (powers of 1024); 0: no limit.\n"+
		"Without the flag: the tightest of 3/4 of the cgroup's memory limit (v2 memory.max, v1\n"+
		"memory.limit_in_bytes), half of what RLIMIT_AS or RLIMIT_DATA leave, half of RAM, and 1G:\n"+
		"here "+spill.FormatSize(stream.DefaultMemLimit())+", "+stream.DefaultBudget().String()+". Peak RSS stays within\n"+
		"about 5% of it: what is cold (function states, the old table while it is rebuilt) spills to\n"+
		"--tmpdir, and -j N runs fewer jobs when the limit holds fewer. A limit below what FILE needs\n"+
		"(its largest compile unit, the tables, the base) is refused before the encoding starts,\n"+
		"naming the smallest that works, which --mem-floor prints\n"+
		"(Debian's 6.12 cloud vmlinux: "+vmlinuxFloorExample+" at -j1)")
	fs.BoolVar(&f.memFloor, "mem-floor", false, "print the smallest --mem-limit that works for FILE (and --btf_base), and exit")
	fs.StringVar(&f.tmpDir, "tmpdir", "", "`DIR` for spill files when the budget is exceeded (default $TMPDIR); they have no name (O_TMPFILE where it works), so nothing is left behind")
	fs.BoolVar(&f.summary, "summary", false, "print one line to stderr: types by kind, functions, bytes, time, peak RSS")
	fs.StringVar(&f.progress, "progress", "auto", "progress line on stderr (`WHEN`): auto (when stderr is a terminal), always, never")
	return fs
}

// encodeUsage is the text --help prints before the flags.
func encodeUsage() string {
	return fmt.Sprintf(`usage: btfstream [--mem-limit SIZE] [pahole flags] FILE
       btfstream --btf_encode_detached OUT [--btf_base VMLINUX] [flags] FILE
       btfstream encode|dump|dedup|diff|version ... (each with --help)

Encode FILE's DWARF as deduplicated BTF, like pahole -J (%s), into FILE's
.BTF section (in place, FILE replaced atomically) or, with
--btf_encode_detached, into a raw BTF file.

Default features: with none of --btf_features, --btf_features_strict,
--lang_exclude or the single-feature switches (--btf_gen_floats,
--skip_encoding_btf_*, ...), btfstream encodes what Linux 6.12's kbuild asks for:
  --btf_features=%s --lang_exclude=%s
With any of them the flags keep pahole's meaning: pahole's own defaults
(%s) changed by what the flags say, as pahole 1.32 does for
the command lines of older kernels.

`, paholeVersion, stream.DefaultFeatures, kbuildLangExclude, legacyFeatures)
}

// paholeArgs rewrites the spellings of -j that pahole (argp) accepts and
// pflag reads otherwise, before pflag sees them:
//
//	-j4, -Jj4, -qj4      optional argument glued to -j    -> --jobs=4
//	-j 4, --jobs 4       a separate decimal argument       -> --jobs=4
//	-Jj, -j, --jobs      no argument (number of CPUs)      -> --jobs
//
// (argp would take the "4" of "-j 4" as a second file; no kbuild passes it
// so, and a user who writes it means jobs.) Arguments that are the value of
// a preceding flag ("--btf_base -jfoo") and everything after "--" pass
// unchanged; pflag reports whatever it does not know.
func paholeArgs(fs *pflag.FlagSet, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	isNum := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	// A negative count is taken as -j's value, for jobsValue to refuse.
	isJobs := func(s string) bool { return isNum(s) || len(s) > 1 && s[0] == '-' && isNum(s[1:]) }
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...), nil
		case a == "--jobs" || a == "-j":
			if i+1 < len(args) && isJobs(args[i+1]) {
				i++
				a = "--jobs=" + args[i]
			}
		case strings.HasPrefix(a, "--"):
			// A flag taking a value given separately: keep the value as is.
			name, _, hasValue := strings.Cut(a[2:], "=")
			if fl := fs.Lookup(name); fl != nil && !hasValue && fl.NoOptDefVal == "" && i+1 < len(args) {
				out = append(out, a)
				i++
				a = args[i]
			}
		case len(a) > 2 && a[0] == '-' && strings.Contains(a, "j"):
			// A cluster of short bool flags ending in j, j's argument glued on.
			pre, arg, _ := strings.Cut(a[1:], "j")
			if strings.Trim(pre, "JVq") != "" {
				break // not ours: let pflag complain
			}
			arg = strings.TrimPrefix(arg, "=")
			switch {
			case arg == "" && i+1 < len(args) && isJobs(args[i+1]):
				i++
				arg = args[i]
			case arg != "" && !isJobs(arg):
				return nil, errUsage(fmt.Sprintf("invalid job count %q in %s (want -jN, -j N or -j)", arg, a))
			}
			for _, c := range pre {
				out = append(out, "-"+string(c))
			}
			a = "--jobs"
			if arg != "" {
				a += "=" + arg
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// jobsValue is -j's count: a whole number, 0 (or -j alone) for the
// number of CPUs; negative or too large is a usage error, in every
// spelling paholeArgs turns into --jobs=N.
type jobsValue int

func (v *jobsValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && n > maxJobs:
		return fmt.Errorf("job count %s is too large (at most %d; more than twice the CPUs only costs memory)", s, maxJobs)
	case err != nil:
		return fmt.Errorf("invalid job count %q (want a whole number: -jN, -j N, or -j alone for the number of CPUs)", s)
	case n < 0:
		return fmt.Errorf("job count %s is negative (want N >= 1, or -j alone for the number of CPUs)", s)
	}
	*v = jobsValue(n)
	return nil
}

func (v *jobsValue) String() string { return strconv.Itoa(int(*v)) }
func (v *jobsValue) Type() string   { return "int" }

// maxJobs bounds -j's value before anything else looks at it (int on
// 32-bit hosts); capJobs then caps it to what can help.
const maxJobs = 1 << 20

// jobsPerCPU: more jobs than this many per CPU only add memory (each
// holds about one more unit's arena) and contention; the merger is serial.
const jobsPerCPU = 2

// capJobs caps a job count (<= 0: the number of CPUs) at jobsPerCPU times
// the CPUs and returns the count and, when capped, a note for stderr.
// (The plan caps it again at the compile units and what the memory
// limit holds: EncodeStats.Jobs.)
func capJobs(jobs, cpus int) (int, string) {
	if jobs <= 0 {
		return max(cpus, 1), ""
	}
	if limit := jobsPerCPU * max(cpus, 1); jobs > limit {
		return limit, fmt.Sprintf("-j %d capped at %d (%d x %d CPUs): more jobs would only cost memory", jobs, limit, jobsPerCPU, cpus)
	}
	return jobs, ""
}

// parse parses an encode command line into f.
func (f *encodeFlags) parse(fs *pflag.FlagSet, args []string) error {
	norm, err := paholeArgs(fs, args)
	if err != nil {
		return err
	}
	if err := fs.Parse(norm); err != nil {
		return err
	}
	for _, n := range contentFlags {
		f.explicit = f.explicit || fs.Changed(n)
	}
	for _, l := range legacySwitches {
		f.explicit = f.explicit || fs.Changed(l.name)
	}
	switch f.progress {
	case "auto", "always", "never":
	default:
		return errUsage(fmt.Sprintf("invalid argument %q for --progress (want auto, always or never)", f.progress))
	}
	return nil
}

// options turns the flags into EncodeOptions.
func (f *encodeFlags) options() (stream.EncodeOptions, error) {
	opts := stream.DefaultEncodeOptions()
	opts.Jobs, f.jobsNote = capJobs(f.jobs, runtime.NumCPU())
	langs := f.langExclude
	if !f.explicit {
		langs = kbuildLangExclude
	}
	opts.LangExclude = nil
	for _, l := range strings.Split(langs, ",") {
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
		opts.Verbose = func(msg string) { fmt.Fprintln(os.Stderr, msg) } // run names the input
	}
	return opts, nil
}

// legacyFeatures is what pahole encodes when no --btf_features is given:
// VARs, decl and type tags, ENUM64; no floats, no prototype checks.
const legacyFeatures = stream.Features(stream.FeatVar | stream.FeatDeclTag | stream.FeatTypeTag | stream.FeatEnum64)

// featureSet is the feature set the flags ask for: kbuild's (Linux 6.12)
// when no content flag is given; else pahole 1.32's meaning, which
// follows the command-line order: pahole's legacy defaults, which the
// first --btf_features (or --btf_features_strict, --btf_gen_all) replaces
// by an empty set before adding its list; later lists add theirs; each
// single switch turns its feature on or off where it stands.
func (f *encodeFlags) featureSet() (stream.Features, error) {
	if !f.explicit {
		return stream.DefaultFeatures, nil
	}
	fs, lists := legacyFeatures, 0
	for _, a := range f.featureArgs {
		if a.sw >= 0 {
			l := legacySwitches[a.sw]
			if l.on {
				fs |= stream.Features(l.feat)
			} else {
				fs &^= stream.Features(l.feat)
			}
			continue
		}
		if lists == 0 {
			fs = 0
		}
		lists++
		parse, name := stream.ParseFeatures, "--btf_features"
		if a.strict {
			parse, name = stream.ParseFeaturesStrict, "--btf_features_strict"
		}
		x, err := parse(a.list)
		if err != nil {
			return 0, fmt.Errorf("%s=%s: %w (known: %s)", name, a.list, err, stream.Features(^uint32(0)))
		}
		fs |= x
	}
	return fs, nil
}
