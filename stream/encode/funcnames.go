package encode

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
)

// funcNames holds the sorted, distinct function names of a symbol table
// front coded: in blocks of fnBlock names, the first stored whole, each
// other as the length of the prefix it shares with the name before it and
// the rest. Kernel names come in families (__x64_sys_*, trace_event_raw_*,
// ...), so this halves them: the 6.12 cloud vmlinux's 101k names take 2.4
// MB as they are and 1.2 MB coded, and the table needs no record per
// name (the name's index is its rank). Lookups find the block through a
// hash index of the names when the table has one (8 bytes a slot, 2 MiB
// for those 101k names: built only when the memory plan allows it,
// buildFuncNames), else binary-search the blocks' first names, and scan
// one block without decoding a name into memory. Read-only after build:
// safe for concurrent use.
type funcNames struct {
	data  []byte   // the blocks, back to back
	heads []uint32 // by block: offset in data of its first name
	n     int      // names
	// byHash finds a name's block without the binary search (whose
	// probes each missed the cache: the table is megabytes): open
	// addressing, linear probing, at most 3/4 full; a slot holds a name's
	// hash in its high 32 bits and its index + 1 in the low ones (0:
	// empty). Nil when the plan did not allow it (find searches).
	byHash []uint64
	seed   maphash.Seed
}

// fnBlock is how many names a block holds: a lookup compares against
// log2(n/fnBlock) whole names and scans at most fnBlock-1 coded ones.
const fnBlock = 16

// funcIndexBytes is the memory of the hash index of n names.
func funcIndexBytes(n int) int64 { return 8 * int64(funcIndexSlots(n)) }

// funcIndexSlots is the size of the hash index of n names: the power of
// two that keeps it at most 3/4 full.
func funcIndexSlots(n int) int {
	size := 4
	for size*3 < n*4 {
		size *= 2
	}
	return size
}

// buildFuncNames codes names, which must be sorted and distinct, with the
// hash index if it takes at most indexMax bytes (negative: whatever it
// takes).
func buildFuncNames(n int, name func(i int) []byte, indexMax int64) funcNames {
	var fn funcNames
	fn.n = n
	fn.heads = make([]uint32, 0, (n+fnBlock-1)/fnBlock)
	size := funcIndexSlots(n)
	if indexMax < 0 || funcIndexBytes(n) <= indexMax {
		fn.byHash, fn.seed = make([]uint64, size), maphash.MakeSeed()
	}
	var prev []byte
	for i := 0; i < n; i++ {
		b := name(i)
		if fn.byHash != nil {
			h := maphash.Bytes(fn.seed, b)
			for k := int(h) & (size - 1); ; k = (k + 1) & (size - 1) {
				if fn.byHash[k] == 0 {
					fn.byHash[k] = h&^(1<<32-1) | uint64(i+1)
					break
				}
			}
		}
		if i%fnBlock == 0 {
			fn.heads = append(fn.heads, uint32(len(fn.data)))
			fn.data = binary.AppendUvarint(fn.data, uint64(len(b)))
			fn.data = append(fn.data, b...)
		} else {
			p := commonPrefix(prev, b)
			fn.data = binary.AppendUvarint(fn.data, uint64(p))
			fn.data = binary.AppendUvarint(fn.data, uint64(len(b)-p))
			fn.data = append(fn.data, b[p:]...)
		}
		prev = b
	}
	// Exact sizes: the table lives all run.
	fn.data = append([]byte(nil), fn.data...)
	return fn
}

func commonPrefix[S ~string | ~[]byte](a, b S) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// uvarint decodes the uvarint at data[off:] (the table is built here, so
// it is well formed) and returns it with the offset after it.
func (fn *funcNames) uvarint(off int) (int, int) {
	v, k := binary.Uvarint(fn.data[off:])
	return int(v), off + k
}

// head returns block b's first name, in place.
func (fn *funcNames) head(b int) []byte {
	l, off := fn.uvarint(int(fn.heads[b]))
	return fn.data[off : off+l]
}

// find returns the index of name, or -1.
func (fn *funcNames) find(name string) int {
	if fn.byHash == nil {
		return fn.findBySearch(name)
	}
	h := maphash.String(fn.seed, name)
	mask := len(fn.byHash) - 1
	for k := int(h) & mask; fn.byHash[k] != 0; k = (k + 1) & mask {
		if e := fn.byHash[k]; e>>32 == h>>32 {
			// The block of the name with this hash: name is in it
			// if it is that name (names are distinct).
			if i := fn.findIn(int(uint32(e)-1)/fnBlock, name); i >= 0 {
				return i
			}
		}
	}
	return -1
}

// findBySearch is find without the hash index: a binary search over the
// blocks' first names, each probe likely a cache miss.
func (fn *funcNames) findBySearch(name string) int {
	// The last block whose first name is <= name.
	lo, hi := 0, len(fn.heads)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if strings.Compare(string(fn.head(m)), name) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return -1
	}
	return fn.findIn(lo-1, name)
}

// findIn returns the index of name in block b, or -1. If name is in the
// table at all and not in b, it returns -1 only when b's first name is
// <= name (the scan relies on it); whatever b, an index it returns is
// name's.
func (fn *funcNames) findIn(b int, name string) int {
	head := fn.head(b)
	if string(head) == name {
		return b * fnBlock
	}
	// Scan the block without decoding: lcp is how much of name equals
	// the previous name (which is < name). A next name sharing more than
	// lcp with the previous one is < name too; one sharing less is
	// greater than the previous one where that equals name, so > name;
	// one sharing exactly lcp is compared by its rest.
	lcp := commonPrefix(string(head), name)
	off := int(fn.heads[b]) + len(head) + uvarintLen(len(head))
	for i := b*fnBlock + 1; i < min((b+1)*fnBlock, fn.n); i++ {
		p, o := fn.uvarint(off)
		l, o := fn.uvarint(o)
		rest := fn.data[o : o+l]
		off = o + l
		switch {
		case p > lcp:
			continue
		case p < lcp:
			return -1
		}
		c := commonPrefix(string(rest), name[p:])
		switch {
		case c == len(rest) && p+c == len(name):
			return i
		case p+c == len(name):
			return -1 // name is a prefix of this one: name < it
		case c < len(rest) && rest[c] > name[p+c]:
			return -1
		}
		lcp = p + c // this name is < name: the new previous
	}
	return -1
}

func uvarintLen(v int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(v))
}

// appendName appends name i to dst.
func (fn *funcNames) appendName(dst []byte, i int) []byte {
	b := i / fnBlock
	head := fn.head(b)
	start := len(dst)
	dst = append(dst, head...)
	off := int(fn.heads[b]) + len(head) + uvarintLen(len(head))
	for k := b*fnBlock + 1; k <= i; k++ {
		p, o := fn.uvarint(off)
		l, o := fn.uvarint(o)
		dst = append(dst[:start+p], fn.data[o:o+l]...)
		off = o + l
	}
	return dst
}

// bytesSize is the table's memory.
func (fn *funcNames) bytesSize() int64 {
	return int64(cap(fn.data)) + 4*int64(cap(fn.heads)) + 8*int64(cap(fn.byHash))
}
