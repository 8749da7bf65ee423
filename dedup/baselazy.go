package dedup

import "github.com/btfstream/btfstream/btf"

// Indexing a base on demand.
//
// A small module meets a few hundred of the base's ~118k types, so the
// base is not hashed up front (hashBase, basehash.go): one cheap pass
// puts every base type in a group, and a type's hashes and its place in
// the hash chains are made when a lookup first needs them.
//
// Groups. A named type's group key is its name, but a
// DECL_TAG's or TYPE_TAG's (a tag name is shared by hundreds) is its name
// with its kind, numbers and edges; an unnamed STRUCT, UNION, ENUM,
// ENUM64 or FWD's is its label hash; any other unnamed type's (PTR,
// CONST, ARRAY, FUNC_PROTO, ...) is its kind, its numbers and its edges
// as ids (anonKey: no string is read). A name is keyed by its offset if
// the base's strings are unique (btf.Strings.Unique: equal names, equal
// offsets) and every base name is at a string's start; a batch type's
// name then by the offset of the base's equal string (Find; none: no base
// type has that name). Else it is keyed by content. Keys are folded to 32
// bits, and to 29 in groups (two groups that fold alike are one, which
// only adds candidates), which holds them with their types' ids, 4 bytes
// a type. Every type
// that can match a batch type v has v's group: a match needs equal
// labels, hence an equal name or an equal label hash, and, for the
// others, which are only looked up by their exact resolved edges
// (exact), equal edges, since every base type is its own class (below).
// Before a lookup of v's hash, lazyGroup links every member of v's group
// into the hash chain of its own hash (id order, newest first, as
// hashBase links them): the chain then holds, of that hash, every base
// type that can match v, and perhaps others (members of groups linked
// before), which the full chain holds too. A type that cannot match is
// skipped by a lookup, whatever it leaves in the pair memo (a cache), so
// the result is that of the full chains. The types looked up by their
// edges that a batch checks instead (tryCandidates: members of a cycle
// without a struct, synthetic input) take the whole kind (linkKind).
//
// No duplicates. The on-demand index needs every base type to be its own
// class (canon nil), which the pass (baseproof.go) proves: if two
// distinct base types a and b were equivalent, their labels are equal;
// those grouped by name or label hash share a group; the others share a
// group if their edges are the same ids, and otherwise two of their edge
// targets, at one position, are distinct and equivalent. Following
// those, either a group holds an equivalent pair, or the base has a cycle
// through types of the last kind only (no C type does). The pass
// compares the types that share a group key and a label hash, and of
// those the ones of one structural hash (baseBisimilar), and looks for
// such a cycle (anonCycle); if it finds either, or an edge to no type,
// indexBase hashes the whole base as before.
//
// A base type's label signature (d.lh's value), tag and finiteness are
// made by baseReady with hashBase's search, from that type on (a type's
// values depend on the graph only, not on where the search starts), its
// structural hash by baseHashOf, into arrays that hold only the types
// reached; lzState records what is known. d.hash and the others hold the
// table's types only (from d.hoff, the first table id, on).
//
// Per base type: the state (1 byte); per grouped type its groups entry
// (4), and the bucket starts (at most 1 byte a type): 6 at most, about
// 5.5 on a 7.2 vmlinux. Per type reached: hash, tag, lh, fin, id and
// chain link (33 bytes) and 8 to 16 of slots (idIndex). d.hash and the
// others, and d.next, hold the table's types only. The whole base's
// hashing kept 29 bytes a type and an index of 8 to 16. TestLazyBaseBytes
// checks the figures.

// hashedID is a base id with a hash.
type hashedID struct {
	h  uint64
	id uint32
}

