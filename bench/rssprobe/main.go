// Command rssprobe encodes a module like `btfstream -J --btf_base` and
// prints, after each step (base read, parsed, strings owned, checked,
// string index, encoded, validated, marshaled), the process's RSS
// (anonymous and file-backed) and the Go heap, to see where a small
// module's peak RSS goes. The base is read in the old way (ReadBTF, Parse,
// Own) so each part shows.
//
//	go run ./bench/rssprobe [-live] [-dedup] [-gc 50] [-heapprofile F] [-peakprofile F] -base VMLINUX_BTF MODULE.ko
//
// -live collects before each report (heap figures are then live bytes),
// -dedup builds dedup's base index on its own first to size it,
// -peakprofile keeps the heap profile of the largest live heap seen (run
// with a small -gc), -heapprofile writes the allocations of the run.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/stream"
	"github.com/btfstream/btfstream/stream/elffile"
)

func status() map[string]string {
	m := map[string]string{}
	for _, p := range []string{"/proc/self/status", "/proc/self/smaps_rollup"} {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok {
				m[k] = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))
			}
		}
		f.Close()
	}
	return m
}

var (
	live      = flag.Bool("live", false, "collect before each report: the heap figures are then live bytes")
	lastTotal uint64
	peakProf  *string
	asCmd     *bool
	forceGC   = flag.Bool("forcegc", false, "with -peakprofile: collect every 100 µs, so the profile catches the live peak")
	heapProf  *string
)

func snap(what string) {
	if *live {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	defer func() { lastTotal = ms.TotalAlloc }()
	fmt.Fprintf(os.Stderr, "%-22s allocated %6d KiB since the last step; ", what, (ms.TotalAlloc-lastTotal)>>10)
	s := status()
	fmt.Fprintf(os.Stderr, "%-22s RSS %6s HWM %6s anon %6s file %6s | heapAlloc %6d inuse %6d sys %6d released %6d total %6d KiB; gcs %d\n",
		what, s["VmRSS"], s["VmHWM"], s["RssAnon"], s["RssFile"], ms.HeapAlloc>>10, ms.HeapInuse>>10, ms.HeapSys>>10, ms.HeapReleased>>10, (ms.Sys-ms.HeapReleased)>>10, ms.NumGC)
}

func main() {
	base := flag.String("base", "", "base BTF")
	withDedup := flag.Bool("dedup", false, "build dedup's base index separately, to size it")
	heapProf = flag.String("heapprofile", "", "write a heap profile (MemProfileRate 1) after the encode")
	peakProf = flag.String("peakprofile", "", "write the heap profile of the largest live heap seen during the encode (run with a small -gc)")
	asCmd = flag.Bool("load", false, "load the base as btfstream -J does (elffile.LoadBaseForProcess) instead of step by step")
	gc := flag.Int("gc", stream.ModuleGCPercent, "GC percent")
	flag.Parse()
	if *heapProf != "" || *peakProf != "" {
		runtime.MemProfileRate = 1
	}
	debug.SetGCPercent(*gc)
	snap("start")
	var b *btf.Spec
	if *asCmd {
		var err error
		if b, err = elffile.LoadBaseForProcess(*base); err != nil {
			panic(err)
		}
		snap("base loaded")
	} else {
		b = oldLoad(*base)
	}
	encode(b, *withDedup)
}

// oldLoad reads the base in the old way (ReadBTF, Parse, Own), each step
// reported.
func oldLoad(base string) *btf.Spec {
	f, err := os.Open(base)
	if err != nil {
		panic(err)
	}
	st, _ := f.Stat()
	raw, err := elffile.ReadBTF(base, f, st.Size())
	f.Close()
	if err != nil {
		panic(err)
	}
	snap("base read")
	b, err := btf.Parse(raw, nil)
	if err != nil {
		panic(err)
	}
	snap("parsed")
	b.Strings().Own()
	raw = nil
	snap("strings owned")
	if err := b.CheckStructure(); err != nil {
		panic(err)
	}
	snap("structure checked")
	b.Strings().Find([]byte("task_struct"))
	snap("string index")
	return b
}

// encode encodes the module over base b as `btfstream -J` does.
func encode(b *btf.Spec, withDedup bool) {
	if withDedup {
		d, err := dedup.NewIncremental(b)
		if err != nil {
			panic(err)
		}
		snap("dedup base index")
		runtime.KeepAlive(d)
	}
	if *peakProf != "" {
		go watchPeak(*peakProf)
	}
	opts := stream.DefaultEncodeOptions()
	opts.Jobs = 1
	opts.Base = b
	opts.Features, _ = stream.ParseFeatures("encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs")
	opts.LangExclude = []string{"rust"}
	spec, _, err := stream.EncodeFile(flag.Arg(0), opts)
	if err != nil {
		panic(err)
	}
	snap("encoded")
	if err := spec.ValidateWith(btf.ValidateOptions{TrustBase: true}); err != nil {
		panic(err)
	}
	snap("validated")
	out := spec.Marshal()
	snap("marshaled")
	mappings()
	runtime.KeepAlive(out)
	if *heapProf != "" {
		runtime.GC()
		w, _ := os.Create(*heapProf)
		pprof.Lookup("allocs").WriteTo(w, 0)
		w.Close()
	}
}

// mappings prints the mappings of the process holding more than 64 KiB
// of RSS.
func mappings() {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var head string
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		if len(fs) > 0 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
			head = line
			continue
		}
		if len(fs) >= 2 && fs[0] == "Rss:" {
			var kb int
			fmt.Sscan(fs[1], &kb)
			if kb > 64 {
				fmt.Fprintf(os.Stderr, "%6d kB  %s\n", kb, head)
			}
		}
	}
}

// watchPeak polls the live heap and, at each new maximum, writes the heap
// profile (as of the last collection, which found that live heap) to path.
func watchPeak(path string) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	for {
		if *forceGC {
			runtime.GC()
		}
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak {
			peak = v
			var buf bytes.Buffer
			pprof.Lookup("heap").WriteTo(&buf, 0)
			os.WriteFile(path, buf.Bytes(), 0o644)
			fmt.Fprintf(os.Stderr, "peak live heap %d KiB\n", v>>10)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
