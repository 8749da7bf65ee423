package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder stands in for a test: it records which of Fatalf and Skipf
// Missing called (embedding testing.TB supplies the rest).
type recorder struct {
	testing.TB
	fatal, skip bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.fatal = true }
func (r *recorder) Skipf(string, ...any)  { r.skip = true }

func TestMissingFailsUnderCI(t *testing.T) {
	for _, tc := range []struct {
		ci         string
		fatal, ski bool
	}{
		{"", false, true},
		{"false", false, true},
		{"0", false, true},
		{"true", true, false},
		{"1", true, false},
	} {
		t.Setenv("CI", tc.ci)
		r := &recorder{TB: t}
		Missing(r, "x")
		if r.fatal != tc.fatal || r.skip != tc.ski {
			t.Errorf("CI=%q: Missing failed=%v skipped=%v, want %v %v", tc.ci, r.fatal, r.skip, tc.fatal, tc.ski)
		}
	}
}

func TestPaholeThatDoesNotRun(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "pahole")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho v1.31\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BTFSTREAM_PAHOLE", bad)
	t.Setenv("CI", "true")
	r := &recorder{TB: t}
	Pahole(r)
	if !r.fatal {
		t.Error("a pahole that says v1.31 was accepted under CI")
	}
}

func TestRepoRoot(t *testing.T) {
	if _, err := os.Stat(filepath.Join(RepoRoot(t), "go.mod")); err != nil {
		t.Fatal(err)
	}
}
