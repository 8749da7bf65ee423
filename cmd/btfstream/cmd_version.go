package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// runVersion implements `btfstream version`: btfstream's own version, from
// the build information the Go toolchain embeds (module version, VCS
// revision and time, whether the tree was modified), with the pahole
// version it follows. `btfstream --version` stays pahole's "v1.32", which
// kbuild's scripts/pahole-version.sh parses.
func runVersion(args []string) int {
	fs := newFlagSet("version")
	if code, ok := parseOperands(fs, "version", "btfstream version", args); !ok {
		return code
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info))
	return 0
}

// versionLine renders
//
//	btfstream v0.3.0 (commit 0123456789ab, 2026-11-21T10:00:00Z, modified) go1.25.0 linux/amd64; pahole v1.32 compatible
//
// Parts the build did not record are left out; a binary built outside a
// module ("go run file.go") says "unknown".
func versionLine(info *debug.BuildInfo) string {
	ver, goVer := "unknown", runtime.Version()
	var vcs []string
	if info != nil {
		if v := info.Main.Version; v != "" {
			ver = v
		}
		if info.GoVersion != "" {
			goVer = info.GoVersion
		}
		set := map[string]string{}
		for _, s := range info.Settings {
			set[s.Key] = s.Value
		}
		if r := set["vcs.revision"]; r != "" {
			vcs = append(vcs, "commit "+r[:min(len(r), 12)])
		}
		if t := set["vcs.time"]; t != "" {
			vcs = append(vcs, t)
		}
		if set["vcs.modified"] == "true" {
			vcs = append(vcs, "modified")
		}
	}
	s := "btfstream " + ver
	if len(vcs) > 0 {
		s += " (" + strings.Join(vcs, ", ") + ")"
	}
	return fmt.Sprintf("%s %s %s/%s; pahole %s compatible", s, goVer, runtime.GOOS, runtime.GOARCH, paholeVersion)
}
