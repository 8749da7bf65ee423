package encode

import (
	"errors"
	"fmt"
	"strings"
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
	FeatDistilledBase                         // distilled_base: .BTF.base for out-of-tree modules (written by cmd/btfstream with btf.Distill)
	FeatGlobalVar                             // global_var: VARs for every global variable, not only per-CPU
	FeatAttributes                            // attributes: arena kfunc pointers through TYPE_TAG "address_space(1)" with kind_flag (kfunc_arena.go)
	FeatTrueSignature                         // true_signature: FUNCs of '.'-suffixed symbols under that name, prototypes as the ABI changed them (pahole 1.32)
	FeatLayout                                // layout: the layout section in base BTF (pahole 1.32 with libbpf 1.8; after true_signature in pahole's list)
	// force_cu_merging (pahole 1.32, 36037d4b): pahole loads every unit of
	// the file as one before encoding (it does so anyway when a unit refers
	// to another's DIEs). Accepted, and the output is the same as without
	// it: on the 7.2 and 6.12 cloud vmlinux pahole 1.32's output with it
	// equals its output without it as type graphs (btfstream diff; only
	// the order differs: the VARs come after all types, not per unit), and
	// on the golden fixtures its dumps are identical.
	FeatForceCUMerging
)

// featureNames maps Feature bit i to its pahole name.
var featureNames = [...]string{
	"encode_force", "var", "float", "decl_tag", "type_tag", "enum64",
	"optimized_func", "consistent_func", "decl_tag_kfuncs",
	"reproducible_build", "distilled_base", "global_var", "attributes",
	"true_signature",
	"layout",
	"force_cu_merging",
}

// DefaultFeatures is pahole's "default" set: what kbuild asks for
// (scripts/Makefile.btf for pahole >= 1.26).
const DefaultFeatures = Features(FeatEncodeForce | FeatVar | FeatFloat | FeatDeclTag |
	FeatTypeTag | FeatEnum64 | FeatOptimizedFunc | FeatConsistentFunc | FeatDeclTagKfuncs)

// AllFeatures is every feature there is a name for: what "all" means.
const AllFeatures = Features(1<<len(featureNames) - 1)

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

// ParseFeatures parses a --btf_features list the way pahole 1.32 does:
// "default" (or "") is DefaultFeatures; a leading "+" adds the listed
// features to the default set; otherwise only the listed features are on.
// "default" may also appear as an element of the list, and so may "all":
// every feature (pahole 1.32, 76e9d590; 1.31 took it for an unknown name).
// Unknown names are ignored, as pahole does without --btf_features_strict;
// use ParseFeaturesStrict to reject them.
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
		if name == "all" {
			fs |= AllFeatures
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
