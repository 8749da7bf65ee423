// Command kernelbuild measures what a kernel build's BTF costs with pahole
// (the 1.32 reference) and with one or more btfstream binaries, side by
// side in one run, and checks their outputs equal pahole's (issue 18).
// bench/kernel_build.sh runs it.
//
//	go run ./bench/kernelbuild [-tool NAME=PATH]... [-pahole PATH] [-r 3] [-jobs 1]
//	    [-out DIR] [-modules N] [-match REGEX] [-pahole-base] [-equal=false] [-equal-tools NAME,...] [-keep] [VMLINUX]
//
// VMLINUX is a kernel from `kernel-dbg.sh --modules all` (default: the 7.2
// cloud-amd64 one in the test cache); its modules are every .ko under
// ROOT/lib/modules/VERSION/kernel. Without -tool, ./cmd/btfstream is built
// into OUT as "btfstream". Every tool runs with kbuild's flags (pahole
// also with reproducible_build), detached output: the kernel's files are
// never changed.
//
//   - vmlinux: each tool at -j1 and -j2, R alternating repeats (the order
//     of the tools rotates each repeat); medians of wall, user+sys CPU and
//     peak RSS, and their ratios to pahole's. Each btfstream output must be
//     byte-identical at -j1 and -j2 and equal to pahole's as a type graph.
//   - modules: every .ko, each tool at -j1 over its own vmlinux BTF (-j1
//     output), as in a kernel build (with -pahole-base: all over pahole's);
//     per module the tools run one after another, in an order that rotates
//     from module to module; JOBS modules at once. Totals, the per-module
//     CPU and peak RSS ratios to pahole (median, p90, max) and how many
//     outputs are not equal to pahole's (see comparer for modules split
//     over different bases; ~0.45 s a module per tool on 7.2, between the
//     runs; -equal=false skips it).
//   - xfs, nf_tables, sctp, tcp_bbr, virtio_net again, R alternating
//     repeats each, medians (one run of a small module is noisy).
//
// Wall time is measured around each run; CPU and peak RSS come from wait4
// (the rusage of the exited process). Wall ratios mean something only with
// JOBS=1 on a quiet host; on a shared host trust CPU and RSS. OUT gets the
// raw rows as TSV (vmlinux.tsv, modules.tsv, named.tsv) and, with -keep,
// every module's BTF. A full 7.2 run (1,018 modules) takes ~10 CPU-minutes
// per tool plus the vmlinux repeats; it is not part of CI.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/btfstream/btfstream/btf"
)

const (
	defaultKernel = "/root/.cache/btfstream-testdata/linux-image-7.2.13+deb14-cloud-amd64-dbg/usr/lib/debug/boot/vmlinux-7.2.13+deb14-cloud-amd64"
	defaultPahole = "/work/shared/reference/pahole-1.32/pahole"
)

var namedModules = []string{"xfs", "nf_tables", "sctp", "tcp_bbr", "virtio_net"}

