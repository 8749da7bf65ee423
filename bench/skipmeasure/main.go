// Command skipmeasure measures what a vmlinux's units repeat (issue 18):
// how many batch types have a whole reachable closure that equals, type for
// type, a class an earlier unit put in the table, what share of the
// workers' CPU (encode, dedup Prepare and resolution) they cost, and how
// often a DIE-level key computed before encoding names them.
//
//	go run ./bench/skipmeasure [-units N] [-simulate=false] [-cpuprofile F] FILE
//
// It encodes on one goroutine and deduplicates with dedup.Incremental
// directly (no function merge, no index-type fix-up: arrays keep their
// unit's index int), so its table is the merger's up to those details.
// Times are this thread's CPU. It prints:
//
//   - types mapped to an earlier class, edge for edge, and closure-exact
//     (everything they reach too);
//   - the brief's cheap DIE key (key.go: attributes and referenced keys,
//     cycles cut by a shallow key): its hits, and how many of them had
//     another encoded closure (unsound);
//   - BTF closure keys of the encoded batches (closure.go, exact up to
//     isomorphism): types repeating an earlier unit's closure, into that
//     copy's class or another, with and without declarations in it;
//   - encode.ClosureKeys (the sound DIE key): its cost, hits among
//     declaration-free closures, unsound hits, hits into another class,
//     and the share of CPU of what they reach (by type size);
//   - with -simulate, the skip protocol at the dedup level (simulate.go):
//     a second table fed the batches without the types whose key has a
//     class, their parents pointing at it; its AddBatch time and whether
//     the two tables end the same.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/encode"
)

func main() {
	maxUnits := flag.Int("units", 0, "stop after this many units (0: all)")
	prof := flag.String("cpuprofile", "", "write a CPU profile here")
	simDecl := flag.Bool("simulate-decl", false, "let the simulation skip closures with declarations too (known not exact)")
	lag := flag.Int("lag", 0, "units the workers' view of the table lags the merger (the pipeline keeps up to 3*jobs+1 batches in flight)")
	simulate := flag.Bool("simulate", true, "run the skip protocol at the dedup level beside the real deduplication")
	flag.Parse()
	if *prof != "" {
		pf, err := os.Create(*prof)
		check(err)
		check(pprof.StartCPUProfile(pf))
		defer pprof.StopCPUProfile()
	}
	feat := encode.DefaultFeatures
	f, err := dwarfread.Open(flag.Arg(0), dwarfread.Options{})
	check(err)
	ef := f.ELF()
	syms, err := encode.ReadSymbols(ef, func(shndx uint32) bool {
		return shndx < uint32(len(ef.Sections)) && encode.VarIncluded(ef.Sections[shndx].Name, feat)
	})
	check(err)
	check(encode.MarkKfuncs(ef, syms))
	enc, err := encode.New(f, syms, encode.Config{Features: feat})
	check(err)
	w := enc.NewWorker()
	ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, LangExclude: []string{"rust"}, NoTypeUnits: true})
	check(err)
	d, err := dedup.NewIncremental(nil)
	check(err)
	prep := dedup.NewPreparer()
	var (
		b       *encode.Batch
		pr      *dedup.Prepared
		st      = stats{firstDecl: map[uint64]btf.TypeID{}, lastDecl: map[uint64]btf.TypeID{}}
		keyer   = newKeyer()
		seen    = map[key]seenKey{}
		cl      = newCloser()
		dk      = &encode.ClosureKeys{}
		seenD   = map[uint64]dieSeen{}
		sim     = newSimulation(*simDecl, *lag)
		scratch = encode.NewBatch()
		seenC   = map[uint64]btf.TypeID{}
	)
	for {
		cu, err := ur.Next()
		check(err)
		if cu == nil {
			break
		}
		t0 := threadCPU()
		check(cu.Decode())
		if ur.Excluded(cu) || encode.Skip(cu) {
			cu.Release()
			continue
		}
		t1 := threadCPU()
		b, err = w.Encode(cu, b)
		check(err)
		t2 := threadCPU()
		dieType := append([]btf.TypeID(nil), w.DIETypes()...)
		keys := keyer.unit(cu, dieType)
		tk := threadCPU()
		dkeys, ddecl := dk.Unit(cu)
		st.dieKeyTime += (threadCPU() - tk)
		tk = threadCPU()
		if *simulate {
			skip := sim.skipDIEs(dieType, dkeys, ddecl)
			e0 := threadCPU()
			check(w.ReEmit(nil, scratch.Types))
			e1 := threadCPU()
			check(w.ReEmit(skip, scratch.Types))
			e2 := threadCPU()
			sim.emitAll += e1 - e0
			sim.emitKept += e2 - e1
		}
		cu.Release()
		ckeys := cl.run(b.Types)
		t3 := threadCPU()
		u0 := (tk - t2)
		st.closureTime += (t3 - tk)
		before := d.NextID()
		pr, err = prep.Prepare(b.Types, pr)
		check(err)
		t4 := threadCPU()
		remap, err := d.AddPrepared(pr)
		check(err)
		t5 := threadCPU()
		pr.Restore()
		u := unitTimes{decode: (t1 - t0), encode: (t2 - t1), key: u0, prepare: (t4 - t3), resolve: (t5 - t4)}
		st.add(b.Types, d.Table(), remap, before, u, keys, dieType, ckeys, seen)
		st.addClosure(b.Types, remap, ckeys, cl.fwd, seenC, u)
		st.addDIEKeys(b.Types, remap, ckeys, dieType, dkeys, ddecl, seenD, u)
		if *simulate {
			sim.unit(b.Types, remap, dieType, dkeys, ddecl)
			sim.done()
		}
		if *maxUnits > 0 && st.units >= *maxUnits {
			break
		}
	}
	ur.Close()
	f.Close()
	st.print(d.Table().Len())
	st.printClosure(cl)
	st.printDIEKeys(dk)
	if *simulate {
		fmt.Printf("converting the type DIEs again: all %.2fs, without the skipped ones %.2fs\n", sim.emitAll.Seconds(), sim.emitKept.Seconds())
		fmt.Printf("simulated protocol: %d batch types skipped, %d kept; real dedup (prepare+resolve) %.2fs, simulated AddBatch %.2fs (building the reduced batches %.2fs); %d skipped types whose real class differs; table: %s\n",
			sim.skipped, sim.kept, (st.t.prepare + st.t.resolve).Seconds(), sim.cpu.Seconds(), sim.build.Seconds(), sim.mismatch, sim.compare(d.Table()))
		fmt.Printf("  declarations resolved during the units: %d; workers' view %d units behind; units whose skips with declarations were stale (converted after all) %d\n", sim.resolutions(), sim.lag, sim.fallback)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