// lazyBase is the on-demand state of a base's n types.
type lazyBase struct {
	n     uint32
	state []uint8 // by base id: lz* bits
	// groups: of every grouped base type, its key's low bits above its
	// id (the low idBits), bucketed by the key's top bits (key>>gshift;
	// gstart[b] is the index of bucket b's first), sorted in a bucket (a
	// group is a run, in id order). A group's key is folded to the bits
	// kept (29 of 32).
	groups []uint32
	gstart []uint32
	gshift uint8
	idBits uint8
	// byOff: names are keyed by their offset in the base's strings, which
	// are unique (btf.Strings.Unique); else by content.
	byOff bool
	strs  *btf.Strings
	// names: the batch names nameHash looked up, by content hash (nameH):
	// their base offsets in nameOff, or, for those the base does not have,
	// notBase and their offset in notIn (a copy, NUL-terminated).
	names   hindex
	nameH   []uint64
	nameOff []uint32
	notIn   []byte
	// slot: base id -> 1 + the index of its values in the arrays below
	// (0: none yet); hash, tag, lh, fin and next are d.hash's and so on
	// of the base types reached, ids the base id of each.
	slot                    idIndex
	hash, tag, lh           []uint64
	fin                     []bool
	ids, next               []uint32
	view                    strView
	linked                  [btf.MaxKind + 1]bool
	stack, pos, vals, edges []uint32   // baseReady's, reused
	ws                      [][]uint32 // baseReady's: the words of each type on its stack
}

// lzState bits.
const (
	lzOpen   = 1 << iota // on a search's stack
	lzReady              // lh, tag and fin are set
	lzCut                // a cut point (lh and tag are its cutKey)
	lzHash               // hash is set
	lzLinked             // in the hash chain of its hash
	lzAnon               // an unnamed type that is not an aggregate (anonKey's group)
	lzGroup              // the first member of a group all linked
)

// Group key kinds.
const (
	gkNamed = 0x6e616d65
	gkAgg   = 0x61676772
	gkAnon  = 0x616e6f6e
)

// lazyBaseOff makes indexBase hash the whole base (tests compare).
var lazyBaseOff = false

// isAggKind reports whether k's unnamed types are grouped by label hash.
func isAggKind(k btf.Kind) bool {
	switch k {
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindFwd:
		return true
	}
	return false
}

// named returns the string at off (through v) and whether it is not empty.
func named(v *strView, off uint32) ([]byte, bool) {
	b := v.tail(off)
	return b, len(b) > 0 && b[0] != 0
}

// groupKey folds a group's 64-bit key to the 32 bits kept (two groups
// that fold alike are one: a group may hold more than it must).
func groupKey(h uint64) uint32 { return uint32(h ^ h>>32) }

// anonKey is the group key of an unnamed non-aggregate: its kind and
// numbers, and its edges as ref maps them (nil: as they are).
func anonKey(t btf.Type, w []uint32, ref func(uint32) uint32) uint32 {
	k := t.Kind()
	h := mix(gkAnon, uint64(t.Info))
	if !k.HasType() {
		h = mix(h, uint64(t.SizeOrType))
	}
	// A FUNC_PROTO's words are names and edges only.
	if sh := &shapes[k]; sh.stride != 0 && k != btf.KindFuncProto {
		p := 0
		for _, x := range w {
			if sh.class[p] == wNum {
				h = mix(h, uint64(x))
			}
			if p++; p == int(sh.stride) {
				p = 0
			}
		}
	}
	// The edges, as numRefs and refAt read them.
	rs := &refShapes[k&0x7f]
	if rs.hasType {
		c := t.SizeOrType
		if ref != nil {
			c = ref(c)
		}
		h = mix(h, uint64(c))
	}
	if rs.stride != 0 {
		m := int(rs.fixed)
		if m == 0 {
			m = int(t.Vlen())
		}
		for j := int(rs.first); m > 0; j, m = j+int(rs.stride), m-1 {
			c := w[j]
			if ref != nil {
				c = ref(c)
			}
			h = mix(h, uint64(c))
		}
	}
	return groupKey(finalize(h))
}

