package e2e

// Kill tests (issue 12): SIGINT, SIGTERM and SIGKILL at random points of
// kbuild's two steps on the real kernel, an in-place -J of a module (a copy
// of xfs.ko, --btf_base the vmlinux) and a detached vmlinux encode. After
// every try: the input is the original or, when the run had finished, the
// finished output (never anything between); an interrupted run exits with
// 128+signo (or died of the signal); and no file is left anywhere: not in
// the output's directory, $TMPDIR or --tmpdir.
//
// The points are drawn with a fixed seed over the length of one measured
// run, so each try is repeatable on a given machine. Tries per signal:
// BTFSTREAM_KILL_TRIES (default 20). The vmlinux runs use -j2 (the
// parallel decoders get the signal too, and the test takes half as long).
// About 4 minutes on 2 cores, and under 2 more for TestKillSpilling (the
// vmlinux at its memory floor, spill files in --tmpdir).

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killRun is one command to interrupt.
type killRun struct {
	bin  string
	args []string
	env  []string
	// watched are the files a try may change: each must afterwards hold
	// its "before" contents or its "after" (finished) contents.
	watched []string
	// dirs are checked for leftovers: after a try they hold exactly the
	// names in keep (base names).
	dirs []string
	keep map[string]bool
	// reset restores the watched files before a try.
	reset func(t *testing.T)
}

func killTries() int {
	if n, err := strconv.Atoi(os.Getenv("BTFSTREAM_KILL_TRIES")); err == nil && n > 0 {
		return n
	}
	return 20
}

// sums returns the sha256 of each watched file ("" if absent).
func (k *killRun) sums(t *testing.T) []string {
	var s []string
	for _, p := range k.watched {
		if _, err := os.Stat(p); err != nil {
			s = append(s, "")
			continue
		}
		s = append(s, fileSum(t, p))
	}
	return s
}

// leftovers lists files in k.dirs that should not be there.
func (k *killRun) leftovers() []string {
	var extra []string
	for _, d := range k.dirs {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if !k.keep[e.Name()] {
				extra = append(extra, filepath.Join(d, e.Name()))
			}
		}
	}
	sort.Strings(extra)
	return extra
}

