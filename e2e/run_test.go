package e2e

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/btfstream/btfstream/e2e/testenv"
)

// This file runs the encoders: the reference pahole and btfstream, each as
// kbuild runs it, timed, with a timeout, and remembers vmlinux results so
// that every test of a kernel shares one run of each tool.

// kbuildFeatures is the --btf_features list of scripts/Makefile.btf for
// pahole >= 1.26 (Linux 6.12 to 7.2). pahole also gets reproducible_build
// (Debian's builds set KBUILD_BUILD_TIMESTAMP, which adds it); btfstream's
// output never depends on -j.
const kbuildFeatures = "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs"

// Features added to kbuildFeatures in some runs: the two of pahole 1.32
// that kbuild does not ask for (the gate tries them on the 6.12 and 7.2
// vmlinux), and what Linux 7.2's kbuild adds for pahole >= 1.30
// (attributes; it also adds layout from 1.31, which Debian's pahole 1.32,
// built with libbpf 1.7, ignores, so Debian's kernels have no layout
// section and the runs compared with them leave it out).
const (
	extraFeatures = "true_signature,force_cu_merging"
	kbuild72Extra = "attributes"
)

// workDir holds the outputs of all runs (removed by TestMain); binPath is
// the btfstream under test.
var workDir, binPath string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	d, err := os.MkdirTemp("", "btfstream-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(d)
	workDir = d
	return m.Run()
}

var buildOnce sync.Once
var buildErr error

