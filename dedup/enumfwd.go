package dedup

import (
	"encoding/binary"
	"slices"

	"github.com/btfstream/btfstream/btf"
)

// Enum forward declarations, as libbpf resolves them.
//
// libbpf's btf__dedup deduplicates INT, FLOAT, FWD, ENUM and ENUM64 first
// (btf_dedup_prim_types), one type at a time in id order, each against the
// canonical types of its hash found so far, newest first. An enum's hash
// is its name alone, so each name has a chain of canonical enums:
//
//   - a complete enum equal to one on the chain (kind, size, values) is
//     that one; otherwise it is new and goes on the chain, and every
//     declaration on the chain it passed on the way is re-pointed at it;
//   - a declaration (no values; any size, ENUM or ENUM64) is whatever
//     enum heads the chain: the newest complete one, or the first
//     declaration if it is the only one; with an empty chain it is new.
//
// Later passes never change where a declaration went: inside structs a
// declaration stands for any enum of its name (fwdPair) without
// being resolved by it (libbpf: a declaration and an enum of its name are
// equivalent when they resolve alike or have one kind; any kind here).
// Which complete enum heads the chain when a name
// has several depends on libbpf's hash table: when it grows (on an
// insertion that would fill it beyond 3/4; capacity 4, 8, 16, ...) each
// bucket's list is rebuilt by prepending its entries in list order, which
// reverses the order of the entries of one hash. So "newest first" holds
// only between growths, and the simulation below counts the table's
// insertions (every base type but VAR and DATASEC, in btf_dedup_prep; then
// each new primitive type) to reverse the chains when libbpf's table grows.
//
// Finish runs it over the table (resolveFwds): its types are the input's
// first occurrences in input order, and only first occurrences insert
// into libbpf's table, so the counts and chains are libbpf's. What it
// cannot see: a later copy of a declaration that libbpf maps elsewhere
// than the first copy (a new complete enum of the name came between them)
// takes the first copy's target here. Of a base, it reads only the INT,
// FLOAT and FWD types and the enums whose names the local types use (no
// other base type changes what a local one finds): the base's insertions
// are counted, and a chain reversed once for each growth of the table
// since it was last appended to (growths gives their number arithmetically).

// enumPlan is the result: where each declaration that libbpf maps
// elsewhere goes (an id of the input or of its base), base declarations
// that a local enum re-points included.
type enumPlan struct {
	to map[uint32]uint32
}

// libbpfTable counts the insertions into libbpf's dedup hash table and
// keeps each enum name's chain, head last.
type libbpfTable struct {
	size, capacity int
	chains         map[string][]uint32
}