func namedKey(nameHash uint64) uint32 { return groupKey(finalize(mix(gkNamed, nameHash))) }

// tagKey is the group key of a DECL_TAG or TYPE_TAG: its name with
// anonKey's (a tag name is shared by many, told apart by their targets).
func tagKey(nameHash uint64, t btf.Type, w []uint32, ref func(uint32) uint32) uint32 {
	return groupKey(finalize(mix(nameHash, uint64(anonKey(t, w, ref)))))
}

// isTagKind reports whether k is grouped by tagKey.
func isTagKind(k btf.Kind) bool { return k == btf.KindDeclTag || k == btf.KindTypeTag }

func aggKeyOf(lh uint64) uint32 { return groupKey(finalize(mix(gkAgg, lh))) }

// at returns the index of base type id's values, making room for them.
func (lz *lazyBase) at(id uint32) uint32 {
	if s := lz.slotOf(id); s != 0 {
		return s - 1
	}
	lz.ids = append(lz.ids, id)
	lz.hash, lz.tag, lz.lh, lz.fin = append(lz.hash, 0), append(lz.tag, 0), append(lz.lh, 0), append(lz.fin, false)
	lz.next = append(lz.next, 0)
	lz.slot.add(lz.ids)
	return uint32(len(lz.ids) - 1)
}

// slotOf returns 1 + the index of base type id's values, or 0.
func (lz *lazyBase) slotOf(id uint32) uint32 { return lz.slot.find(id, lz.ids) }

// isBase reports whether id is a base type indexed on demand.
func (d *Incremental) isBase(id uint32) bool { return d.lz != nil && id <= d.lz.n }

// exTag, exLHReady and exFin return d.tag's, d.lh's and d.fin's value for
// an existing id, made on demand for a base type.
func (d *Incremental) exTag(id uint32) uint64 {
	if !d.isBase(id) {
		return d.tag[id-d.hoff]
	}
	return d.lz.tag[d.baseReady(id)]
}

func (d *Incremental) exLHReady(id uint32) uint64 {
	if !d.isBase(id) {
		return d.lh[id-d.hoff]
	}
	return d.lz.lh[d.baseReady(id)]
}

func (d *Incremental) exFin(id uint32) bool {
	if !d.isBase(id) {
		return d.fin[id-d.hoff]
	}
	return d.lz.fin[d.baseReady(id)]
}

// exLH returns the label signature of an existing id (d.lh's value),
// without storing it for a base type not searched yet.
func (d *Incremental) exLH(id uint32) uint64 {
	if !d.isBase(id) {
		return d.lh[id-d.hoff]
	}
	if d.lz.state[id]&lzReady != 0 {
		return d.lz.lh[d.lz.slotOf(id)-1]
	}
	nd := d.baseNode(id)
	if key, cut := cutKey(nd); cut {
		return key
	}
	return labelHash(nd)
}

// exHash returns the structural hash of an existing id.
func (d *Incremental) exHash(id uint32) uint64 {
	if !d.isBase(id) {
		return d.hash[id-d.hoff]
	}
	lz := d.lz
	if lz.state[id]&lzHash == 0 {
		d.baseHashOf(id)
	}
	return lz.hash[lz.slotOf(id)-1]
}

func (d *Incremental) baseNode(id uint32) node {
	return node{d.base.Type(btf.TypeID(id)), d.base.Extra(btf.TypeID(id)), &d.lz.view}
}

