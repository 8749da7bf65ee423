package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/stream/elffile"
)

// The golden fixtures (testdata/encode/golden/TARGET/) are small objects
// compiled from testdata/encode/*.c for amd64, i386, arm and s390x, each
// with the reference pahole 1.32's BTF of it (NAME.VARIANT.btf) and
// bpftool's raw dump of that BTF (NAME.VARIANT.dump); regen.sh beside
// them rebuilds all three from the sources. They test the encoder with no
// outside tool, on every host.
//
// What is compared: the dump, exactly. A dump shows every type with its id,
// name, kind and fields, so equal dumps mean the same types in the same
// order, which is more than `btfstream diff` (type graphs equal up to
// order) and less than byte identity: pahole's string section keeps
// strings no type uses and ours does not, so the raw files differ while
// the dumps are equal. If a dump differs, the failure also says whether
// the two are still equal as type graphs, which tells an order change
// from a real difference.

// goldenFeatures maps a variant (the middle part of NAME.VARIANT.dump) to
// the --btf_features list regen.sh gave pahole for it.
var goldenFeatures = map[string]string{
	"kbuild":     kbuildFeatures,
	"global_var": kbuildFeatures + ",global_var",
	// pahole 1.32's true_signature (strong.o).
	"true_signature": kbuildFeatures + ",true_signature",
}

func TestEncodeGolden(t *testing.T) {
	dumps, err := filepath.Glob(filepath.Join("testdata", "encode", "golden", "*", "*.*.dump"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, d := range dumps {
		targets[filepath.Base(filepath.Dir(d))] = true
	}
	// The fixtures must be there: a checkout without them tests nothing.
	for _, want := range []string{"amd64", "i386", "arm", "s390x"} {
		if !targets[want] {
			t.Errorf("no golden fixtures for %s under testdata/encode/golden (run testdata/encode/regen.sh)", want)
		}
	}
	for _, dumpPath := range dumps {
		dir, file := filepath.Split(dumpPath)
		name, variant, _ := strings.Cut(strings.TrimSuffix(file, ".dump"), ".")
		t.Run(filepath.Base(dir)+"/"+name+"."+variant, func(t *testing.T) {
			features, ok := goldenFeatures[variant]
			if !ok {
				t.Fatalf("unknown variant %q (goldenFeatures and regen.sh list the same ones)", variant)
			}
			want, err := os.ReadFile(dumpPath)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := elffile.LoadBTF(filepath.Join(dir, name+"."+variant+".btf"), nil)
			if err != nil {
				t.Fatal(err)
			}
			// The harness itself: our dump of pahole's BTF is bpftool's.
			if got := dumpSpec(t, ref); !bytes.Equal(got, want) {
				t.Fatalf("btf.Spec.Dump of pahole's BTF differs from bpftool's dump:\n%s", lineDiff(got, want))
			}

			opts := DefaultEncodeOptions()
			opts.MemLimit = -1 // no runtime soft limit inside the test binary
			if opts.Features, err = ParseFeatures(features); err != nil {
				t.Fatal(err)
			}
			obj := filepath.Join(dir, name+".o")
			got, _, err := EncodeFile(obj, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("output does not validate: %v", err)
			}
			if d := dumpSpec(t, got); !bytes.Equal(d, want) {
				graph := "equal as type graphs (only ids or order differ)"
				if c, err := dedup.Compare(got, ref); err != nil {
					graph = "graph comparison failed: " + err.Error()
				} else if a, b := c.Unmatched(); len(a)+len(b) > 0 {
					graph = "NOT equal as type graphs"
				}
				t.Fatalf("dump differs from pahole 1.32's (%s); - pahole, + btfstream:\n%s", graph, lineDiff(d, want))
			}

			// The same bytes at any -j.
			opts.Jobs = 3
			again, _, err := EncodeFile(obj, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Marshal(), got.Marshal()) {
				t.Error("output with Jobs=3 differs from Jobs=1")
			}
		})
	}
}

func dumpSpec(t *testing.T, s *btf.Spec) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// lineDiff lists the lines of want missing from got (-) and of got missing
// from want (+), at most 40, in order: enough to see what changed without
// a diff library.
func lineDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	inG, inW := map[string]int{}, map[string]int{}
	for _, l := range g {
		inG[l]++
	}
	for _, l := range w {
		inW[l]++
	}
	var out []string
	for _, l := range w {
		if inG[l] == 0 {
			out = append(out, "- "+l)
		} else {
			inG[l]--
		}
	}
	for _, l := range g {
		if inW[l] == 0 {
			out = append(out, "+ "+l)
		} else {
			inW[l]--
		}
	}
	if len(out) > 40 {
		out = append(out[:40], "...")
	}
	return strings.Join(out, "\n")
}
