// Command dedupbench measures dedup on large inputs; bench/dedup.sh drives
// it next to libbpf.
//
//	dedupbench mkinput -n 8 vmlinux.btf input.btf stripped.btf
//	    input: n copies of vmlinux's types without VAR and DATASEC (ids
//	    shifted, one shared string table); stripped: one copy.
//	dedupbench batch input.btf out.btf          DedupStream of the whole input
//	dedupbench incr -per N input.btf out.btf    batches of at least N input types
//
// batch and incr print wall time and the peak RSS (VmHWM) as key=value.
// Input is read in chunks, never held raw next to its parsed form.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: dedupbench mkinput|batch|incr ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "mkinput":
		err = mkinput(os.Args[2:])
	case "batch":
		err = batch(os.Args[2:])
	case "incr":
		err = incr(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dedupbench:", err)
		os.Exit(1)
	}
}

func mkinput(args []string) error {
	fs := flag.NewFlagSet("mkinput", flag.ExitOnError)
	n := fs.Int("n", 8, "copies")
	fs.Parse(args)
	if fs.NArg() != 3 {
		return fmt.Errorf("mkinput: need IN OUT STRIPPED")
	}
	raw, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	src, err := btf.Parse(raw, nil)
	if err != nil {
		return err
	}
	// Drop VAR and DATASEC, and DECL_TAGs on them.
	keep := make([]uint32, src.NextID()) // old id -> new id in one copy
	next := uint32(1)
	for id := btf.TypeID(1); id < src.NextID(); id++ {
		k := src.Kind(id)
		if k == btf.KindVar || k == btf.KindDatasec {
			continue
		}
		if k == btf.KindDeclTag {
			if tk := src.Kind(src.Type(id).Ref()); tk == btf.KindVar || tk == btf.KindDatasec {
				continue
			}
		}
		keep[id] = next
		next++
	}
	per := next - 1
	build := func(copies int) *btf.Spec {
		out := btf.NewSpec()
		out.SetStrings(src.Strings())
		var w []uint32
		for c := 0; c < copies; c++ {
			shift := uint32(c) * per
			for id := btf.TypeID(1); id < src.NextID(); id++ {
				if keep[id] == 0 {
					continue
				}
				t := src.Type(id)
				w = append(w[:0], src.Extra(id)...)
				out.Add(t, w...)
				nid := out.NextID() - 1
				out.ForEachRef(nid, func(r *uint32) {
					if *r != 0 {
						if keep[*r] == 0 {
							panic(fmt.Sprintf("type %d references dropped %d", id, *r))
						}
						*r = keep[*r] + shift
					}
				})
			}
		}
		return out
	}
	if err := os.WriteFile(fs.Arg(1), build(*n).Marshal(), 0o644); err != nil {
		return err
	}
	fmt.Printf("types_per_copy=%d\n", per)
	return os.WriteFile(fs.Arg(2), build(1).Marshal(), 0o644)
}

// reader streams raw little-endian BTF: header and strings up front, types
// on demand, decoded from 256 KiB chunks.
type reader struct {
	f       *os.File
	strs    *btf.Strings
	left    uint32 // type bytes not yet in buf
	typeAt  int64  // file offset of the first type
	typeLen uint32
	buf     []byte // undecoded bytes of the current chunk
	chunk   []byte
	words   []uint32
}

func open(path string) (*reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var h [24]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	if le.Uint16(h[:]) != btf.Magic {
		return nil, fmt.Errorf("%s: not little-endian raw BTF", path)
	}
	hdr := le.Uint32(h[4:])
	typeOff, typeLen := le.Uint32(h[8:]), le.Uint32(h[12:])
	strOff, strLen := le.Uint32(h[16:]), le.Uint32(h[20:])
	strs := make([]byte, strLen)
	if _, err := f.ReadAt(strs, int64(hdr+strOff)); err != nil {
		return nil, err
	}
	rd := &reader{f: f, strs: btf.StringsFromBytes(strs, nil), typeAt: int64(hdr + typeOff), typeLen: typeLen, chunk: make([]byte, 1<<18)}
	rd.rewind()
	return rd, nil
}

// need makes sure n bytes are buffered; false at the end of the types.
func (rd *reader) need(n int) bool {
	if len(rd.buf) >= n {
		return true
	}
	if rd.left == 0 {
		return false
	}
	k := copy(rd.chunk, rd.buf)
	m := min(uint32(len(rd.chunk)-k), rd.left)
	if _, err := io.ReadFull(rd.f, rd.chunk[k:k+int(m)]); err != nil {
		return false
	}
	rd.left -= m
	rd.buf = rd.chunk[:k+int(m)]
	return len(rd.buf) >= n
}

