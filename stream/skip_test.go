package stream

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestSkipClosures: skipping repeated closures (encode's closureskip.go)
// changes no byte of the output, at one job (closures with declarations
// too) and two, and in check mode (BTFSTREAM_SKIPCHECK: convert
// everything, assert the classes) no skipped type goes elsewhere.
func TestSkipClosures(t *testing.T) {
	objs, err := filepath.Glob("testdata/encode/golden/*/*.o")
	if err != nil || len(objs) == 0 {
		t.Fatalf("no golden objects: %v", err)
	}
	stale := 0
	encode := func(obj string, jobs int, env string) ([]byte, int) {
		t.Helper()
		t.Setenv("BTFSTREAM_SKIP", "")
		t.Setenv("BTFSTREAM_SKIPCHECK", "")
		if env != "" {
			t.Setenv(env, map[string]string{"BTFSTREAM_SKIP": "0", "BTFSTREAM_SKIPCHECK": "1"}[env])
		}
		opts := DefaultEncodeOptions()
		opts.Jobs = jobs
		if opts.Features, err = ParseFeatures(kbuildFeatures); err != nil {
			t.Fatal(err)
		}
		spec, st, err := EncodeFile(obj, opts)
		if err != nil {
			t.Fatalf("%s -j%d %s: %v", obj, jobs, env, err)
		}
		stale += st.StaleUnits
		return spec.Marshal(), st.SkippedTypes
	}
	skipped := map[int]int{}
	for _, obj := range objs {
		if filepath.Base(obj) == "foreign_ref.o" {
			continue
		}
		want, n := encode(obj, 1, "BTFSTREAM_SKIP")
		if n != 0 {
			t.Errorf("%s: %d types skipped with BTFSTREAM_SKIP=0", obj, n)
		}
		for _, jobs := range []int{1, 2} {
			for _, env := range []string{"", "BTFSTREAM_SKIPCHECK"} {
				got, n := encode(obj, jobs, env)
				if !bytes.Equal(got, want) {
					t.Errorf("%s -j%d %s: output differs from BTFSTREAM_SKIP=0's", obj, jobs, env)
				}
				if env == "" {
					skipped[jobs] += n
				} else if n != 0 {
					t.Errorf("%s -j%d: %d types skipped in check mode", obj, jobs, n)
				}
			}
		}
	}
	if skipped[1] == 0 {
		t.Error("no type skipped at -j1: the test tests nothing")
	}
	t.Logf("types skipped: %d at -j1, %d at -j2", skipped[1], skipped[2])
	// The stale-batch fallback (pipeline_skip.go) on every unit that
	// skipped a closure with a declaration, stale or not: encoded again
	// skipping the same declaration-free DIEs (Restale), and with
	// BTFSTREAM_SKIPREACH=1 the closures with declarations that reach no
	// resolved name too.
	reencodeKept = true
	defer func() { reencodeKept = false }()
	for _, names := range []string{"", "1"} {
		t.Setenv("BTFSTREAM_SKIPREACH", names)
		stale = 0
		for _, obj := range objs {
			if filepath.Base(obj) == "foreign_ref.o" {
				continue
			}
			want, _ := encode(obj, 1, "BTFSTREAM_SKIP")
			if got, _ := encode(obj, 2, ""); !bytes.Equal(got, want) {
				t.Errorf("%s -j2 BTFSTREAM_SKIPREACH=%q, every kept unit encoded again: output differs from BTFSTREAM_SKIP=0's", obj, names)
			}
		}
		if stale == 0 {
			t.Error("no unit encoded again: the fallback was not tested")
		}
	}
}