type config struct {
	vmlinux, modDir, out string
	tools                []tool // tools[0] is pahole
	repeats, jobs        int
	paholeBase, keep     bool
	skipEqual            bool            // -equal=false: no module equality checks
	equalTools           map[string]bool // -equal-tools: only these tools' modules are compared (nil: all)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == measureArg {
		os.Exit(measureChild(os.Args[2:]))
	}
	var tools toolFlag
	flag.Var(&tools, "tool", "a btfstream binary to measure, as NAME=PATH (repeatable; default: build ./cmd/btfstream as \"btfstream\")")
	pahole := flag.String("pahole", defaultPahole, "the reference pahole")
	repeats := flag.Int("r", 3, "alternating repeats for the vmlinux rows and the named modules")
	jobs := flag.Int("jobs", 1, "modules encoded at once (each tool at -j1); wall ratios need 1 on a quiet host")
	out := flag.String("out", "", "directory for the raw rows and outputs (default: a new one under /tmp)")
	nmods := flag.Int("modules", 0, "encode only this many modules, spread evenly over the sorted list (0: all)")
	match := flag.String("match", "", "encode only the modules whose path under kernel/ matches this regexp")
	paholeBase := flag.Bool("pahole-base", false, "encode every tool's modules over pahole's vmlinux BTF instead of the tool's own")
	keep := flag.Bool("keep", false, "keep every module's BTF in OUT")
	equal := flag.Bool("equal", true, "check every module output equal to pahole's (~0.45 s a module per tool, in this process between the runs)")
	equalTools := flag.String("equal-tools", "", "compare only these btfstream tools' module outputs (comma-separated names; default: all)")
	flag.Parse()
	if flag.NArg() > 1 || *repeats < 1 || *jobs < 1 {
		flag.Usage()
		os.Exit(2)
	}
	c := config{vmlinux: defaultKernel, repeats: *repeats, jobs: *jobs, paholeBase: *paholeBase, keep: *keep, skipEqual: !*equal}
	if flag.NArg() == 1 {
		c.vmlinux = flag.Arg(0)
	}
	if *equalTools != "" {
		c.equalTools = map[string]bool{}
		for _, n := range strings.Split(*equalTools, ",") {
			c.equalTools[n] = true
		}
	}
	if err := run(&c, *pahole, tools, *out, *nmods, *match); err != nil {
		fmt.Fprintln(os.Stderr, "kernelbuild:", err)
		os.Exit(1)
	}
}

func run(c *config, pahole string, tools toolFlag, out string, nmods int, match string) error {
	var err error
	if out == "" {
		if out, err = os.MkdirTemp("", "kernelbuild."); err != nil {
			return err
		}
	}
	c.out = out
	for _, d := range []string{"vmlinux", "modules"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return err
		}
	}
	if len(tools) == 0 {
		bin := filepath.Join(out, "btfstream")
		// Built as the README recommends for kernel builds: static
		// (no libc pages, about 1.2 MiB less RSS per encode).
		b := exec.Command("go", "build", "-o", bin, "./cmd/btfstream")
		b.Env = append(os.Environ(), "CGO_ENABLED=0")
		b.Stdout, b.Stderr = os.Stderr, os.Stderr
		if err := b.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/btfstream: %v", err)
		}
		tools = toolFlag{{name: "btfstream", path: bin}}
	}
	c.tools = append([]tool{{name: "pahole", path: pahole, pahole: true}}, tools...)
	for i, t := range c.tools {
		if c.tools[i].path, err = filepath.Abs(t.path); err != nil {
			return err
		}
	}
	if c.modDir, err = moduleDir(c.vmlinux); err != nil {
		return err
	}
	mods, err := listModules(c.modDir)
	if err != nil {
		return err
	}
	all := mods
	if match != "" {
		re, err := regexp.Compile(match)
		if err != nil {
			return fmt.Errorf("-match: %v", err)
		}
		var keep []string
		for _, m := range mods {
			if re.MatchString(m) {
				keep = append(keep, m)
			}
		}
		mods = keep
	}
	mods = sample(mods, nmods)

	start := time.Now()
	load0 := loadAverage()
	fmt.Fprintf(os.Stderr, "kernelbuild: %d modules, tools %s; output in %s\n", len(mods), toolList(c.tools), out)
	vm, err := c.vmlinuxRows()
	if err != nil {
		return err
	}
	cmpr := &comparer{bases: map[string]*btf.Spec{}}
	if !c.skipEqual {
		if err := c.loadBases(cmpr); err != nil {
			return err
		}
	}
	mr, err := c.moduleRows(mods, cmpr)
	if err != nil {
		return err
	}
	named, err := c.namedRows(all)
	if err != nil {
		return err
	}
	r := report{c: c, args: os.Args[1:], compare: cmpr.spent, vm: vm, mods: mr, named: named, load0: load0, load1: loadAverage(), elapsed: time.Since(start)}
	if err := r.writeTSV(); err != nil {
		return err
	}
	r.print(os.Stdout)
	return nil
}