// baseReady makes lh, tag and fin of base type root known and returns the
// index of its values: hashBase's search from root, over the types it
// reaches that had none.
func (d *Incremental) baseReady(root uint32) uint32 {
	lz := d.lz
	if lz.state[root]&lzReady != 0 {
		return lz.slotOf(root) - 1
	}
	// visit gives x its lh and returns the index of its values and
	// whether it is to be searched.
	// The words of the type visited last: a sparse base counts them
	// from an anchor, so the search keeps them on its stack (ws).
	var visited []uint32
	visit := func(x uint32) (uint32, bool) {
		nd := d.baseNode(x)
		visited = nd.w
		i := lz.at(x)
		if key, cut := cutKey(nd); cut {
			lz.lh[i], lz.tag[i], lz.fin[i] = key, key, true
			lz.state[x] |= lzReady | lzCut
			return i, false
		}
		lz.lh[i], lz.fin[i] = labelHash(nd), true
		lz.state[x] |= lzOpen
		return i, true
	}
	ri, ok := visit(root)
	if !ok {
		return ri
	}
	// stack: the ids searched, pos: the next edge of each, at: the index
	// of its values.
	stack, pos, at, ws := append(lz.stack[:0], root), append(lz.pos[:0], 0), append(lz.vals[:0], ri), append(lz.ws[:0], visited)
	defer func() { lz.stack, lz.pos, lz.vals, lz.ws = stack[:0], pos[:0], at[:0], ws[:0] }()
	for len(stack) > 0 {
		top := len(stack) - 1
		x, xi := stack[top], at[top]
		t, w := d.base.Type(btf.TypeID(x)), ws[top]
		if j := int(pos[top]); j < numRefs(t, w) {
			pos[top]++
			c := refAt(t, w, j)
			s := lz.state[c]
			switch {
			case s&lzReady != 0: // read when x is done
			case s&lzOpen != 0:
				lz.fin[xi] = false
			default:
				if ci, ok := visit(c); ok {
					stack, pos, at, ws = append(stack, c), append(pos, 0), append(at, ci), append(ws, visited)
				}
			}
			continue
		}
		stack, pos, at, ws = stack[:top], pos[:top], at[:top], ws[:top]
		// Every edge now leads to a type done (or open: fin is false).
		k := numRefs(t, w)
		edges := lz.edges[:0]
		fin := lz.fin[xi]
		for j := 0; j < k; j++ {
			c := refAt(t, w, j)
			ci := lz.slotOf(c) - 1
			edges = append(edges, ci)
			fin = fin && (lz.state[c]&lzReady == 0 || lz.fin[ci])
		}
		lz.edges = edges
		h := lz.lh[xi]
		if fin {
			for _, ci := range edges {
				h = mix(h, lz.tag[ci])
			}
		} else {
			for _, ci := range edges {
				h = mix(h, lz.lh[ci])
			}
		}
		lz.fin[xi] = fin
		lz.tag[xi] = finalize(h)
		lz.state[x] = lz.state[x]&^lzOpen | lzReady
	}
	return ri
}

// baseHashOf sets the structural hash of base type id: its tag if it is
// finite and not a cut point, else its label hash mixed with its edges'
// tags (as hashBase).
func (d *Incremental) baseHashOf(id uint32) {
	lz := d.lz
	i := d.baseReady(id)
	if lz.state[id]&lzCut == 0 && lz.fin[i] {
		lz.hash[i] = lz.tag[i]
	} else {
		nd := d.baseNode(id)
		h := lz.lh[i]
		if lz.state[id]&lzCut != 0 {
			h = labelHash(nd)
		}
		for j, k := 0, numRefs(nd.t, nd.w); j < k; j++ {
			h = mix(h, d.exTag(refAt(nd.t, nd.w, j)))
		}
		lz.hash[i] = finalize(h)
	}
	lz.state[id] |= lzHash
}

// baseHead returns the newest base id of hash h, or 0.
func (d *Incremental) baseHead(h uint64) uint32 {
	if d.lz == nil {
		return d.baseIndex.find(h, d.hash, 0)
	}
	if s := d.baseIndex.find(h, d.lz.hash, 1); s != 0 {
		return d.lz.ids[s-1]
	}
	return 0
}

