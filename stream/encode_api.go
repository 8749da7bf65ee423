package stream

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btfstream/btfstream/btf"
)

// Feature is one pahole --btf_features switch.
type Feature uint32

// Features is a set of Feature bits.
type Features uint32

// The feature names of pahole 1.31 (pahole.c btf_features[]), in its order.
const (
	FeatEncodeForce       Feature = 1 << iota // encode_force: skip what cannot be encoded instead of failing
	FeatVar                                   // var: per-CPU VARs and their DATASEC
	FeatFloat                                 // float: FLOAT kind for floating-point base types
	FeatDeclTag                               // decl_tag: DECL_TAG from btf_decl_tag annotations
	FeatTypeTag                               // type_tag: TYPE_TAG from btf_type_tag annotations
	FeatEnum64                                // enum64: ENUM64 for enums with values wider than 32 bits
	FeatOptimizedFunc                         // optimized_func: encode functions with optimized-away parameters when safe
	FeatConsistentFunc                        // consistent_func: drop functions whose prototypes differ between CUs
	FeatDeclTagKfuncs                         // decl_tag_kfuncs: "bpf_kfunc" DECL_TAGs for .BTF_ids kfunc sets
	FeatReproducibleBuild                     // reproducible_build: output independent of -j (always true here)
	FeatDistilledBase                         // distilled_base: .BTF.base for modules (not implemented)
	FeatGlobalVar                             // global_var: VARs for every global variable, not only per-CPU
	FeatAttributes                            // attributes: arena kfunc pointers through TYPE_TAG "address_space(1)" with kind_flag (kfunc_arena.go)
)

// featureNames maps Feature bit i to its pahole name.
var featureNames = [...]string{
	"encode_force", "var", "float", "decl_tag", "type_tag", "enum64",
	"optimized_func", "consistent_func", "decl_tag_kfuncs",
	"reproducible_build", "distilled_base", "global_var", "attributes",
}

// DefaultFeatures is pahole's "default" set: what kbuild asks for
// (scripts/Makefile.btf for pahole >= 1.26).
const DefaultFeatures = Features(FeatEncodeForce | FeatVar | FeatFloat | FeatDeclTag |
	FeatTypeTag | FeatEnum64 | FeatOptimizedFunc | FeatConsistentFunc | FeatDeclTagKfuncs)

// Has reports whether f is in the set.
func (fs Features) Has(f Feature) bool { return fs&Features(f) != 0 }

// String lists the set as pahole names joined by commas.
func (fs Features) String() string {
	var names []string
	for i, n := range featureNames {
		if fs&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ",")
}

// ErrUnknownFeature is returned by ParseFeatures in strict mode for a name
// pahole does not know.
var ErrUnknownFeature = errors.New("unknown BTF feature")

// ParseFeatures parses a --btf_features list the way pahole 1.31 does:
// "default" (or "") is DefaultFeatures; a leading "+" adds the listed
// features to the default set; otherwise only the listed features are on.
// "default" may also appear as an element of the list. Unknown names are
// ignored, as pahole does without --btf_features_strict; use
// ParseFeaturesStrict to reject them.
func ParseFeatures(list string) (Features, error) { return parseFeatures(list, false) }

// ParseFeaturesStrict is ParseFeatures with --btf_features_strict: unknown
// names are an error wrapping ErrUnknownFeature.
func ParseFeaturesStrict(list string) (Features, error) { return parseFeatures(list, true) }

func parseFeatures(list string, strict bool) (Features, error) {
	if list == "" || list == "default" {
		return DefaultFeatures, nil
	}
	var fs Features
	if strings.HasPrefix(list, "+") {
		fs = DefaultFeatures
		list = list[1:]
	}
next:
	for _, name := range strings.Split(list, ",") {
		if name == "" {
			continue
		}
		if name == "default" {
			fs |= DefaultFeatures
			continue
		}
		for i, n := range featureNames {
			if n == name {
				fs |= 1 << i
				continue next
			}
		}
		if strict {
			return 0, fmt.Errorf("%w %q", ErrUnknownFeature, name)
		}
	}
	return fs, nil
}

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
	// MemLimit is the memory budget in bytes (0: DefaultMemLimit(),
	// negative: no limit). Arenas in flight, tables and caches are
	// accounted against it, the Go runtime's soft limit is set from it,
	// and saved function states spill to TmpDir when it is exceeded.
	MemLimit int64
	// TmpDir is where spill files go if the budget is exceeded ("": os.TempDir).
	TmpDir string
	// Verbose, when non-nil, receives one line per skipped or dropped item
	// (function with inconsistent prototype, unsupported tag, ...).
	Verbose func(msg string)

	// noDedup skips deduplication (tests comparing type sets only).
	noDedup bool
}

// DefaultEncodeOptions is what kbuild runs: --btf_features=default with
// --lang_exclude=rust, one job.
func DefaultEncodeOptions() EncodeOptions {
	return EncodeOptions{Jobs: 1, LangExclude: []string{"rust"}, Features: DefaultFeatures}
}

// EncodeStats counts what an encoding saw and produced.
type EncodeStats struct {
	CUs        int // compile units converted (after the language filter)
	SkippedCUs int // compile units skipped by LangExclude
	Funcs      int // FUNC types emitted
	Vars       int // VAR types emitted
	// DroppedFuncs counts functions with a symbol that were left out
	// (inconsistent prototypes, unsafe optimizations, ...).
	DroppedFuncs int
	// KindCounts counts the output types by kind.
	KindCounts [btf.MaxKind + 1]int
	// Types is the number of output types (sum of KindCounts).
	Types int
	// Spilled is the bytes written to spill files (compressed).
	Spilled int64
	// PeakAccounted is the most memory the budget accounted at once.
	PeakAccounted int64
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