// moduleDir returns ROOT/lib/modules/VERSION/kernel for ROOT/boot/vmlinux-VERSION.
func moduleDir(vmlinux string) (string, error) {
	root, _, ok := strings.Cut(vmlinux, "/boot/")
	_, ver, ok2 := strings.Cut(filepath.Base(vmlinux), "vmlinux-")
	if !ok || !ok2 {
		return "", fmt.Errorf("%s: not ROOT/boot/vmlinux-VERSION (kernel-dbg.sh's layout)", vmlinux)
	}
	d := filepath.Join(root, "lib/modules", ver, "kernel")
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s: no modules (kernel-dbg.sh --modules all)", d)
	}
	return d, nil
}

// listModules returns every .ko under dir, as sorted paths relative to it.
func listModules(dir string) ([]string, error) {
	var mods []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".ko") {
			rel, _ := filepath.Rel(dir, p)
			mods = append(mods, rel)
		}
		return nil
	})
	sort.Strings(mods)
	if err == nil && len(mods) == 0 {
		err = fmt.Errorf("%s: no .ko files", dir)
	}
	return mods, err
}

func toolList(tools []tool) string {
	var s []string
	for _, t := range tools {
		s = append(s, t.name+"="+t.path)
	}
	return strings.Join(s, " ")
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// vmRuns are the vmlinux measurements: [tool][0 for -j1, 1 for -j2], one per repeat.
type vmRuns struct {
	runs   [][2][]measure
	checks []string // by tool: the output checks (btfstream tools)
}

func (c *config) vmOut(t tool, jobs int) string {
	return filepath.Join(c.out, "vmlinux", fmt.Sprintf("%s-j%d.btf", t.name, jobs))
}

func (c *config) vmlinuxRows() (*vmRuns, error) {
	vm := &vmRuns{runs: make([][2][]measure, len(c.tools)), checks: make([]string, len(c.tools))}
	for r := 0; r < c.repeats; r++ {
		for ji, jobs := range []int{1, 2} {
			for _, t := range rotate(c.tools, r*2+ji) {
				fmt.Fprintf(os.Stderr, "vmlinux: repeat %d, %s -j%d\n", r+1, t.name, jobs)
				m, err := t.run(jobs, c.vmlinux, c.vmOut(t, jobs), "")
				if err != nil {
					return nil, err
				}
				i := c.index(t.name)
				vm.runs[i][ji] = append(vm.runs[i][ji], m)
			}
		}
	}
	for i, t := range c.tools[1:] {
		j1, err := os.ReadFile(c.vmOut(t, 1))
		if err != nil {
			return nil, err
		}
		j2, err := os.ReadFile(c.vmOut(t, 2))
		if err != nil {
			return nil, err
		}
		same := "byte-identical"
		if !bytes.Equal(j1, j2) {
			same = "DIFFER"
		}
		_, status, err := equalFiles(c.vmOut(c.tools[0], 1), c.vmOut(t, 1))
		if err != nil {
			return nil, err
		}
		vm.checks[i+1] = fmt.Sprintf("-j1 and -j2 outputs %s; -j1 vs pahole's as graphs: %s", same, status)
	}
	return vm, nil
}

func (c *config) index(name string) int {
	for i, t := range c.tools {
		if t.name == name {
			return i
		}
	}
	panic("kernelbuild: unknown tool " + name)
}

// base returns the vmlinux BTF tool t's modules are split over.
func (c *config) base(t tool) string {
	if c.paholeBase {
		return c.vmOut(c.tools[0], 1)
	}
	return c.vmOut(t, 1)
}

func (c *config) loadBases(cmpr *comparer) error {
	ref, err := loadSpec(c.base(c.tools[0]), nil)
	if err != nil {
		return err
	}
	cmpr.ref = ref
	for _, t := range c.tools[1:] {
		if c.base(t) == c.base(c.tools[0]) {
			cmpr.bases[t.name] = ref
			continue
		}
		if cmpr.bases[t.name], err = loadSpec(c.base(t), nil); err != nil {
			return err
		}
	}
	return nil
}

// modRow is one module: by tool, its measure and (btfstream tools) how
// its output compares with pahole's.
type modRow struct {
	rel    string
	m      []measure
	equal  []bool
	status []string
	err    error
}

// compares says whether tool's module outputs are checked against pahole's.
func (c *config) compares(tool string) bool {
	return !c.skipEqual && (c.equalTools == nil || c.equalTools[tool])
}

func flatName(rel string) string { return strings.ReplaceAll(rel, "/", "__") + ".btf" }

func (c *config) moduleRows(mods []string, cmpr *comparer) ([]modRow, error) {
	rows := make([]modRow, len(mods))
	for _, t := range c.tools {
		if err := os.MkdirAll(filepath.Join(c.out, "modules", t.name), 0o755); err != nil {
			return nil, err
		}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	start := time.Now()
	for w := 0; w < c.jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rows[i] = c.module(i, mods[i], cmpr)
				mu.Lock()
				done++
				if done%50 == 0 || done == len(mods) {
					fmt.Fprintf(os.Stderr, "modules: %d of %d, %.0f s\n", done, len(mods), time.Since(start).Seconds())
				}
				mu.Unlock()
			}
		}()
	}
	for i := range mods {
		next <- i
	}
	close(next)
	wg.Wait()
	return rows, nil
}

