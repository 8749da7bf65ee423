package dedup

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/btfstream/btfstream/btf"
)

// A type's words split into three classes: numbers (sizes, offsets,
// values, encodings), string offsets (names), and type ids (edges). The
// label of a type is everything but its edges; two types are equivalent when
// their labels are equal and their edges, position by position, lead to
// equivalent types.

const (
	wNum = iota
	wStr
	wRef
)

// wordShape gives, for a kind, the stride of its extra words and the class
// of each word within one stride.
type wordShape struct {
	stride uint8
	class  [3]uint8
}

var shapes = [btf.MaxKind + 1]wordShape{
	btf.KindInt:       {1, [3]uint8{wNum}},
	btf.KindArray:     {3, [3]uint8{wRef, wRef, wNum}},
	btf.KindStruct:    {3, [3]uint8{wStr, wRef, wNum}},
	btf.KindUnion:     {3, [3]uint8{wStr, wRef, wNum}},
	btf.KindEnum:      {2, [3]uint8{wStr, wNum}},
	btf.KindEnum64:    {3, [3]uint8{wStr, wNum, wNum}},
	btf.KindFuncProto: {2, [3]uint8{wStr, wRef}},
	btf.KindVar:       {1, [3]uint8{wNum}},
	btf.KindDatasec:   {3, [3]uint8{wRef, wNum, wNum}},
	btf.KindDeclTag:   {1, [3]uint8{wNum}},
}

// refShape says where a kind's edges are: the header's type first if
// hasType, then words first, first+stride, ..., fixed of them or, if
// fixed is 0, vlen of them (ForEachRef order).
type refShape struct {
	hasType       bool
	fixed         uint8
	first, stride uint8
}

var refShapes = func() (r [128]refShape) {
	for k := btf.Kind(0); k <= btf.MaxKind; k++ {
		r[k].hasType = k.HasType()
	}
	r[btf.KindArray] = refShape{fixed: 2, first: 0, stride: 1}
	r[btf.KindStruct] = refShape{first: 1, stride: 3}
	r[btf.KindUnion] = refShape{first: 1, stride: 3}
	r[btf.KindFuncProto] = refShape{hasType: true, first: 1, stride: 2}
	r[btf.KindDatasec] = refShape{first: 0, stride: 3}
	return r
}()

// numRefs returns how many edges a type has (ForEachRef order).
func numRefs(t btf.Type, w []uint32) int {
	s := &refShapes[t.Kind()&0x7f]
	n := int(s.fixed)
	if s.stride != 0 && n == 0 {
		n = int(t.Vlen())
	}
	if s.hasType {
		n++
	}
	return n
}

// refAt returns edge j of a type, in ForEachRef order.
func refAt(t btf.Type, w []uint32, j int) uint32 {
	s := &refShapes[t.Kind()&0x7f]
	if s.hasType {
		if j == 0 {
			return t.SizeOrType
		}
		j--
	}
	if s.stride == 0 {
		return 0
	}
	return w[int(s.first)+int(s.stride)*j]
}

// strView resolves string offsets of one side of a comparison. It reads a
// batch's own bytes through a slice captured before the dedup table grows,
// because a split string table computes its base length on every call.
type strView struct {
	base   *btf.Strings // offsets below baseLen
	baseLn uint32
	local  []byte
	localN uint32 // len(local)
	// bdata is the base's bytes when the base has no base itself: offset
	// o < baseLn is then bdata[o:].
	bdata []byte
	// shared: offsets below it name the dedup table's strings at the same
	// offset (set only for one batch state's views), so equal offsets on
	// two such views are equal strings.
	shared uint32
}

func viewOf(st *btf.Strings) strView {
	loc := st.Bytes()
	v := strView{local: loc, localN: uint32(len(loc)), baseLn: st.Len() - uint32(len(loc))}
	v.base = st.Base()
	if v.base != nil && v.base.Base() == nil && uint32(len(v.base.Bytes())) == v.baseLn {
		v.bdata = v.base.Bytes()
	}
	return v
}

func (v *strView) bytes(off uint32) []byte {
	if off < v.baseLn {
		if v.base == nil {
			return nil
		}
		b, _ := v.base.LookupBytes(btf.StrOff(off))
		return b
	}
	o := off - v.baseLn
	if o >= uint32(len(v.local)) {
		return nil
	}
	s := v.local[o:]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// Hashing: a fixed function, so that runs are reproducible. Hash values
// never decide the output, equality is always checked on a hit.

const prime64 = 0x9E3779B97F4A7C15

func mix(h, x uint64) uint64 {
	h ^= x
	h *= prime64
	h ^= h >> 29
	return h
}

func finalize(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// tail returns the section bytes from off on (its string and what follows),
// or nil for an invalid offset.
func (v *strView) tail(off uint32) []byte {
	// o wraps around for an offset in the base, past any local offset.
	if o := off - v.baseLn; o < v.localN {
		return v.local[o:]
	}
	return v.tailElse(off)
}

// tailElse is tail for an offset in the base, or invalid (not inlined,
// so that tail is).
//
//go:noinline
func (v *strView) tailElse(off uint32) []byte {
	switch {
	case off >= v.baseLn:
		return nil
	case v.bdata != nil:
		return v.bdata[off:]
	}
	return v.bytes(off) // base with its own base: take the safe path
}

// cstrHash hashes the NUL-terminated string at the start of b (a slice's
// end also ends its string) eight bytes at a time: whole words before the
// NUL, then the up to seven bytes before it with their count. What follows
// the NUL never counts, so a string hashes alike wherever it is read.
func cstrHash(b []byte) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	h := uint64(0xcbf29ce484222325)
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if z := (x - lo) &^ x & hi; z != 0 {
			// The lowest flagged byte is the first NUL.
			n := uint(bits.TrailingZeros64(z)) / 8
			return mix(h, x&(1<<(8*n)-1)|uint64(n)<<56)
		}
		h = mix(h, x)
		b = b[8:]
	}
	var x uint64
	n := uint(0)
	for ; n < uint(len(b)) && b[n] != 0; n++ {
		x |= uint64(b[n]) << (8 * n)
	}
	return mix(h, x|uint64(n)<<56)
}