// rewind restarts reading at the first type.
func (rd *reader) rewind() {
	rd.f.Seek(rd.typeAt, io.SeekStart)
	rd.left, rd.buf = rd.typeLen, nil
}

// next reads one type; ok is false at the end.
func (rd *reader) next() (btf.Type, []uint32, bool) {
	le := binary.LittleEndian
	if !rd.need(12) {
		return btf.Type{}, nil, false
	}
	b := rd.buf
	t := btf.Type{NameOff: btf.StrOff(le.Uint32(b)), Info: le.Uint32(b[4:]), SizeOrType: le.Uint32(b[8:])}
	n := t.Kind().ExtraWords(t.Vlen())
	rd.buf = rd.buf[12:]
	if n < 0 || !rd.need(4*n) {
		return btf.Type{}, nil, false
	}
	rd.words = rd.words[:0]
	for i := 0; i < n; i++ {
		rd.words = append(rd.words, le.Uint32(rd.buf[4*i:]))
	}
	rd.buf = rd.buf[4*n:]
	return t, rd.words, true
}

func batch(args []string) error {
	start := time.Now()
	rd, err := open(args[0])
	if err != nil {
		return err
	}
	// DedupStream reads the types twice (plan, then dedup), never holding them.
	read := time.Since(start)
	out, err := dedup.DedupStream(rd.strs, func() dedup.Source {
		rd.rewind()
		return rd.next
	})
	if err != nil {
		return err
	}
	rd.f.Close()
	elapsed := time.Since(start)
	if err := write(args[1], out); err != nil {
		return err
	}
	stopProfile()
	report("batch", read, elapsed, out)
	return nil
}

func incr(args []string) error {
	fs := flag.NewFlagSet("incr", flag.ExitOnError)
	per := fs.Int("per", 0, "input types per batch, at least: a batch ends at the first type after which no type read so far references a later one")
	fs.Parse(args)
	start := time.Now()
	rd, err := open(fs.Arg(0))
	if err != nil {
		return err
	}
	d, err := dedup.NewIncremental(nil)
	if err != nil {
		return err
	}
	// Like the encoder, keep the table ids of only the input types a later
	// batch references: a first pass over the input marks them.
	later := rd.referencedLater(uint32(*per))
	var kept []btf.TypeID // table ids of the marked types, by later.rank
	var read time.Duration
	first := uint32(1) // input id of the batch's first type
	for bi := 0; ; bi++ {
		t0 := time.Now()
		b := d.NewBatch()
		// The batch reads its strings from the input's string section.
		b.SetStrings(rd.strs)
		if bi < len(later.sizes) {
			b.Grow(later.sizes[bi][0], later.sizes[bi][1])
		}
		maxRef := first
		for n := uint32(0); !batchEnds(n, uint32(*per), maxRef, first); n++ {
			t, w, ok := rd.next()
			if !ok {
				break
			}
			b.Add(t, w...)
			id := b.NextID() - 1
			b.ForEachRef(id, func(r *uint32) {
				maxRef = max(maxRef, *r)
				if *r >= first {
					*r = *r - first + uint32(b.FirstID())
				} else if *r != 0 {
					*r = uint32(kept[later.rank(*r)])
				}
			})
		}
		read += time.Since(t0)
		if b.Len() == 0 {
			break
		}
		remap, err := d.AddBatch(b)
		if err != nil {
			return err
		}
		for i, id := range remap.IDs {
			if later.has(first + uint32(i)) {
				kept = append(kept, id)
			}
		}
		first += uint32(b.Len())
		memdebug("batch")
	}
	rd.f.Close()
	memdebug("before finish")
	out, _, err := d.Finish()
	memdebug("after finish")
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	if err := write(fs.Arg(1), out); err != nil {
		return err
	}
	stopProfile()
	report("incr", read, elapsed, out)
	return nil
}

// batchEnds reports whether a batch of n types starting at input id first,
// whose largest edge is maxRef, ends here: it has at least per types and
// no type in it references a later one.
func batchEnds(n, per, maxRef, first uint32) bool {
	return n >= per && maxRef < first+n
}

// idSet is a bitmap of input ids with rank: the number of members below
// an id.
type idSet struct {
	bits  []uint64
	ranks []uint32 // by word: members in earlier words
	sizes [][2]int // per batch: types, extra words
}

func (s *idSet) add(id uint32) {
	for int(id/64) >= len(s.bits) {
		s.bits = append(s.bits, 0)
	}
	s.bits[id/64] |= 1 << (id % 64)
}