// module encodes module number i (rel) with every tool, the order
// rotating with i, and compares the btfstream outputs with pahole's.
func (c *config) module(i int, rel string, cmpr *comparer) modRow {
	n := len(c.tools)
	row := modRow{rel: rel, m: make([]measure, n), equal: make([]bool, n), status: make([]string, n)}
	in := filepath.Join(c.modDir, rel)
	outs := make([]string, n)
	for _, t := range rotate(c.tools, i) {
		k := c.index(t.name)
		outs[k] = filepath.Join(c.out, "modules", t.name, flatName(rel))
		m, err := t.run(1, in, outs[k], c.base(t))
		if err != nil {
			row.err = err
			return row
		}
		row.m[k] = m
	}
	for k := 1; k < n && !c.skipEqual; k++ {
		if !c.compares(c.tools[k].name) {
			continue
		}
		eq, status, err := cmpr.equalModule(outs[0], c.tools[k].name, outs[k])
		if err != nil {
			eq, status = false, "compare error: "+err.Error()
		}
		row.equal[k], row.status[k] = eq, status
	}
	if !c.keep {
		for _, o := range outs {
			os.Remove(o)
		}
	}
	return row
}

// namedRow is one named module: by tool, one measure per repeat.
type namedRow struct {
	name string
	runs [][]measure
}

func (c *config) namedRows(all []string) ([]namedRow, error) {
	var rows []namedRow
	for _, name := range namedModules {
		rel := ""
		for _, m := range all {
			if moduleName(m) == name {
				rel = m
				break
			}
		}
		if rel == "" {
			continue // not built in this kernel
		}
		row := namedRow{name: name, runs: make([][]measure, len(c.tools))}
		in := filepath.Join(c.modDir, rel)
		for r := 0; r < c.repeats; r++ {
			for _, t := range rotate(c.tools, r) {
				out := filepath.Join(c.out, "modules", t.name, "named-"+flatName(rel))
				m, err := t.run(1, in, out, c.base(t))
				if err != nil {
					return nil, err
				}
				k := c.index(t.name)
				row.runs[k] = append(row.runs[k], m)
				os.Remove(out)
			}
		}
		fmt.Fprintf(os.Stderr, "named: %s done\n", name)
		rows = append(rows, row)
	}
	return rows, nil
}
