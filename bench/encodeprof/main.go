// Command encodeprof encodes a file like `btfstream -J` and writes a CPU
// profile, to see where the time goes.
//
//	go run ./bench/encodeprof [-j N] [-n REPEAT] [-cpuprofile cpu.out] [-base VMLINUX] FILE
//
// The base is loaded inside the profiled region: for a module it is most of the cost.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream"
	"github.com/btfstream/btfstream/stream/elffile"
)

func main() {
	jobs := flag.Int("j", 1, "jobs")
	prof := flag.String("cpuprofile", "", "write a CPU profile here")
	base := flag.String("base", "", "base BTF for a module")
	memLimit := flag.Int64("mem-limit", 0, "memory limit in bytes (0: default, -1: none)")
	memProf := flag.String("memprofile", "", "write an allocation profile here")
	traceOut := flag.String("trace", "", "write an execution trace here")
	repeat := flag.Int("n", 1, "encode this many times (base load included), to profile small modules")
	flag.Parse()
	if *memProf != "" {
		runtime.MemProfileRate = 64 << 10
	}
	opts := stream.DefaultEncodeOptions()
	opts.Jobs = *jobs
	opts.MemLimit = *memLimit
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
		labelStages()
	}
	if *traceOut != "" {
		f, err := os.Create(*traceOut)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		trace.Start(f)
		defer trace.Stop()
	}
	start := time.Now()
	var firstUnit, lastUnit time.Duration
	opts.Progress = func(p stream.Progress) {
		if firstUnit == 0 {
			firstUnit = time.Since(start)
		}
		lastUnit = time.Since(start)
	}
	var spec *btf.Spec
	var st stream.EncodeStats
	for i := 0; i < *repeat; i++ {
		if *base != "" {
			b, err := elffile.LoadBTF(*base, nil)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			opts.Base = b
		}
		var err error
		spec, st, err = stream.EncodeFile(flag.Arg(0), opts)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "%d types, %d CUs, %.2fs (first unit merged at %.2fs, last at %.2fs); components replayed %d, resolved again %d\n",
		spec.Len(), st.CUs, time.Since(start).Seconds(), firstUnit.Seconds(), lastUnit.Seconds(), st.Replayed, st.Resolved)
	if *memProf != "" {
		f, err := os.Create(*memProf)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		runtime.GC() // the profile holds what the last GC saw: make it all
		pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
}

// labelStages labels the pipeline's CPU samples with pprof label "stage"
// (go tool pprof -tags): btfstream itself links no runtime/pprof, so the
// labels come through stream's hook.
func labelStages() {
	ctxs := map[string]context.Context{"": context.Background()}
	for _, s := range []string{"setup", "read", "work", "merge", "finish"} {
		ctxs[s] = pprof.WithLabels(context.Background(), pprof.Labels("stage", s))
	}
	stream.SetStageHook(func(s string) {
		if ctx, ok := ctxs[s]; ok {
			pprof.SetGoroutineLabels(ctx)
		}
	})
}