func (s *idSet) has(id uint32) bool {
	return int(id/64) < len(s.bits) && s.bits[id/64]&(1<<(id%64)) != 0
}

func (s *idSet) rank(id uint32) uint32 {
	return s.ranks[id/64] + uint32(bits.OnesCount64(s.bits[id/64]&(1<<(id%64)-1)))
}

// referencedLater reads the input once, cutting it into batches as incr
// does, and returns the ids that a later batch references; it rewinds.
func (rd *reader) referencedLater(per uint32) *idSet {
	s := &idSet{}
	first, n, maxRef := uint32(1), uint32(0), uint32(1)
	words := 0
	for {
		t, w, ok := rd.next()
		if !ok {
			break
		}
		k := t.Kind()
		refs := func(r uint32) {
			maxRef = max(maxRef, r)
			if r != 0 && r < first {
				s.add(r)
			}
		}
		if k.HasType() {
			refs(t.SizeOrType)
		}
		switch k {
		case btf.KindArray:
			refs(w[0])
			refs(w[1])
		case btf.KindStruct, btf.KindUnion:
			for i := 0; i+2 < len(w); i += 3 {
				refs(w[i+1])
			}
		case btf.KindFuncProto:
			for i := 0; i+1 < len(w); i += 2 {
				refs(w[i+1])
			}
		case btf.KindDatasec:
			for i := 0; i+2 < len(w); i += 3 {
				refs(w[i])
			}
		}
		n++
		words += len(w)
		if batchEnds(n, per, maxRef, first) {
			s.sizes = append(s.sizes, [2]int{int(n), words})
			first, n, words = first+n, 0, 0
		}
	}
	s.sizes = append(s.sizes, [2]int{int(n), words})
	s.ranks = make([]uint32, len(s.bits))
	c := uint32(0)
	for i, x := range s.bits {
		s.ranks[i] = c
		c += uint32(bits.OnesCount64(x))
	}
	rd.rewind()
	return s
}

// write writes s as raw little-endian BTF, the bytes s.Marshal() gives a
// new Spec (24-byte header, types, strings), without building them in
// memory.
func write(path string, s *btf.Spec) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	le := binary.LittleEndian
	typeLen := 0
	for id := s.FirstID(); id < s.NextID(); id++ {
		typeLen += s.TypeBytes(id)
	}
	strs := s.Strings().Bytes()
	var b [24]byte
	le.PutUint16(b[0:], btf.Magic)
	b[2] = 1
	le.PutUint32(b[4:], 24)
	le.PutUint32(b[12:], uint32(typeLen))
	le.PutUint32(b[16:], uint32(typeLen))
	le.PutUint32(b[20:], uint32(len(strs)))
	w.Write(b[:])
	for id := s.FirstID(); id < s.NextID(); id++ {
		t := s.Type(id)
		le.PutUint32(b[0:], uint32(t.NameOff))
		le.PutUint32(b[4:], t.Info)
		le.PutUint32(b[8:], t.SizeOrType)
		w.Write(b[:12])
		for _, x := range s.Extra(id) {
			le.PutUint32(b[:], x)
			w.Write(b[:4])
		}
	}
	w.Write(strs)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func report(mode string, read, total time.Duration, out *btf.Spec) {
	if p := os.Getenv("DEDUPBENCH_MEMPROFILE"); p != "" {
		f, _ := os.Create(p)
		pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("mode=%s types_out=%d read_s=%.3f total_s=%.3f cpu_s=%.3f peak_rss_kb=%d\n",
		mode, out.Len(), read.Seconds(), total.Seconds(), cpu.Seconds(), vmHWM())
}

func vmHWM() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			var kb int
			fmt.Sscanf(strings.TrimPrefix(l, "VmHWM:"), "%d", &kb)
			return kb
		}
	}
	return -1
}

func init() {
	if os.Getenv("DEDUPBENCH_MEMPROFILE") != "" {
		runtime.MemProfileRate = 4096
	}
	if p := os.Getenv("DEDUPBENCH_CPUPROFILE"); p != "" {
		f, _ := os.Create(p)
		pprof.StartCPUProfile(f)
		stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
	}
}

var stopProfile = func() {}

func memdebug(where string) {
	if os.Getenv("DEDUPBENCH_MEM") == "" {
		return
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Fprintf(os.Stderr, "%s: heap_alloc=%dk heap_sys=%dk heap_inuse=%dk sys=%dk hwm=%dk numgc=%d\n", where, m.HeapAlloc>>10, m.HeapSys>>10, m.HeapInuse>>10, m.Sys>>10, vmHWM(), m.NumGC)
}
