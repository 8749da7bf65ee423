package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// kbuildFeatures are the BTF features kbuild passes (scripts/Makefile.btf
// for pahole >= 1.26, as e2e uses them); pahole also gets
// reproducible_build.
const kbuildFeatures = "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs"

// tool is one encoder under test.
type tool struct {
	name   string // "pahole" for the reference
	path   string
	pahole bool
}

// args returns the command line kbuild would run: encode in to out
// (detached, the input is never changed) at -j jobs, over base if given.
func (t tool) args(jobs int, in, out, base string) []string {
	f := kbuildFeatures
	if t.pahole {
		f += ",reproducible_build"
	}
	a := []string{"-J", "-j" + strconv.Itoa(jobs), "--btf_features=" + f, "--lang_exclude=rust", "--btf_encode_detached", out}
	if base != "" {
		a = append(a, "--btf_base", base)
	}
	return append(a, in)
}

// measure is one run's cost: wall seconds, user+sys CPU seconds (from
// wait4's rusage) and peak RSS in KiB (ru_maxrss, KiB on Linux).
type measure struct {
	wall, cpu float64
	rssKiB    int64
}

// run runs t once and returns its cost; an error carries the tool's
// output. The tool runs under a fresh copy of this program in -measure
// mode (measureChild), not straight from here: Linux carries a process's
// peak RSS over exec, and Go starts children with vfork, so a child of this
// process (which holds the bases it compares against) would report at
// least this process's peak as its own. Under the small runner, the floor
// is the runner's few MiB.
func (t tool) run(jobs int, in, out, base string) (measure, error) {
	self, err := os.Executable()
	if err != nil {
		return measure{}, err
	}
	cmd := exec.Command(self, append([]string{measureArg, t.path}, t.args(jobs, in, out, base)...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return measure{}, fmt.Errorf("%s %v: %v\n%s", t.name, t.args(jobs, in, out, base), err, tail(stderr.Bytes(), 2000))
	}
	m, err := parseMeasure(stdout.String())
	if err != nil {
		return measure{}, fmt.Errorf("%s: %v", t.name, err)
	}
	return m, nil
}

// measureArg, as the first argument, makes this program run the command
// after it and print its cost (measureChild).
const measureArg = "-measure"

// measureChild runs argv, and on success prints its wall time and
// user+sys CPU in nanoseconds and its peak RSS in KiB, from wait4's
// rusage (formatMeasure); on failure it copies the command's output to
// stderr. It returns the exit status for this process.
func measureChild(argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "kernelbuild -measure: no command")
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	var log bytes.Buffer
	cmd.Stdout = &log
	cmd.Stderr = &log
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		os.Stderr.Write(log.Bytes())
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "kernelbuild -measure: no rusage from wait4")
		return 1
	}
	fmt.Println(formatMeasure(wall.Nanoseconds(), ru.Utime.Nano()+ru.Stime.Nano(), int64(ru.Maxrss)))
	return 0
}

// formatMeasure renders what measureChild prints: "WALL_NS CPU_NS RSS_KIB".
func formatMeasure(wallNs, cpuNs, rssKiB int64) string {
	return fmt.Sprintf("%d %d %d", wallNs, cpuNs, rssKiB)
}

// parseMeasure reads formatMeasure's line back.
func parseMeasure(s string) (measure, error) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return measure{}, fmt.Errorf("measure: want \"WALL_NS CPU_NS RSS_KIB\", got %q", s)
	}
	var v [3]int64
	for i, x := range f {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil || n < 0 {
			return measure{}, fmt.Errorf("measure: bad number %q in %q", x, s)
		}
		v[i] = n
	}
	return measure{wall: float64(v[0]) / 1e9, cpu: float64(v[1]) / 1e9, rssKiB: v[2]}, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// rotate returns tools starting at index k (mod len): run i of an
// alternating series starts with a different tool each time, so that no
// tool always runs first (with a cold cache) or last.
func rotate(tools []tool, k int) []tool {
	n := len(tools)
	out := make([]tool, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, tools[(i+k)%n])
	}
	return out
}