func (lt *libbpfTable) insert() {
	if lt.capacity == 0 || (lt.size+1)*4/3 > lt.capacity {
		lt.capacity = max(4, 2*lt.capacity)
		for _, c := range lt.chains {
			for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	lt.size++
}

// enumsSeeAllBase makes planEnums simulate libbpf over every base type,
// making every base enum's shape (tests compare).
var enumsSeeAllBase = false

// planEnums simulates libbpf's first pass over the types src yields (ids
// from first, over base, strings strs) and returns where the declarations
// it maps elsewhere go. src is called twice with a base (see seeBase).
func planEnums(base *btf.Spec, first uint32, strs *btf.Strings, src func() Source) *enumPlan {
	view := viewOf(strs)
	lt := &libbpfTable{chains: map[string][]uint32{}}
	prims := map[string]bool{} // keys of canonical INT, FLOAT, FWD
	parent := map[uint32]uint32{}
	shape := map[uint32]string{} // enum id -> kind, size, vlen, values
	isDecl := map[uint32]bool{}
	var localDecls, baseDecls []uint32

	primKey := func(t btf.Type, w []uint32, name []byte) string {
		var b [13]byte
		binary.LittleEndian.PutUint32(b[0:], t.Info)
		binary.LittleEndian.PutUint32(b[4:], t.SizeOrType)
		if len(w) > 0 {
			binary.LittleEndian.PutUint32(b[8:], w[0])
		}
		return string(b[:]) + string(name)
	}
	enumShape := func(t btf.Type, w []uint32) string {
		// info and size, then each value's name and value words.
		k := t.Kind()
		stride := 2
		if k == btf.KindEnum64 {
			stride = 3
		}
		b := binary.LittleEndian.AppendUint32(nil, t.Info)
		b = binary.LittleEndian.AppendUint32(b, t.SizeOrType)
		for i := 0; i+stride <= len(w); i += stride {
			n := view.bytes(w[i])
			b = binary.LittleEndian.AppendUint32(b, uint32(len(n)))
			b = append(b, n...)
			for _, x := range w[i+1 : i+stride] {
				b = binary.LittleEndian.AppendUint32(b, x)
			}
		}
		return string(b)
	}
	shapeOf := map[uint32]btf.Type{} // base enums seen, shape not made yet
	// sameShape reports whether enum c has shape sh, that of t.
	sameShape := func(c uint32, t btf.Type, sh string) bool {
		if s, ok := shape[c]; ok {
			return s == sh
		}
		ct := shapeOf[c]
		if ct.Info != t.Info || ct.SizeOrType != t.SizeOrType {
			return false // the shape's first words differ
		}
		s := enumShape(ct, base.Extra(btf.TypeID(c)))
		shape[c] = s
		return s == sh
	}
	see := func(id uint32, t btf.Type, w []uint32, local bool) {
		k := t.Kind()
		name := view.bytes(uint32(t.NameOff))
		switch k {
		case btf.KindInt, btf.KindFloat, btf.KindFwd:
			key := primKey(t, w, name)
			if !local {
				prims[key] = true
				return
			}
			if !prims[key] {
				prims[key] = true
				lt.insert()
			}
			return
		case btf.KindEnum, btf.KindEnum64:
		default:
			return
		}
		parent[id] = id
		chain := lt.chains[string(name)]
		if !local {
			// Its shape is made when a local enum of its kind, vlen
			// and size meets it (sameShape).
			shapeOf[id] = t
			if enumsSeeAllBase {
				shape[id] = enumShape(t, w)
			}
			isDecl[id] = t.Vlen() == 0
			if isDecl[id] {
				baseDecls = append(baseDecls, id)
			}
			lt.chains[string(name)] = append(chain, id)
			return
		}
		sh := enumShape(t, w)
		shape[id] = sh
		decl := t.Vlen() == 0
		isDecl[id] = decl
		if decl {
			localDecls = append(localDecls, id)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			c := chain[i]
			switch {
			case sameShape(c, t, sh):
				parent[id] = c
				return
			case decl:
				parent[id] = c // compatible: same name, both enums
				return
			case isDecl[c]:
				parent[c] = id
			}
		}
		lt.insert()
		lt.chains[string(name)] = append(lt.chains[string(name)], id)
	}
	if base != nil && enumsSeeAllBase {
		for id := btf.TypeID(1); id < base.NextID(); id++ {
			t := base.Type(id)
			if k := t.Kind(); k != btf.KindVar && k != btf.KindDatasec {
				lt.insert()
			}
			see(uint32(id), t, base.Extra(id), false)
		}
	} else if base != nil {
		// Only what the local types look up is taken from the base: the
		// prims of their keys and the chains of their enums' names.
		ls := localLookups(src(), view)
		ends := make(map[string]int) // name -> base insertions when its chain was last appended to
		ins := 0
		types, _, _ := base.Raw() // a base's ids are 1 to len(types)
		for id := btf.TypeID(1); id < base.NextID(); id++ {
			t := types[id-1]
			k := t.Kind()
			if k != btf.KindVar && k != btf.KindDatasec {
				ins++
			}
			switch k {
			case btf.KindInt, btf.KindFloat, btf.KindFwd:
				w := base.Extra(id)
				if name := view.bytes(uint32(t.NameOff)); ls.primNames[string(name)] {
					prims[primKey(t, w, name)] = true
				}
			case btf.KindEnum, btf.KindEnum64:
				name := view.bytes(uint32(t.NameOff))
				if !ls.enumNames[string(name)] {
					continue
				}
				// The growths of libbpf's table since this name's last
				// append reverse its chain (insert's effect on it).
				c := lt.chains[string(name)]
				if flips(ends[string(name)], ins) {
					slices.Reverse(c)
				}
				ends[string(name)] = ins
				lt.chains[string(name)] = c
				see(uint32(id), t, base.Extra(id), false)
			}
		}
		for name, c := range lt.chains {
			if flips(ends[name], ins) {
				slices.Reverse(c)
			}
		}
		lt.size, lt.capacity = ins, capacityAfter(ins)
	}
	next := src()
	for id := first; ; id++ {
		t, w, ok := next()
		if !ok {
			break
		}
		see(id, t, w, true)
	}
	p := &enumPlan{to: map[uint32]uint32{}}
	for _, d := range baseDecls {
		// A base declaration that a local enum passed: libbpf maps it
		// (a base type!) to that enum, and local users follow.
		if x := parent[d]; x != d {
			for parent[x] != x {
				x = parent[x]
			}
			p.to[d] = x
		}
	}
	for _, d := range localDecls {
		x := d
		for parent[x] != x {
			x = parent[x]
		}
		if x != d {
			p.to[d] = x
		}
	}
	return p
}

// lookups is what local types look up in the base: the names of their
// INT, FLOAT and FWD types (whose keys decide whether they insert into
// libbpf's table) and of their enums (whose chains they read).
type lookups struct {
	primNames, enumNames map[string]bool
}

// localLookups lists the lookups of the local types next yields.
func localLookups(next Source, view strView) lookups {
	ls := lookups{primNames: map[string]bool{}, enumNames: map[string]bool{}}
	for {
		t, _, ok := next()
		if !ok {
			return ls
		}
		switch t.Kind() {
		case btf.KindInt, btf.KindFloat, btf.KindFwd:
			ls.primNames[string(view.bytes(uint32(t.NameOff)))] = true
		case btf.KindEnum, btf.KindEnum64:
			ls.enumNames[string(view.bytes(uint32(t.NameOff)))] = true
		}
	}
}

// capacityAfter is the capacity of libbpf's table after n insertions
// into an empty one (libbpfTable.insert).
func capacityAfter(n int) int {
	if g := growths(n); g > 0 {
		return 4 << (g - 1)
	}
	return 0
}

// flips reports whether libbpf's table grows an odd number of times
// between a and b insertions (a <= b): a chain untouched meanwhile is then
// reversed.
func flips(a, b int) bool {
	return (growths(b)-growths(a))%2 != 0
}

// growths is the number of times libbpf's table grows during its first n
// insertions: at the first, and then at the first insertion that finds
// (size+1)*4/3 > capacity, size being the insertions before it.
func growths(n int) int {
	g, capacity, size := 0, 0, 0
	for size < n {
		g++
		capacity = max(4, 2*capacity)
		size = (3*(capacity+1)+3)/4 - 1 // the least size with (size+1)*4/3 > capacity
	}
	return g
}
