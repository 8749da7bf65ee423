// Command decodestat decodes every unit of an ELF file's DWARF and prints
// the wall time, the peak RSS reported by the kernel (VmHWM), and the
// unit and DIE counts.
//
//	go run ./bench/decodestat [-j N] [-lang_exclude rust] FILE
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/btfstream/btfstream/stream/dwarfread"
)

func main() {
	jobs := flag.Int("j", 1, "decoding goroutines")
	exclude := flag.String("lang_exclude", "", "comma-separated DW_LANG names to skip")
	strs := flag.Bool("names", false, "also resolve every DW_AT_name")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: decodestat [-j N] [-lang_exclude rust] [-names] FILE")
		os.Exit(2)
	}
	start := time.Now()
	f, err := dwarfread.Open(flag.Arg(0), dwarfread.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	var opts dwarfread.UnitOptions
	opts.Jobs = *jobs
	if *exclude != "" {
		opts.LangExclude = []string{*exclude}
	}
	var units, dies, bytes, maxDIEs uint64
	for cu, err := range f.Units(opts) {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		units++
		n := uint64(cu.Len())
		dies += n
		maxDIEs = max(maxDIEs, n)
		bytes += cu.Length()
		if *strs {
			for id := range cu.Len() {
				cu.DIE(dwarfread.TagID(id)).Name()
			}
		}
		cu.Release()
	}
	wall := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("file=%s jobs=%d units=%d dies=%d max_unit_dies=%d bytes=%d wall=%.3fs peak_rss_kb=%d heap_sys_kb=%d gc=%d\n",
		flag.Arg(0), *jobs, units, dies, maxDIEs, bytes, wall.Seconds(), vmHWM(), ms.HeapSys>>10, ms.NumGC)
}

// vmHWM returns the peak resident set size in KiB from /proc/self/status.
func vmHWM() uint64 {
	fh, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kb uint64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			return kb
		}
	}
	return 0
}