// btfstreamBin returns BTFSTREAM_BIN or btfstream built once for the
// package run.
func btfstreamBin(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("BTFSTREAM_BIN"); b != "" {
		return b
	}
	buildOnce.Do(func() {
		binPath = filepath.Join(workDir, "btfstream")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/btfstream/btfstream/cmd/btfstream").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// encodeRun is one run of an encoder.
type encodeRun struct {
	tool   string // testenv.PaholeName or "btfstream"
	out    string // the detached BTF it wrote
	wall   time.Duration
	maxRSS int64 // bytes, from wait4's rusage
	err    error // failed, or killed at the timeout
}

func (r *encodeRun) String() string {
	return fmt.Sprintf("%s %.2f s, %.0f MiB peak RSS", r.tool, r.wall.Seconds(), float64(r.maxRSS)/(1<<20))
}

// run runs bin args under GNU time with a timeout and measures it. Peak
// RSS is time's %M, the child's ru_maxrss from wait4: taken in this
// process it would include the test binary's own peak (exec inherits the
// high-water mark of the memory it replaces, which Go's vfork-style spawn
// shares with the parent). A run past the timeout is killed with its
// process group and reported as such: a hang fails the test instead of
// eating CI's time.
func run(t *testing.T, tool, out string, timeout time.Duration, bin string, args ...string) *encodeRun {
	t.Helper()
	timeBin := testenv.Tool(t, "time", "time")
	if p, err := exec.LookPath("/usr/bin/time"); err == nil {
		timeBin = p // the program, not a shell's keyword
	}
	stats := out + ".time"
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, timeBin, append([]string{"-f", "%e %M", "-o", stats, bin}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cmd.WaitDelay = 10 * time.Second
	r := &encodeRun{tool: tool, out: out}
	start := time.Now()
	err := cmd.Run()
	r.wall = time.Since(start)
	if b, rerr := os.ReadFile(stats); rerr == nil {
		// The last line: time puts "Command exited with non-zero status N" first.
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if f := strings.Fields(lines[len(lines)-1]); len(f) == 2 {
			kib, _ := strconv.ParseInt(f[1], 10, 64)
			r.maxRSS = kib << 10
		}
	}
	switch {
	case ctx.Err() != nil:
		r.err = fmt.Errorf("%s did not finish within %v and was killed: %s %s", tool, timeout, bin, strings.Join(args, " "))
	case err != nil:
		msg := stderr.String()
		if len(msg) > 4000 {
			msg = msg[:4000] + "..."
		}
		r.err = fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, msg)
	}
	return r
}

// timeouts: the reference gets a fixed one; btfstream gets three times
// what the reference took on the same input plus a floor (both slow down
// alike on a loaded machine; btfstream is meant to be faster), or
// BTFSTREAM_RUN_TIMEOUT.
const paholeTimeout = 10 * time.Minute

func oursTimeout(ref time.Duration, floor time.Duration) time.Duration {
	if s := os.Getenv("BTFSTREAM_RUN_TIMEOUT"); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			return d
		}
	}
	return floor + 3*ref
}

// paholeArgs and oursArgs are the command lines of TEAM.md and kbuild:
// -J -j1, kbuild's features, rust excluded, detached output, --btf_base
// for a module.
func paholeArgs(out, base, in string, extra ...string) []string {
	a := []string{"-J", "-j1", "--btf_features=" + features(extra) + ",reproducible_build", "--lang_exclude=rust", "--btf_encode_detached", out}
	if base != "" {
		a = append(a, "--btf_base", base)
	}
	return append(a, in)
}

func oursArgs(out, base, in string, extra ...string) []string {
	a := []string{"-J", "-j1", "--btf_features=" + features(extra), "--lang_exclude=rust", "--btf_encode_detached", out}
	if base != "" {
		a = append(a, "--btf_base", base)
	}
	return append(a, in)
}

// features returns kbuildFeatures with extra ones (comma-separated lists).
func features(extra []string) string {
	return strings.Join(append([]string{kbuildFeatures}, extra...), ",")
}

// kernelRuns are the vmlinux runs of one kernel with one set of extra
// features, each done once.
type kernelRuns struct {
	vmlinux              string
	extra                string // features added to kbuildFeatures, or ""
	paholeOnce, oursOnce sync.Once
	pahole, ours         *encodeRun
}

var (
	kernelsMu sync.Mutex
	kernelMap = map[[2]string]*kernelRuns{}
)

// runsFor returns the runs of vmlinux with kbuildFeatures plus extra (a
// comma-separated list, or none).
func runsFor(vmlinux string, extra ...string) *kernelRuns {
	kernelsMu.Lock()
	defer kernelsMu.Unlock()
	key := [2]string{vmlinux, strings.Join(extra, ",")}
	k := kernelMap[key]
	if k == nil {
		k = &kernelRuns{vmlinux: vmlinux, extra: key[1]}
		kernelMap[key] = k
	}
	return k
}

// stem names the outputs of these runs in workDir.
func (k *kernelRuns) stem() string {
	s := kernelTag(k.vmlinux)
	if k.extra != "" {
		s += "+" + strings.ReplaceAll(k.extra, ",", "+")
	}
	return filepath.Join(workDir, s)
}

func (k *kernelRuns) extraList() []string {
	if k.extra == "" {
		return nil
	}
	return []string{k.extra}
}

// tag names a kernel's outputs: the vmlinux file name without "vmlinux-".
func kernelTag(vmlinux string) string { return strings.TrimPrefix(filepath.Base(vmlinux), "vmlinux-") }

// paholeVmlinux runs the reference on the vmlinux (once) and fails the
// test if it did not succeed.
func (k *kernelRuns) paholeVmlinux(t *testing.T, pahole string) *encodeRun {
	t.Helper()
	k.paholeOnce.Do(func() {
		out := k.stem() + ".pahole.btf"
		k.pahole = run(t, testenv.PaholeName, out, paholeTimeout, pahole, paholeArgs(out, "", k.vmlinux, k.extraList()...)...)
	})
	if k.pahole.err != nil {
		t.Fatalf("the reference failed on %s (features +%s): %v", k.vmlinux, k.extra, k.pahole.err)
	}
	return k.pahole
}

// oursVmlinux runs btfstream on the vmlinux (once; its timeout derives
// from the reference's time) and fails the test if it did not succeed.
func (k *kernelRuns) oursVmlinux(t *testing.T, pahole string) *encodeRun {
	t.Helper()
	ref := k.paholeVmlinux(t, pahole)
	k.oursOnce.Do(func() {
		out := k.stem() + ".btfstream.btf"
		k.ours = run(t, "btfstream", out, oursTimeout(ref.wall, time.Minute), btfstreamBin(t), oursArgs(out, "", k.vmlinux, k.extraList()...)...)
	})
	if k.ours.err != nil {
		t.Fatalf("btfstream failed on %s (the reference took %.1f s): %v", k.vmlinux, ref.wall.Seconds(), k.ours.err)
	}
	return k.ours
}

// btfDiff runs `btfstream diff [--base BASE] A B`: nil if the two are
// equal type graphs, else an error with what differs.
func btfDiff(t *testing.T, base, a, b string) error {
	t.Helper()
	args := []string{"diff", "--max", "25"}
	if base != "" {
		args = append(args, "--base", base)
	}
	args = append(args, a, b)
	cmd := exec.Command(btfstreamBin(t), args...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return fmt.Errorf("btfstream diff: not equal (A = %s, B = btfstream)\n%s", testenv.PaholeName, out)
	default:
		t.Fatalf("btfstream %s: %v\n%s", strings.Join(args, " "), err, out)
		return nil
	}
}

// compilers returns the distinct compiler lines of an ELF file's .comment
// section ("GCC: (Debian 14.2.0-19) 14.2.0").
func compilers(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := f.Section(".comment")
	if s == nil {
		return "", fmt.Errorf("%s: no .comment section", path)
	}
	data, err := s.Data()
	if err != nil {
		return "", fmt.Errorf("%s: .comment: %w", path, err)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range strings.Split(string(data), "\x00") {
		if c = strings.TrimSpace(c); c != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; "), nil
}

// ratio formats a/b as "0.93x".
func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64) + "x"
}
