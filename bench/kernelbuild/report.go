package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// report is what a run measured, to print and to save.
type report struct {
	c            *config
	args         []string      // the command line, to print
	compare      time.Duration // spent comparing module outputs (in this process, between runs)
	vm           *vmRuns
	mods         []modRow
	named        []namedRow
	load0, load1 string
	elapsed      time.Duration
}

const mib = 1024.0

// medians returns the median wall, CPU and peak RSS (KiB) of ms.
func medians(ms []measure) (wall, cpu, rss float64) {
	var w, c, r []float64
	for _, m := range ms {
		w = append(w, m.wall)
		c = append(c, m.cpu)
		r = append(r, float64(m.rssKiB))
	}
	return median(w), median(c), median(r)
}

// writeTSV saves every run: vmlinux.tsv (tool, jobs, repeat), modules.tsv
// (module, tool, equal to pahole's), named.tsv (module, tool, repeat),
// each with wall_s, cpu_s (user+sys) and rss_kib.
func (r *report) writeTSV() error {
	write := func(name, header string, rows func(w io.Writer)) error {
		f, err := os.Create(filepath.Join(r.c.out, name))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		fmt.Fprintln(w, header)
		rows(w)
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	err := write("vmlinux.tsv", "tool\tjobs\trepeat\twall_s\tcpu_s\trss_kib", func(w io.Writer) {
		for k, t := range r.c.tools {
			for ji, runs := range r.vm.runs[k] {
				for i, m := range runs {
					fmt.Fprintf(w, "%s\t%d\t%d\t%.3f\t%.3f\t%d\n", t.name, ji+1, i+1, m.wall, m.cpu, m.rssKiB)
				}
			}
		}
	})
	if err != nil {
		return err
	}
	err = write("modules.tsv", "module\ttool\twall_s\tcpu_s\trss_kib\tvs_pahole", func(w io.Writer) {
		for _, row := range r.mods {
			if row.err != nil {
				fmt.Fprintf(w, "%s\t-\t-\t-\t-\terror: %s\n", row.rel, oneLine(row.err.Error()))
				continue
			}
			for k, t := range r.c.tools {
				status := "reference"
				if k > 0 {
					status = row.status[k]
				}
				if status == "" {
					status = "not compared"
				}
				m := row.m[k]
				fmt.Fprintf(w, "%s\t%s\t%.3f\t%.3f\t%d\t%s\n", row.rel, t.name, m.wall, m.cpu, m.rssKiB, status)
			}
		}
	})
	if err != nil {
		return err
	}
	return write("named.tsv", "module\ttool\trepeat\twall_s\tcpu_s\trss_kib", func(w io.Writer) {
		for _, row := range r.named {
			for k, t := range r.c.tools {
				for i, m := range row.runs[k] {
					fmt.Fprintf(w, "%s\t%s\t%d\t%.3f\t%.3f\t%d\n", row.name, t.name, i+1, m.wall, m.cpu, m.rssKiB)
				}
			}
		}
	})
}

func oneLine(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "\t", " ") }

func (r *report) print(w io.Writer) {
	c := r.c
	fmt.Fprintf(w, "command: kernelbuild %s\n", strings.Join(r.args, " "))
	fmt.Fprintf(w, "kernel: %s\n", c.vmlinux)
	fmt.Fprintf(w, "tools: %s\n", toolList(c.tools))
	base := "each tool's modules over its own vmlinux BTF (-j1 output), as in a kernel build"
	if c.paholeBase {
		base = "every tool's modules over pahole's vmlinux BTF (-pahole-base)"
	}
	fmt.Fprintf(w, "host: %d CPUs, load average %s at start, %s at end; JOBS=%d, R=%d; %s\n",
		runtime.NumCPU(), r.load0, r.load1, c.jobs, c.repeats, base)
	fmt.Fprintf(w, "note: wall times and their ratios mean something only with JOBS=1 on a quiet host;\n"+
		"      CPU (user+sys) and peak RSS come from wait4 and hold on a shared host too\n")
	r.printVmlinux(w)
	r.printModules(w)
	r.printNamed(w)
	fmt.Fprintf(w, "elapsed: %.0f s; raw rows in %s (vmlinux.tsv, modules.tsv, named.tsv)\n", r.elapsed.Seconds(), c.out)
}

// row prints one line of a medians table: tool, label, the medians and
// their ratios to pahole's (ref).
func tableRow(w io.Writer, first, name string, m, ref [3]float64, isRef bool) {
	fmt.Fprintf(w, "%-12s %-10s %8.2f %8.2f %8.1f", first, name, m[0], m[1], m[2]/mib)
	if isRef {
		fmt.Fprintf(w, " %7s %7s %7s\n", "-", "-", "-")
		return
	}
	fmt.Fprintf(w, " %7.2f %7.2f %7.2f\n", ratio(m[0], ref[0]), ratio(m[1], ref[1]), ratio(m[2], ref[2]))
}

func tableHeader(w io.Writer, first string) {
	fmt.Fprintf(w, "%-12s %-10s %8s %8s %8s %7s %7s %7s\n", first, "tool", "wall s", "CPU s", "RSS MiB", "wall×", "CPU×", "RSS×")
}

