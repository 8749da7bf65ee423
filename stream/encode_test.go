package stream

import (
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

const kbuildFeatures = "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs"

func TestParseFeatures(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Features
	}{
		{"", DefaultFeatures},
		{"default", DefaultFeatures},
		{kbuildFeatures, DefaultFeatures},
		{"+global_var", DefaultFeatures | Features(FeatGlobalVar)},
		{"var,float,nonsense", Features(FeatVar | FeatFloat)},
		{"default,reproducible_build", DefaultFeatures | Features(FeatReproducibleBuild)},
	} {
		got, err := ParseFeatures(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseFeatures(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParseFeaturesStrict("var,nonsense"); err == nil {
		t.Error("strict parse accepted an unknown feature")
	}
}

// TestEncodeFixtures encodes each C fixture built by gcc and clang and
// compares the result with pahole 1.32's as canonical type sets.
func TestEncodeFixtures(t *testing.T) {
	for _, fx := range []string{"types.c", "funcs.c", "tags.c"} {
		for _, cc := range []string{"gcc", "clang"} { // Debian packages of the same names
			if fx == "tags.c" && cc == "gcc" {
				continue // btf_type_tag/btf_decl_tag are clang-only
			}
			t.Run(fx+"/"+cc, func(t *testing.T) {
				obj := compileFixture(t, cc, cc, fx)
				want := paholeBTF(t, obj, kbuildFeatures)
				opts := DefaultEncodeOptions()
				got, _, err := EncodeFile(obj, opts)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := kindCounts(got), kindCounts(want); g != w {
					t.Errorf("kind counts: got %v, pahole %v", g, w)
				}
				onlyGot, onlyWant := diffCanon(got, want)
				if len(onlyGot)+len(onlyWant) > 0 {
					t.Errorf("differences against pahole 1.32:\n only btfstream:\n  %s\n only pahole:\n  %s",
						strings.Join(onlyGot, "\n  "), strings.Join(onlyWant, "\n  "))
				}
			})
		}
	}
}

func kindCounts(s *btf.Spec) (n [btf.MaxKind + 1]int) {
	for id := s.FirstID(); id < s.NextID(); id++ {
		n[s.Kind(id)]++
	}
	return n
}
