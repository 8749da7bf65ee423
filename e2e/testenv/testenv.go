// Package testenv finds what btfstream's tests compare with: the reference
// pahole, the test kernels and outside tools (compilers, bpftool).
//
// Outside CI a test that lacks one of them skips. Under CI=true (as
// .ci/run runs) it fails instead: a comparison that silently stops running
// would look the same as one that passes. scripts/test.sh installs the tools
// and fetches the kernels, so in CI nothing should be missing.
//
// It imports nothing of btfstream, so any package's tests may use it.
//
// Environment:
//
//	CI=true            missing inputs fail tests instead of skipping them
//	BTFSTREAM_SHARED   the shared folder (default: the first of ../shared
//	                   and ../../shared from the repository root that holds
//	                   reference/, so a clone or a worktree beside it works)
//	BTFSTREAM_PAHOLE   the reference pahole (default
//	                   SHARED/reference/pahole-1.32/pahole)
//	BTFSTREAM_KERNELS  vmlinux files with DWARF, separated by ':' (see Kernels)
package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// InCI reports whether the tests run under CI (CI set to anything but
// "", "0" or "false").
func InCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false":
		return false
	}
	return true
}

// Missing ends the test because something it needs is not there: a skip
// outside CI, a failure under CI.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI=true and a required input is missing: "+format, args...)
		return
	}
	t.Skipf(format, args...)
}

var (
	rootOnce sync.Once
	rootDir  string
)

// RepoRoot returns the repository root: the nearest folder at or above the
// working directory (a package's folder, under go test) that has go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	rootOnce.Do(func() {
		d, err := os.Getwd()
		if err != nil {
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				rootDir = d
				return
			}
			up := filepath.Dir(d)
			if up == d {
				return
			}
			d = up
		}
	})
	if rootDir == "" {
		t.Fatal("testenv: no go.mod at or above the working directory")
	}
	return rootDir
}

// SharedDir returns the shared folder beside the repository (reference
// tools and the kernel fetcher), or "" if there is none.
func SharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("BTFSTREAM_SHARED"); d != "" {
		return d
	}
	root := RepoRoot(t)
	for _, d := range []string{filepath.Join(root, "..", "shared"), filepath.Join(root, "..", "..", "shared")} {
		if st, err := os.Stat(filepath.Join(d, "reference")); err == nil && st.IsDir() {
			return filepath.Clean(d)
		}
	}
	return ""
}

var (
	paholeMu  sync.Mutex
	paholeErr = map[string]string{} // path -> why it cannot run ("" = it runs)
)

// PaholeVersion is what the reference pahole must say to --version, and
// PaholeName names it in logs.
const (
	PaholeVersion = "v1.32"
	PaholeName    = "pahole 1.32"
)

// Pahole returns the reference pahole 1.32 after checking that it runs and
// says v1.32 (shared/reference/pahole-1.32 brings its own libraries; a
// pahole of the system needs libdw1 and libelf1, and without them the
// loader's message is reported). Missing if not.
func Pahole(t testing.TB) string {
	t.Helper()
	p := os.Getenv("BTFSTREAM_PAHOLE")
	if p == "" {
		shared := SharedDir(t)
		if shared == "" {
			Missing(t, "no shared/reference beside the repository %s (set BTFSTREAM_SHARED or BTFSTREAM_PAHOLE)", RepoRoot(t))
		}
		p = filepath.Join(shared, "reference", "pahole-1.32", "pahole")
	}
	paholeMu.Lock()
	why, ok := paholeErr[p]
	if !ok {
		var out bytes.Buffer
		cmd := exec.Command(p, "--version")
		cmd.Stdout, cmd.Stderr = &out, &out
		switch err := cmd.Run(); {
		case err != nil:
			why = strings.TrimSpace(err.Error() + ": " + out.String())
		case strings.TrimSpace(out.String()) != PaholeVersion:
			why = "says " + strings.TrimSpace(out.String()) + ", want " + PaholeVersion
		}
		paholeErr[p] = why
	}
	paholeMu.Unlock()
	if why != "" {
		Missing(t, "reference pahole %s does not run: %s (shared/reference/pahole-1.32 runs as it is on Debian 12 and 13; another pahole needs libdw1 and libelf1)", p, why)
	}
	return p
}

// Tool returns the path of an outside command, or is Missing naming the
// Debian package that has it.
func Tool(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s not installed (Debian package %s; scripts/test.sh installs it)", name, pkg)
	}
	return p
}

// Kernels returns the vmlinux files of BTFSTREAM_KERNELS (':'-separated;
// scripts/test.sh sets it to every kernel it fetched), each checked to
// exist. With none named it is Missing: a skip outside CI, a failure
// under CI.
func Kernels(t testing.TB) []string {
	t.Helper()
	var ks []string
	for _, k := range filepath.SplitList(os.Getenv("BTFSTREAM_KERNELS")) {
		if k == "" {
			continue
		}
		if _, err := os.Stat(k); err != nil {
			t.Fatalf("BTFSTREAM_KERNELS: %v", err)
		}
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		Missing(t, "BTFSTREAM_KERNELS names no kernel (scripts/test.sh fetches them and sets it)")
	}
	return ks
}
