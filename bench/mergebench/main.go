// Command mergebench times the pipeline's stages apart, on one goroutine:
// it encodes every unit of a file once (decode, encode, dedup's Prepare,
// each timed), keeps the batches, then merges them REPS times into a new
// merger (the serial path: Merger.Add in file order, then Funcs and
// Finish), so the serial path can be measured, profiled and compared
// before and after a change without the workers' noise. Before each Add,
// a Preparer of the merger prepares again, and resolves against the
// merger's newest table, the batch LAG units ahead (the workers' share
// in the pipeline, timed apart; -lag -1: no resolving by workers).
//
//	go run ./bench/mergebench [-reps 5] [-lag 2] [-cpuprofile merge.out] VMLINUX
//
// It prints the CPU seconds of each stage (the serial ones are the
// minimum over the repetitions), how many components the merger took as
// resolved and resolved again, and a checksum of the output, which must
// not change.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/encode"
	"github.com/btfstream/btfstream/stream/merge"
)

func main() {
	reps := flag.Int("reps", 5, "merges of the kept batches")
	lag := flag.Int("lag", 0, "units between a batch's resolving against the table and its Add (-1: no resolving)")
	prof := flag.String("cpuprofile", "", "profile of the merges here")
	wprof := flag.String("workprofile", "", "profile of the workers' share (decode, encode, prepare) here")
	flag.IntVar(&maxUnits, "units", 0, "keep only the first N units (0: all), e.g. to run under valgrind")
	flag.Parse()
	if err := run(flag.Arg(0), *reps, *lag, *prof, *wprof); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// cpu returns the process's user+sys CPU time.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var maxUnits int

type unit struct {
	b *encode.Batch
	p *merge.Prepared
}

func run(path string, reps, lag int, prof, wprof string) error {
	feat, err := encode.ParseFeatures("encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs")
	if err != nil {
		return err
	}
	f, err := dwarfread.Open(path, dwarfread.Options{})
	if err != nil {
		return err
	}
	defer f.Close()
	ef := f.ELF()
	syms, err := encode.ReadSymbols(ef, func(shndx uint32) bool {
		return shndx < uint32(len(ef.Sections)) && encode.VarIncluded(ef.Sections[shndx].Name, feat)
	})
	if err != nil {
		return err
	}
	if err := encode.MarkKfuncs(ef, syms); err != nil {
		return err
	}
	enc, err := encode.New(f, syms, encode.Config{Features: feat})
	if err != nil {
		return err
	}
	secNames := make([]string, len(ef.Sections))
	for i := range ef.Sections {
		secNames[i] = ef.Sections[i].Name
	}
	ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, LangExclude: []string{"rust"}, NoTypeUnits: true})
	if err != nil {
		return err
	}
	w, pp := enc.NewWorker(), merge.NewPreparer()
	if wprof != "" {
		pf, err := os.Create(wprof)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(pf)
	}
	var units []unit
	largest, total := 0, 0
	var tRead, tDecode, tEncode, tPrepare time.Duration
	for {
		t := cpu()
		cu, err := ur.Next()
		tRead += cpu() - t
		if err != nil {
			return err
		}
		if cu == nil || maxUnits > 0 && len(units) == maxUnits {
			break
		}
		t = cpu()
		if err := cu.Decode(); err != nil {
			return err
		}
		tDecode += cpu() - t
		if ur.Excluded(cu) {
			continue
		}
		if encode.Skip(cu) {
			cu.Release()
			continue
		}
		t = cpu()
		b, err := w.Encode(cu, nil)
		cu.Release()
		if err != nil {
			return err
		}
		tEncode += cpu() - t
		t = cpu()
		p, err := pp.Prepare(b, nil)
		if err != nil {
			return err
		}
		tPrepare += cpu() - t
		units = append(units, unit{b, p})
		largest = max(largest, b.Types.Len())
		total += b.Types.Len()
	}
	ur.Close()
	if wprof != "" {
		pprof.StopCPUProfile()
	}
	fmt.Printf("units %d (%d types, largest %d): read %.3fs decode %.3fs encode %.3fs prepare %.3fs\n", len(units), total, largest,
		tRead.Seconds(), tDecode.Seconds(), tEncode.Seconds(), tPrepare.Seconds())
	orig := make([][]encode.FuncState, len(units))
	for i := range units {
		orig[i] = cloneFuncs(units[i].b.Funcs)
	}
	runtime.GC()
	if prof != "" {
		pf, err := os.Create(prof)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(pf)
		defer pprof.StopCPUProfile()
	}
	best := [4]time.Duration{1 << 62, 1 << 62, 1 << 62, 1 << 62}
	var sum [32]byte
	for r := 0; r < reps; r++ {
		m, err := merge.New(merge.Config{Features: feat, Syms: syms, SectionNames: secNames})
		if err != nil {
			return err
		}
		// Add rewrites the function states in place: merge copies.
		for i := range units {
			units[i].b.Funcs = cloneFuncs(orig[i])
		}
		var tAdd, tResolve time.Duration
		if lag >= 0 {
			rp := m.NewPreparer()
			resolve := func(i int) error {
				if i < len(units) {
					units[i].p.Restore() // an earlier repetition's Prepare moved the edges
					t := cpu()
					_, err := rp.Prepare(units[i].b, units[i].p)
					tResolve += cpu() - t
					return err
				}
				return nil
			}
			for i := 0; i < lag; i++ {
				if err := resolve(i); err != nil {
					return err
				}
			}
			for i, u := range units {
				if err := resolve(i + lag); err != nil {
					return err
				}
				t := cpu()
				if err := m.Add(u.b, u.p); err != nil {
					return err
				}
				tAdd += cpu() - t
			}
		} else {
			t := cpu()
			for _, u := range units {
				if err := m.Add(u.b, u.p); err != nil {
					return err
				}
			}
			tAdd = cpu() - t
		}
		replayed, resolved := m.Replays()
		t := cpu()
		if _, _, err := m.Funcs(); err != nil {
			return err
		}
		tFuncs := cpu() - t
		t = cpu()
		out, err := m.Finish(binary.LittleEndian)
		if err != nil {
			return err
		}
		tFinish := cpu() - t
		s := sha256.Sum256(out.Marshal())
		if r > 0 && s != sum {
			return fmt.Errorf("repetition %d: output differs", r)
		}
		sum = s
		fmt.Printf("merge: add %.3fs funcs %.3fs finish %.3fs; workers: prepare+resolve %.3fs; components replayed %d, resolved again %d\n",
			tAdd.Seconds(), tFuncs.Seconds(), tFinish.Seconds(), tResolve.Seconds(), replayed, resolved)
		best[0], best[1], best[2], best[3] = min(best[0], tAdd), min(best[1], tFuncs), min(best[2], tFinish), min(best[3], tResolve)
		m.Close()
		runtime.GC()
	}
	fmt.Printf("best: add %.3fs funcs %.3fs finish %.3fs serial %.3fs; prepare+resolve %.3fs; output sha256 %x\n",
		best[0].Seconds(), best[1].Seconds(), best[2].Seconds(), (best[0] + best[1] + best[2]).Seconds(), best[3].Seconds(), sum[:8])
	return nil
}

func cloneFuncs(fs []encode.FuncState) []encode.FuncState {
	out := make([]encode.FuncState, len(fs))
	for i, f := range fs {
		f.Params = append([]encode.FuncParam(nil), f.Params...)
		f.Annots = append([]encode.FuncAnnot(nil), f.Annots...)
		out[i] = f
	}
	return out
}