func (r *report) printVmlinux(w io.Writer) {
	c := r.c
	fmt.Fprintf(w, "\nvmlinux: %d alternating repeats, medians; ratios to pahole at the same -j\n", c.repeats)
	tableHeader(w, "")
	for ji := 0; ji < 2; ji++ {
		var ref [3]float64
		ref[0], ref[1], ref[2] = medians(r.vm.runs[0][ji])
		for k, t := range c.tools {
			var m [3]float64
			m[0], m[1], m[2] = medians(r.vm.runs[k][ji])
			tableRow(w, fmt.Sprintf("-j%d", ji+1), t.name, m, ref, k == 0)
		}
	}
	for k, t := range c.tools[1:] {
		fmt.Fprintf(w, "%s: %s\n", t.name, r.vm.checks[k+1])
	}
}

func (r *report) printModules(w io.Writer) {
	c := r.c
	var ok []modRow
	var failed []string
	for _, row := range r.mods {
		if row.err != nil {
			failed = append(failed, row.rel+": "+oneLine(row.err.Error()))
			continue
		}
		ok = append(ok, row)
	}
	fmt.Fprintf(w, "\nmodules: %d (each tool -j1, in rotating order; JOBS=%d)", len(r.mods), c.jobs)
	if len(failed) > 0 {
		fmt.Fprintf(w, "; %d failed and are left out:\n", len(failed))
		for _, f := range failed {
			fmt.Fprintf(w, "  %.300s\n", f)
		}
	} else {
		fmt.Fprintln(w)
	}
	var total [][2]float64 // by tool: wall, CPU
	for k := range c.tools {
		var t [2]float64
		for _, row := range ok {
			t[0] += row.m[k].wall
			t[1] += row.m[k].cpu
		}
		total = append(total, t)
	}
	fmt.Fprintf(w, "%-10s %12s %7s %12s %7s\n", "tool", "total wall s", "×", "total CPU s", "×")
	for k, t := range c.tools {
		fmt.Fprintf(w, "%-10s %12.1f %7.3f %12.1f %7.3f\n", t.name, total[k][0], ratio(total[k][0], total[0][0]),
			total[k][1], ratio(total[k][1], total[0][1]))
	}
	for k, t := range c.tools[1:] {
		k++
		var cpu, rss, ownRSS, refRSS []float64
		cheaper, bigger := 0, 0
		for _, row := range ok {
			cr := ratio(row.m[k].cpu, row.m[0].cpu)
			rr := ratio(float64(row.m[k].rssKiB), float64(row.m[0].rssKiB))
			cpu = append(cpu, cr)
			rss = append(rss, rr)
			ownRSS = append(ownRSS, float64(row.m[k].rssKiB))
			refRSS = append(refRSS, float64(row.m[0].rssKiB))
			if cr < 1 {
				cheaper++
			}
			if row.m[k].rssKiB > row.m[0].rssKiB {
				bigger++
			}
		}
		if len(ok) == 0 {
			continue
		}
		mc, mr := argmax(cpu), argmax(rss)
		fmt.Fprintf(w, "%s/pahole per module: CPU ratio median %.2f, p90 %.2f, max %.2f (%s); cheaper on %d of %d\n",
			t.name, median(cpu), percentile(cpu, 90), cpu[mc], ok[mc].rel, cheaper, len(ok))
		fmt.Fprintf(w, "%s/pahole per module: peak RSS ratio median %.2f, p90 %.2f, max %.2f (%s); above pahole's on %d of %d; median RSS %.1f vs %.1f MiB\n",
			t.name, median(rss), percentile(rss, 90), rss[mr], ok[mr].rel, bigger, len(ok), median(ownRSS)/mib, median(refRSS)/mib)
	}
	if c.skipEqual {
		fmt.Fprintln(w, "module outputs not compared with pahole's (-equal=false)")
		return
	}
	for k, t := range c.tools[1:] {
		k++
		if !c.compares(t.name) {
			fmt.Fprintf(w, "%s: module outputs not compared with pahole's (-equal-tools)\n", t.name)
			continue
		}
		var differ []string
		for _, row := range ok {
			if !row.equal[k] {
				differ = append(differ, fmt.Sprintf("  %s: %s", row.rel, row.status[k]))
			}
		}
		fmt.Fprintf(w, "%s: %d of %d module outputs not equal to pahole's as graphs\n", t.name, len(differ), len(ok))
		for _, d := range differ {
			fmt.Fprintf(w, "%.300s\n", d)
		}
	}
	fmt.Fprintf(w, "(equality: %.0f s in all, in this process between the runs)\n", r.compare.Seconds())
	if !c.paholeBase && len(c.tools) > 1 {
		fmt.Fprintln(w, "(a module over another tool's base is distilled and relocated onto pahole's base to compare: named base types match by name and size)")
	}
}

func (r *report) printNamed(w io.Writer) {
	if len(r.named) == 0 {
		return
	}
	fmt.Fprintf(w, "\nnamed modules: %d alternating repeats each, medians; ratios to pahole\n", r.c.repeats)
	tableHeader(w, "module")
	for _, row := range r.named {
		var ref [3]float64
		ref[0], ref[1], ref[2] = medians(row.runs[0])
		for k, t := range r.c.tools {
			var m [3]float64
			m[0], m[1], m[2] = medians(row.runs[k])
			tableRow(w, row.name, t.name, m, ref, k == 0)
		}
	}
}