// linkBase puts base type id in the chain of its hash, which is kept in
// id order, newest first (d.next); the table's oldest type of that hash
// links to the chain's head.
func (d *Incremental) linkBase(id uint32) {
	lz := d.lz
	lz.state[id] |= lzLinked
	h := d.exHash(id)
	i := lz.slotOf(id) - 1
	head := d.baseHead(h)
	if head != 0 && head > id {
		p := lz.slotOf(head) - 1
		for nx := lz.next[p]; nx != 0 && nx > id; nx = lz.next[p] {
			p = lz.slotOf(nx) - 1
		}
		lz.next[i], lz.next[p] = lz.next[p], id
		return
	}
	d.baseIndex.put(h, i+1, lz.hash, 1)
	lz.next[i] = head
	t := d.index.find(h, d.hash, d.hoff)
	if t == 0 {
		return
	}
	for d.next[t-d.hoff] > lz.n {
		t = d.next[t-d.hoff]
	}
	d.next[t-d.hoff] = id
}

// nextOf returns the next older id of c's hash chain (d.next's value; a
// base type indexed on demand keeps its own).
func (d *Incremental) nextOf(c uint32) uint32 {
	if c >= d.hoff {
		return d.next[c-d.hoff]
	}
	return d.lz.next[d.lz.slotOf(c)-1]
}

// lazyGroup links the members of the group of key into the hash chains.
func (d *Incremental) lazyGroup(key uint32) {
	lz := d.lz
	g := lz.group(key)
	if len(g) == 0 || lz.state[lz.idOf(g[0])]&lzGroup != 0 {
		return
	}
	for _, e := range g {
		if c := lz.idOf(e); lz.state[c]&lzLinked == 0 {
			d.linkBase(c)
		}
	}
	lz.state[lz.idOf(g[0])] |= lzGroup
}

// linkKind links every base type of kind k into the hash chains.
func (d *Incremental) linkKind(k btf.Kind) {
	lz := d.lz
	if lz.linked[k] || d.neverMerged(k) {
		return
	}
	lz.linked[k] = true
	types, _, _ := d.base.Raw()
	for i, t := range types {
		if id := uint32(i + 1); t.Kind() == k && lz.state[id]&lzLinked == 0 {
			d.linkBase(id)
		}
	}
}

// lazyChain makes the base part of the hash chain that batch type v looks
// up complete for v: every base type that can match v is linked. checked:
// v is checked against its candidates (tryCandidates), not only compared
// by its resolved edges (exact).
func (st *batchState) lazyChain(v uint32, checked bool) {
	if st.d.lz != nil {
		st.d.linkCandidates(st.bnode(v), checked, st.resolve)
	}
}

// linkCandidates is lazyChain for a type n whose edges resolve maps to
// classes (none: not resolved).
func (d *Incremental) linkCandidates(n node, checked bool, resolve func(uint32) uint32) {
	k := n.t.Kind()
	if d.neverMerged(k) {
		return
	}
	inBase := true
	resolved := func(c uint32) uint32 {
		r := resolve(c)
		if r == none || r > d.lz.n {
			inBase = false
		}
		return r
	}
	b, isNamed := named(n.s, uint32(n.t.NameOff))
	var nh uint64
	if isNamed && !(checked && isTagKind(k)) {
		var ok bool
		if nh, ok = d.lz.nameHash(uint32(n.t.NameOff), b); !ok {
			return // no base type has its name
		}
	}
	switch {
	case isNamed && !isTagKind(k):
		d.lazyGroup(namedKey(nh))
	case !isNamed && isAggKind(k):
		d.lazyGroup(aggKeyOf(labelHash(n)))
	case checked:
		d.linkKind(k)
	case isNamed:
		if key := tagKey(nh, n.t, n.w, resolved); inBase {
			d.lazyGroup(key)
		}
	default:
		if key := anonKey(n.t, n.w, resolved); inBase {
			d.lazyGroup(key)
		}
	}
}
