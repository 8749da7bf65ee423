// Command encodeonly runs only the per-unit stages of an encode (dwarfread
// Decode and encode.Worker.Encode, on one goroutine, no merger) and
// prints their CPU time and a digest of every batch, names resolved, so a
// change to the reader or the converter can be timed alone and checked to
// give the same batches.
//
//	go run ./bench/encodeonly [-n REPEAT] [-units N] [-cpuprofile cpu.out] FILE
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"hash"
	"os"
	"runtime/pprof"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/encode"
)

func main() {
	prof := flag.String("cpuprofile", "", "write a CPU profile here")
	repeat := flag.Int("n", 1, "encode the units this many times")
	nameBits := flag.Uint("namebits", 0, "name cache bits (encode.Config.NameCacheBits; 0: default)")
	digest := flag.Bool("digest", true, "print a digest of the batches (costs time outside the measured stages)")
	maxUnits := flag.Int("units", 0, "stop after this many units (0: all), for instruction counts on a subset")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	feat := encode.DefaultFeatures
	h := sha256.New()
	var work time.Duration
	units, types := 0, 0
	for range *repeat {
		f, err := dwarfread.Open(flag.Arg(0), dwarfread.Options{})
		check(err)
		ef := f.ELF()
		syms, err := encode.ReadSymbols(ef, func(shndx uint32) bool {
			return shndx < uint32(len(ef.Sections)) && encode.VarIncluded(ef.Sections[shndx].Name, feat)
		})
		check(err)
		check(encode.MarkKfuncs(ef, syms))
		enc, err := encode.New(f, syms, encode.Config{Features: feat, NameCacheBits: uint8(*nameBits)})
		check(err)
		w := enc.NewWorker()
		ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, LangExclude: []string{"rust"}, NoTypeUnits: true})
		check(err)
		var b *encode.Batch
		h.Reset()
		units, types = 0, 0
		for {
			cu, err := ur.Next()
			check(err)
			if cu == nil || *maxUnits > 0 && units == *maxUnits {
				break
			}
			start := time.Now()
			check(cu.Decode())
			if ur.Excluded(cu) {
				continue
			}
			if encode.Skip(cu) {
				cu.Release()
				continue
			}
			b, err = w.Encode(cu, b)
			check(err)
			cu.Release()
			work += time.Since(start)
			units++
			types += b.Types.Len()
			if *digest {
				digestBatch(h, b)
			}
		}
		ur.Close()
		f.Close()
	}
	fmt.Printf("%d units, %d batch types, decode+encode %.3fs per run, digest %x\n",
		units, types, work.Seconds()/float64(*repeat), h.Sum(nil)[:12])
}

// digestBatch hashes a batch with its strings resolved, so batches that
// differ only in how their strings are laid out digest the same.
func digestBatch(h hash.Hash, b *encode.Batch) {
	s := b.Types
	strs := s.Strings()
	var w [8]byte
	u32 := func(v uint32) { binary.LittleEndian.PutUint32(w[:], v); h.Write(w[:4]) }
	str := func(off btf.StrOff) { n, _ := strs.Lookup(off); h.Write([]byte(n)); h.Write([]byte{0}) }
	fmt.Fprintf(h, "unit %s\n", b.Name)
	for id := s.FirstID(); id < s.NextID(); id++ {
		h.Write([]byte(s.DumpType(id)))
		h.Write([]byte{'\n'})
	}
	for _, fs := range b.Funcs {
		u32(fs.Elf)
		u32(fs.Seq)
		u32(uint32(fs.Ret))
		u32(uint32(fs.Flags))
		u32(uint32(fs.TrueSym))
		for _, p := range fs.Params {
			str(p.Name)
			u32(uint32(p.Type))
		}
		for _, a := range fs.Annots {
			str(a.Value)
			u32(uint32(a.Comp))
		}
	}
	for _, v := range b.Vars {
		u32(v.Sec)
		u32(uint32(v.Type))
		u32(v.Offset)
		u32(v.Size)
	}
	u32(uint32(b.Index.LocalInt))
	u32(uint32(b.Index.AddedInt))
	for _, a := range b.Index.Arrays {
		u32(uint32(a))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
