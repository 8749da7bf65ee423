// Command skipmeasure measures what a vmlinux's units repeat (issue 18):
// how many batch types have a whole reachable closure that equals, type for
// type, a class an earlier unit put in the table, what share of the
// workers' CPU (encode, dedup Prepare and resolution) they cost, and how
// often a DIE-level key computed before encoding names them.
//
//	go run ./bench/skipmeasure [-units N] FILE
//
// It encodes on one goroutine and deduplicates with dedup.Incremental
// directly (no function merge, no index-type fix-up: arrays keep their
// unit's index int), so its table is the merger's up to those details.
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
		b     *encode.Batch
		pr    *dedup.Prepared
		st    stats
		keyer = newKeyer()
		seen  = map[key]seenKey{}
		cl    = newCloser()
		dk    = &encode.ClosureKeys{}
		seenD = map[uint64]dieSeen{}
		seenC = map[uint64]btf.TypeID{}
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
		if *maxUnits > 0 && st.units >= *maxUnits {
			break
		}
	}
	ur.Close()
	f.Close()
	st.print(d.Table().Len())
	st.printClosure(cl)
	st.printDIEKeys(dk)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
