package stream

import (
	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/encode"
)

// The --btf_features set, defined by the per-unit encoder and re-exported
// here with EncodeOptions, whose field it is.
type (
	Feature  = encode.Feature
	Features = encode.Features
)

// The feature names of pahole 1.31 (see package encode).
const (
	FeatEncodeForce       = encode.FeatEncodeForce
	FeatVar               = encode.FeatVar
	FeatFloat             = encode.FeatFloat
	FeatDeclTag           = encode.FeatDeclTag
	FeatTypeTag           = encode.FeatTypeTag
	FeatEnum64            = encode.FeatEnum64
	FeatOptimizedFunc     = encode.FeatOptimizedFunc
	FeatConsistentFunc    = encode.FeatConsistentFunc
	FeatDeclTagKfuncs     = encode.FeatDeclTagKfuncs
	FeatReproducibleBuild = encode.FeatReproducibleBuild
	FeatDistilledBase     = encode.FeatDistilledBase
	FeatGlobalVar         = encode.FeatGlobalVar
	FeatAttributes        = encode.FeatAttributes
	FeatLayout            = encode.FeatLayout
	FeatForceCUMerging    = encode.FeatForceCUMerging

	DefaultFeatures = encode.DefaultFeatures
	AllFeatures     = encode.AllFeatures
)

// ErrUnknownFeature is returned by ParseFeaturesStrict for a name pahole
// does not know.
var ErrUnknownFeature = encode.ErrUnknownFeature

// ParseFeatures parses a --btf_features list as pahole 1.31 does
// (encode.ParseFeatures).
func ParseFeatures(list string) (Features, error) { return encode.ParseFeatures(list) }

// ParseFeaturesStrict is ParseFeatures with --btf_features_strict
// (encode.ParseFeaturesStrict).
func ParseFeaturesStrict(list string) (Features, error) { return encode.ParseFeaturesStrict(list) }

// EncodeOptions configures EncodeFile. The zero value is not the kbuild
// default: start from DefaultEncodeOptions.
type EncodeOptions struct {
	// Jobs is how many goroutines decode and convert CUs (<=0: 1). Output
	// is byte-identical for every value.
	Jobs int
	// LangExclude lists DW_LANG names (pahole's --lang_exclude spelling,
	// e.g. "rust") whose CUs are skipped.
	LangExclude []string
	// Features is the parsed --btf_features set.
	Features Features
	// Base is the BTF a module's split BTF is encoded against (vmlinux's
	// .BTF); nil to encode base BTF (vmlinux).
	Base *btf.Spec
	// MemLimit is the memory budget in bytes (0: DefaultMemLimit(), the
	// tightest limit the host puts on the process,
	// negative: no limit). Arenas in flight, tables and caches are
	// accounted against it, the Go runtime's soft limit is set from it,
	// and saved function states spill to TmpDir when it is exceeded.
	MemLimit int64
	// TmpDir is where spill files go if the budget is exceeded ("": os.TempDir).
	TmpDir string
	// Verbose, when non-nil, receives one line per variable left out for a
	// reason the user may want to know (a name BTF cannot hold, void type,
	// zero or oversized), naming its section and offset. The workers call
	// it, so it must be safe for concurrent use; lines come in any order.
	Verbose func(msg string)
	// Progress, when non-nil, is called from the encoding goroutine after
	// each unit of .debug_info and once at the end (Units == TotalUnits).
	// It must return quickly; the CLI draws a status line with it.
	Progress func(Progress)

	// noDedup skips deduplication (tests comparing type sets only).
	noDedup bool
	// spillAll makes every store spill as soon as it can, whatever the
	// heap (tests: the output must not change).
	spillAll bool
}

// Progress is how far an encoding is: units of .debug_info done (encoded,
// or skipped by the language filter) and bytes of .debug_info behind them
// (uncompressed). TotalUnits and Total are 0 when unknown (a compressed
// .debug_info).
type Progress struct {
	Units, TotalUnits int
	Read, Total       int64
}

// DefaultEncodeOptions is what kbuild runs: --btf_features=default with
// --lang_exclude=rust, one job.
func DefaultEncodeOptions() EncodeOptions {
	return EncodeOptions{Jobs: 1, LangExclude: []string{"rust"}, Features: DefaultFeatures}
}

// EncodeStats counts what an encoding saw and produced.
type EncodeStats struct {
	CUs        int // compile units converted (after the language filter)
	SkippedCUs int // units not converted: excluded by LangExclude, or not compile/partial units
	Funcs      int // FUNC types emitted
	Vars       int // VAR types emitted
	// DroppedFuncs counts functions with a symbol that were left out
	// (inconsistent prototypes, unsafe optimizations, ...).
	DroppedFuncs int
	// KindCounts counts the output types by kind.
	KindCounts [btf.MaxKind + 1]int
	// Types is the number of output types (sum of KindCounts).
	Types int
	// SkippedTypes counts the batch types workers did not convert, their
	// closures being in the table already (encode's closureskip.go).
	SkippedTypes int
	// StaleUnits counts the units encoded again because their batches
	// were stale (pipeline_skip.go).
	StaleUnits int
	// Spilled is the bytes written to spill files (compressed).
	Spilled int64
	// PeakAccounted is the most memory the budget accounted at once.
	PeakAccounted int64
	// MemLimit is the budget the run had (0: none) and MemLimitFrom what
	// set it: "--mem-limit", or the host limit (HostBudget.String).
	MemLimit     int64
	MemLimitFrom string
	// Jobs is how many jobs ran: EncodeOptions.Jobs, or fewer when the
	// memory limit holds only fewer (memory comes first; the output is the
	// same for any number).
	Jobs int
	// Replayed and Resolved count the components (dedup's strongly
	// connected components) of the units' batches that the merger took
	// as a worker had resolved them against an earlier table, and those
	// it resolved again because the table had changed for them.
	Replayed, Resolved int
}

// EncodeFile reads the DWARF of the ELF file at path (vmlinux, .ko or .o)
// and returns its BTF, as pahole -J would produce it with the same
// options: the type graph of pahole 1.31, deduplicated, with FUNC, VAR,
// DATASEC and DECL_TAG entries. For a module (opts.Base non-nil) the
// result is a split Spec over opts.Base. The caller writes it out
// (btf.Marshal, or into an ELF .BTF section).
func EncodeFile(path string, opts EncodeOptions) (*btf.Spec, EncodeStats, error) {
	return encodeFile(path, opts)
}