func (k *killRun) start(t *testing.T) *exec.Cmd {
	cmd := exec.Command("nice", append([]string{"-n", "10", k.bin}, k.args...)...)
	cmd.Env = append(os.Environ(), k.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// killLoop measures one uninterrupted run, then, per signal, interrupts
// runs at points drawn uniformly over its length until killTries of them
// were interrupted. A run that finishes before its signal (the first run
// was slow: a loaded host) counts apart and shortens the length drawn
// from by a quarter; at most three times killTries runs are tried, and
// fewer than killTries interrupted ones fail the test.
func killLoop(t *testing.T, k *killRun) {
	k.reset(t)
	before := k.sums(t)
	t0 := time.Now()
	if out, err := exec.Command("nice", append([]string{"-n", "10", k.bin}, k.args...)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	length := time.Since(t0)
	after := k.sums(t)
	if extra := k.leftovers(); len(extra) > 0 {
		t.Fatalf("the uninterrupted run left %v", extra)
	}
	t.Logf("uninterrupted run: %v", length.Round(time.Millisecond))
	rng := rand.New(rand.NewPCG(12, 2024))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		counts := map[string]int{}
		interrupted, tries := 0, 0
		for ; interrupted < killTries() && tries < 3*killTries(); tries++ {
			k.reset(t)
			delay := time.Duration(rng.Float64() * float64(length))
			cmd := k.start(t)
			time.Sleep(delay)
			syscall.Kill(-cmd.Process.Pid, sig) // nice and btfstream
			cmd.Wait()
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			what := fmt.Sprintf("%v at %v: ", sig, delay.Round(time.Millisecond))
			var outcome string
			switch {
			case ws.Exited() && ws.ExitStatus() == 0:
				outcome = "finished first"
			case ws.Exited() && ws.ExitStatus() == 128+int(sig) && sig != syscall.SIGKILL:
				outcome = fmt.Sprintf("exit %d", ws.ExitStatus())
			case ws.Signaled() && ws.Signal() == sig:
				outcome = "killed by the signal"
			default:
				t.Errorf("%sstatus %v, stderr %q", what, cmd.ProcessState, cmd.Stderr.(*strings.Builder).String())
				continue
			}
			counts[outcome]++
			if outcome == "finished first" {
				length = length * 3 / 4
			} else {
				interrupted++
			}
			now := k.sums(t)
			for i, p := range k.watched {
				switch {
				case now[i] == before[i] && (outcome != "finished first" || before[i] == after[i]):
				case now[i] == after[i]:
					if outcome != "finished first" {
						counts["killed after the rename"]++
					}
				default:
					t.Errorf("%s%s (%s) holds neither the input nor the finished output", what, p, outcome)
				}
			}
			if extra := k.leftovers(); len(extra) > 0 {
				t.Errorf("%s%s: left %v", what, outcome, extra)
				for _, p := range extra {
					os.RemoveAll(p)
				}
			}
		}
		t.Logf("%v, %d tries: %v", sig, tries, counts)
		if interrupted < killTries() {
			t.Errorf("%v: %d of %d tries interrupted a run, want %d", sig, interrupted, tries, killTries())
		}
	}
}

// killDirs makes the output, $TMPDIR and --tmpdir directories of a test.
func killDirs(t *testing.T) (out, tmp, spill string) {
	w := t.TempDir()
	out, tmp, spill = filepath.Join(w, "out"), filepath.Join(w, "tmp"), filepath.Join(w, "spill")
	for _, d := range []string{out, tmp, spill} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return out, tmp, spill
}

func TestKillModuleInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	kernel := kernel612(t)
	kos, _ := kernelModules(kernel)
	var xfs string
	for _, ko := range kos {
		if filepath.Base(ko) == "xfs.ko" {
			xfs = ko
		}
	}
	if xfs == "" {
		t.Skip("no xfs.ko next to the kernel")
	}
	out, tmp, spill := killDirs(t)
	orig := filepath.Join(filepath.Dir(out), "xfs.ko.orig")
	copyFile(t, xfs, orig)
	cp := filepath.Join(out, "xfs.ko")
	killLoop(t, &killRun{
		bin: btfstreamBin(t),
		args: []string{"-J", "-j1", "--btf_features=" + kbuildFeatures, "--lang_exclude=rust",
			"--btf_base", kernel, "--tmpdir", spill, cp},
		env:     []string{"TMPDIR=" + tmp},
		watched: []string{cp},
		dirs:    []string{out, tmp, spill},
		keep:    map[string]bool{"xfs.ko": true},
		reset:   func(t *testing.T) { copyFile(t, orig, cp) },
	})
}

func TestKillVmlinuxDetached(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	kernel := kernel612(t)
	out, tmp, spill := killDirs(t)
	raw := filepath.Join(out, "vmlinux.btf")
	st0, err := os.Stat(kernel)
	if err != nil {
		t.Fatal(err)
	}
	sum0 := fileSum(t, kernel)
	killLoop(t, &killRun{
		bin: btfstreamBin(t),
		args: []string{"-J", "-j2", "--btf_features=" + kbuildFeatures, "--lang_exclude=rust",
			"--tmpdir", spill, "--btf_encode_detached", raw, kernel},
		env:     []string{"TMPDIR=" + tmp},
		watched: []string{raw},
		dirs:    []string{out, tmp, spill},
		keep:    map[string]bool{"vmlinux.btf": true},
		reset: func(t *testing.T) {
			os.Remove(raw)
			if st, err := os.Stat(kernel); err != nil || st.Size() != st0.Size() || !st.ModTime().Equal(st0.ModTime()) {
				t.Fatalf("the input %s changed", kernel)
			}
		},
	})
	if fileSum(t, kernel) != sum0 {
		t.Errorf("the input %s changed", kernel)
	}
}

// TestKillSpilling: the same at the vmlinux's memory floor, where the
// function states and the old table go to spill files in --tmpdir. They
// are unnamed (O_TMPFILE), so no signal, SIGKILL included, leaves one;
// the uninterrupted run must have spilled for the test to mean anything.
// Fewer tries (a third of BTFSTREAM_KILL_TRIES, at least 3): a run at the
// floor takes twice as long.
func TestKillSpilling(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	kernel := kernel612(t)
	bin := btfstreamBin(t)
	floor, err := exec.Command(bin, "--mem-floor", kernel).Output()
	if err != nil {
		t.Fatalf("--mem-floor: %v", err)
	}
	limit := strings.TrimSpace(string(floor))
	out, tmp, spill := killDirs(t)
	raw := filepath.Join(out, "vmlinux.btf")
	args := []string{"-J", "-j1", "--btf_features=" + kbuildFeatures, "--lang_exclude=rust", "--mem-limit", limit,
		"--tmpdir", spill, "--btf_encode_detached", raw, kernel}
	summary, err := exec.Command(bin, append([]string{"--summary"}, args...)...).CombinedOutput()
	if err != nil || strings.Contains(string(summary), "spilled 0 bytes") || !strings.Contains(string(summary), "spilled ") {
		t.Fatalf("at --mem-limit %s: %v, %s; want bytes spilled", limit, err, summary)
	}
	t.Logf("%s", strings.TrimSpace(string(summary)))
	os.Remove(raw)
	t.Setenv("BTFSTREAM_KILL_TRIES", strconv.Itoa(max(killTries()/3, 3)))
	killLoop(t, &killRun{
		bin:     bin,
		args:    args,
		env:     []string{"TMPDIR=" + tmp},
		watched: []string{raw},
		dirs:    []string{out, tmp, spill},
		keep:    map[string]bool{"vmlinux.btf": true},
		reset:   func(t *testing.T) { os.Remove(raw) },
	})
}
