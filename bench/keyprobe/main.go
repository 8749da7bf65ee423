// Command keyprobe measures encode.ClosureKeys on a file's units (issue
// 18) and checks that a change to the keys keeps which DIEs share a key:
// it prints the thread CPU time of Unit over all units, and with -o
// writes every DIE's key and declaration flag; with -cmp it reads such a
// file (written by another version) and counts the DIEs where the two
// partitions differ (a key of one version meeting two of the other, a
// DIE keyed in one and not the other, or a different flag). 0 means the
// new keys skip exactly the closures the old ones did.
//
//	keyprobe [-r N] [-o KEYS | -cmp KEYS] [-cpuprofile F] FILE
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/encode"
)

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "keyprobe:", err)
		os.Exit(1)
	}
}

// threadCPU is this thread's user and system time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	check(syscall.Getrusage(1, &ru)) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	out := flag.String("o", "", "write every DIE's key and flag here")
	cmp := flag.String("cmp", "", "compare the partition with this file (written by -o)")
	prof := flag.String("cpuprofile", "", "write a CPU profile here")
	reps := flag.Int("r", 1, "compute each unit's keys this many times")
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	runtime.LockOSThread()
	f, err := dwarfread.Open(flag.Arg(0), dwarfread.Options{})
	check(err)
	ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, LangExclude: []string{"rust"}, NoTypeUnits: true})
	check(err)
	var w *bufio.Writer
	if *out != "" {
		fo, err := os.Create(*out)
		check(err)
		defer fo.Close()
		w = bufio.NewWriterSize(fo, 1<<20)
		defer w.Flush()
	}
	var r *bufio.Reader
	if *cmp != "" {
		fi, err := os.Open(*cmp)
		check(err)
		defer fi.Close()
		r = bufio.NewReaderSize(fi, 1<<20)
	}
	if *prof != "" {
		pf, err := os.Create(*prof)
		check(err)
		check(pprof.StartCPUProfile(pf))
		defer pprof.StopCPUProfile()
	}
	oldToNew, newToOld := map[uint64]uint64{}, map[uint64]uint64{}
	var (
		k                  encode.ClosureKeys
		cpu                time.Duration
		dies, keyed, wrong int
		rec, old           [9]byte
	)
	for {
		cu, err := ur.Next()
		check(err)
		if cu == nil {
			break
		}
		check(cu.Decode())
		if ur.Excluded(cu) || encode.Skip(cu) {
			cu.Release()
			continue
		}
		var keys []uint64
		var decl []bool
		t0 := threadCPU()
		for range *reps {
			keys, decl = k.Unit(cu)
		}
		cpu += threadCPU() - t0
		for i, key := range keys {
			dies++
			if key != 0 {
				keyed++
			}
			binary.LittleEndian.PutUint64(rec[:], key)
			rec[8] = 0
			if decl[i] {
				rec[8] = 1
			}
			if w != nil {
				_, err := w.Write(rec[:])
				check(err)
			}
			if r == nil {
				continue
			}
			_, err := io.ReadFull(r, old[:])
			check(err)
			ok := binary.LittleEndian.Uint64(old[:])
			if old[8] != rec[8] || (ok == 0) != (key == 0) {
				wrong++
				continue
			}
			if ok == 0 {
				continue
			}
			if n, seen := oldToNew[ok]; seen && n != key {
				wrong++
			}
			if o, seen := newToOld[key]; seen && o != ok {
				wrong++
			}
			oldToNew[ok], newToOld[key] = key, ok
		}
		cu.Release()
	}
	fmt.Printf("Unit: %v CPU (x%d); %d DIEs, %d keyed, %d unkeyed types\n", cpu, *reps, dies, keyed, k.Unkeyed)
	if r != nil {
		fmt.Printf("partition: %d distinct keys, %d DIEs differ\n", len(oldToNew), wrong)
		if wrong != 0 {
			os.Exit(1)
		}
	}
}