// cstrEq compares the NUL-terminated strings at the starts of a and b (a
// slice's end also ends its string), eight bytes at a time: the first
// differing byte decides, unless a NUL comes before it.
func cstrEq(a, b []byte) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for len(a) >= 8 && len(b) >= 8 {
		x, y := binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(b)
		// The lowest flagged byte of z is x's first NUL.
		z := (x - lo) &^ x & hi
		if x != y {
			return z != 0 && bits.TrailingZeros64(z) < bits.TrailingZeros64(x^y)
		}
		if z != 0 {
			return true
		}
		a, b = a[8:], b[8:]
	}
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return false
		}
		if a[i] == 0 {
			return true
		}
	}
	return (len(a) == n || a[n] == 0) && (len(b) == n || b[n] == 0)
}

func strHash(b []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range b {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	return h
}

// node is a read-only view of one type for labelling and comparison.
type node struct {
	t btf.Type
	w []uint32
	s *strView
}

// labelHash hashes a type's label: kind, info, size, name, and every
// non-edge word (strings by content).
func labelHash(n node) uint64 {
	t := n.t
	k := t.Kind()
	h := mix(0x5bd1e995, uint64(t.Info))
	if !k.HasType() {
		h = mix(h, uint64(t.SizeOrType))
	}
	h = mix(h, cstrHash(n.s.tail(uint32(t.NameOff))))
	w := n.w
	switch k { // the common shapes, word by word as below
	case btf.KindStruct, btf.KindUnion: // name, type, offset
		for i := 0; i+2 < len(w); i += 3 {
			h = mix(mix(h, cstrHash(n.s.tail(w[i]))), uint64(w[i+2]))
		}
		return finalize(h)
	case btf.KindFuncProto: // name, type
		for i := 0; i+1 < len(w); i += 2 {
			h = mix(h, cstrHash(n.s.tail(w[i])))
		}
		return finalize(h)
	case btf.KindEnum: // name, value
		for i := 0; i+1 < len(w); i += 2 {
			h = mix(mix(h, cstrHash(n.s.tail(w[i]))), uint64(w[i+1]))
		}
		return finalize(h)
	}
	sh := shapes[k]
	if sh.stride == 0 {
		return finalize(h)
	}
	p := 0
	for _, x := range w {
		switch sh.class[p] {
		case wNum:
			h = mix(h, uint64(x))
		case wStr:
			h = mix(h, cstrHash(n.s.tail(x)))
		}
		p++
		if p == int(sh.stride) {
			p = 0
		}
	}
	return finalize(h)
}

// strEq compares strings by content: offset 0, another offset of an empty
// string and an invalid offset all read as "", as they are written out.
// x is read through as, y through bs.
func strEq(as, bs *strView, x, y uint32) bool {
	if x == y && (as == bs || (x < as.shared && x < bs.shared)) {
		return true
	}
	a, b := as.tail(x), bs.tail(y)
	if len(a) >= 8 && len(b) >= 8 {
		// Most names end in their first eight bytes: decide those here
		// as cstrEq would.
		const lo, hi = 0x0101010101010101, 0x8080808080808080
		u, v := binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(b)
		if z := (u - lo) &^ u & hi; z != 0 {
			// The lowest flagged byte is a's first NUL: equal if every
			// byte up to it is.
			return (u^v)&(z^(z-1)) == 0
		}
		if u != v {
			return false
		}
		a, b = a[8:], b[8:]
	}
	return cstrEq(a, b)
}

// labelEq reports whether two types have equal labels (edges ignored).
func labelEq(a, b node) bool {
	if a.t.Info != b.t.Info || len(a.w) != len(b.w) {
		return false
	}
	k := a.t.Kind()
	if !k.HasType() && a.t.SizeOrType != b.t.SizeOrType {
		return false
	}
	if !strEq(a.s, b.s, uint32(a.t.NameOff), uint32(b.t.NameOff)) {
		return false
	}
	aw, bw := a.w, b.w[:len(a.w)]
	switch k { // the common shapes, as below
	case btf.KindStruct, btf.KindUnion: // name, type, offset
		for i := 0; i+2 < len(aw); i += 3 {
			if aw[i+2] != bw[i+2] || !strEq(a.s, b.s, aw[i], bw[i]) {
				return false
			}
		}
		return true
	case btf.KindFuncProto: // name, type
		for i := 0; i+1 < len(aw); i += 2 {
			if !strEq(a.s, b.s, aw[i], bw[i]) {
				return false
			}
		}
		return true
	}
	sh := shapes[k]
	if sh.stride == 0 {
		return true
	}
	p := 0
	for i, x := range aw {
		y := bw[i]
		switch sh.class[p] {
		case wNum:
			if x != y {
				return false
			}
		case wStr:
			if !strEq(a.s, b.s, x, y) {
				return false
			}
		}
		p++
		if p == int(sh.stride) {
			p = 0
		}
	}
	return true
}
