package encode

import (
	"debug/dwarf"
	"slices"

	"github.com/btfstream/btfstream/stream/dwarfread"
)

// ClosureKeys computes, before a unit is encoded, a key for each of its
// type DIEs that covers everything the encoder reads to build that type
// and every type it reaches: equal keys (in units of one file, encoded
// with one Encoder) mean equal BTF closures, up to isomorphism. It is the
// first half of skipping types an earlier unit already produced (issue
// 18: a vmlinux's units encode ~5M types for ~119k output types), which
// closureskip.go does. bench/skipmeasure checks the claim on
// whole kernels (on the 7.2 and 6.12 vmlinux: no two DIEs of equal key
// and closures without declarations gave different BTF closures, or went
// into different classes).
//
// The key of a type DIE:
//
//   - Its label: the unit's language and DWARF version, then its tag and every attribute
//     but DW_AT_sibling and DW_AT_decl_file/line/column (which the
//     encoder never reads for a type), strings by .debug_str offset (or
//     content when inline: a string met both ways gives two keys, never
//     one key for two strings), constants and flags by value, blocks by
//     their bytes, references as a placeholder; then, recursively, its
//     children that are not types (members, enumerators, subranges,
//     parameters) the same way. An ARRAY's label also holds the label of
//     the unit's first base type named "int", which is the index type the
//     encoder gives it (or none, when it appends one).
//   - Its edges: the targets of those references and its children that
//     are types, in order.
//   - A DIE in no cycle: its label mixed with its targets' keys.
//     The members of a cycle (Tarjan's strongly connected components):
//     a walk from the member with the smallest label hash that no other
//     member has, depth first along edges, numbering members as it meets
//     them, hashing labels, back references by number and other targets
//     by key; each member's key is that hash mixed with its number. So
//     isomorphic components hash alike whatever order the unit wrote them
//     in.
//
// A DIE gets key 0 (none) when its closure holds a reference that leaves
// the unit, leads to a DIE that is not a type (a GCC annotation, say), has
// a form whose class is not understood, or a cycle with no member of a
// unique label. Decl reports whether the closure holds a declaration (a
// struct, union or enum with DW_AT_declaration, or an enum without
// enumerators): these become FWDs or enum declarations, and dedup may put
// two equal closures holding one into different classes (forward
// declarations resolve over time), so only keys with Decl false can stand
// for a class.
//
// Keys are 64-bit hashes: on a vmlinux (~5M type DIEs, ~200k distinct
// keys) a collision is about a one in a million chance per build; a user
// that must never be wrong on a collision compares the closures.
type ClosureKeys struct {
	cu *dwarfread.CU
	// The unit's type DIEs are numbered densely in section order (nodes):
	// the per-node arrays below are a quarter of the unit's DIEs.
	die   []int32   // per node: its DIE
	nodes nodeIndex // the nodes by offset
	st    []nodeState
	at    []int32  // edges of node x: edges[at[x]:at[x+1]]; -1 spoils
	edges []int32  // nodes
	keys  []uint64 // per DIE (Unit's result)
	decl  []bool   // per DIE (Unit's result)
	stack []int32
	next  int32
	hs    []uint64  // scratch: a component's label hashes
	plans []keyPlan // per abbreviation (closurekey_plan.go); nil: label reads DIE.AttrAt
	ops   []keyOp
	// noPlans: label through DIE.AttrAt only (tests compare the two).
	noPlans bool
	// Unkeyed counts the type DIEs given key 0, over all units.
	Unkeyed int
}

// nodeState is what ClosureKeys knows of one node, in one place for
// Tarjan's walk, which reaches nodes in any order (32 bytes).
type nodeState struct {
	lh, key    uint64 // label hash; key (0: none, or not yet)
	index, low int32  // Tarjan's, index from 1 (0: not visited)
	num        int32  // 1 + canonical number in a component being hashed (0: none, -3: not met yet)
	on, decl   bool   // on Tarjan's stack; the closure holds a declaration
}

// Unit computes the keys of cu's DIEs: keys[i] for DIE i (0 for DIEs that
// are not types, and for unkeyed ones), decl[i] as above. The slices are
// k's, valid until the next Unit.
func (k *ClosureKeys) Unit(cu *dwarfread.CU) (keys []uint64, decl []bool) {
	n := int(cu.Len())
	k.cu = cu
	k.die = k.die[:0]
	k.nodes.start(cu)
	k.edges = k.edges[:0]
	k.keys = resize(k.keys, n)
	k.decl = resize(k.decl, n)
	k.plans, k.ops = nil, k.ops[:0]
	if !k.noPlans && !cu.HasIndirect() {
		k.plans = resize(k.plans[:cap(k.plans)], cu.NumAbbrevs())
	}
	intDIE := int32(-1)
	tags := cu.Tags()
	// Every DIE once: the nodes, and (with plans) every abbreviation's
	// plan, which labelPlan then takes as ready.
	plans := k.plans
	for i := range n {
		var tag dwarf.Tag
		if plans != nil {
			p := &plans[tags[i].Abbrev]
			if p.state == planUnknown {
				p = k.newPlan(tags[i].Abbrev, int32(i))
			}
			if !p.isType {
				continue
			}
			tag = dwarf.Tag(p.tag)
		} else if tag = cu.DIE(dwarfread.TagID(i)).Tag(); !isTypeTag(tag) {
			continue
		}
		k.die = append(k.die, int32(i))
		k.nodes.add(tags[i].Off)
		if intDIE < 0 && tag == dwarf.TagBaseType && cu.DIE(dwarfread.TagID(i)).Name() == "int" {
			intDIE = int32(i)
		}
	}
	nn := len(k.die)
	k.nodes.index()
	k.st = resize(k.st, nn)
	k.at = resize(k.at, nn+1)
	intLabel := uint64(0x1d)
	if intDIE >= 0 {
		intLabel = mixKey(k.label(cu.DIE(dwarfread.TagID(intDIE)), 0x1d), 0xd)
		k.edges = k.edges[:0] // the int's label records none that count
	}
	// The DWARF version decides what some forms mean (a data4
	// DW_AT_data_member_location is a location list pointer before
	// DWARF 4, which the encoder does not read as a constant).
	lang := mixKey(mixKey(0x7e, uint64(cu.Language())), uint64(cu.Version()))
	vals := cu.Vals()
	for x, i := range k.die {
		k.at[x] = int32(len(k.edges))
		var h uint64
		var tag dwarf.Tag
		if k.plans != nil {
			p := &k.plans[tags[i].Abbrev]
			h = k.labelPlan(tags, vals, i, lang)
			tag = dwarf.Tag(p.tag)
			if p.declFlag > 0 && vals[tags[i].Vals+uint32(p.declFlag)-1] != 0 {
				k.st[x].decl = true
			}
		} else {
			d := cu.DIE(dwarfread.TagID(i))
			h = k.label(d, lang)
			tag = d.Tag()
			switch tag {
			case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType, dwarf.TagEnumerationType:
				if a, ok := d.Attr(dwarf.AttrDeclaration); ok && a.Flag() {
					k.st[x].decl = true
				}
			}
		}
		h = mixKey(h, 0xd)
		switch tag {
		case dwarf.TagArrayType:
			h = mixKey(h, intLabel)
		case dwarf.TagEnumerationType:
			if tags[i].FirstChild == dwarfread.NoTag {
				k.st[x].decl = true
			}
		}
		k.st[x].lh = h
	}
	k.at[nn] = int32(len(k.edges))
	k.next = 1 // index 0: not visited (as resize leaves it)
	for x := range nn {
		if k.st[x].index == 0 {
			k.strong(int32(x))
		}
	}
	for x, i := range k.die {
		k.keys[i], k.decl[i] = k.st[x].key, k.st[x].decl
	}
	return k.keys, k.decl
}

// Forms whose value the key reads as it is.
const (
	keyFormString      = 0x08 // DW_FORM_string: inline
	keyFormStrp        = 0x0e // DW_FORM_strp: a .debug_str offset
	keyFormFlag        = 0x0c
	keyFormFlagPresent = 0x19
)

func keyDataForm(f uint16) bool {
	switch f {
	case 0x05, 0x06, 0x07, 0x0b, 0x0d, 0x0f, 0x21: // data2/4/8, data1, sdata, udata, implicit_const
		return true
	}
	return false
}

// isTypeTag reports the tags the encoder makes a type of (or void).
func isTypeTag(t dwarf.Tag) bool {
	switch t {
	case dwarf.TagArrayType, dwarf.TagStringType, dwarf.TagBaseType, dwarf.TagConstType,
		dwarf.TagReferenceType, dwarf.TagRestrictType, dwarf.TagVolatileType, tagAtomicType,
		dwarf.TagPtrToMemberType, dwarf.TagTypedef, dwarf.TagRvalueReferenceType,
		dwarf.TagEnumerationType, dwarf.TagUnspecifiedType, dwarf.TagPointerType,
		dwarf.TagStructType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType,
		dwarf.TagSubroutineType:
		return true
	}
	return false
}

// mixKey is a 64-bit mixing step (murmur3's finaliser over a combine).
func mixKey(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	h *= 0xff51afd7ed558ccd
	return h ^ h>>32
}

// label hashes d and its descendants that are not types, appending the
// edges it meets, as labelPlan does through plans: the DIE's shape (tag,
// attributes and how each is read, planHash) first, then the values.
// Words are folded in with one multiply each (acc), children's labels
// closed by a word, and Unit mixes the whole once: most of the key's cost
// is here.
func (k *ClosureKeys) label(d dwarfread.DIE, h uint64) uint64 {
	n := d.NumAttrs()
	ph := planStart(uint16(d.Tag()))
	for j := 0; j < n; j++ {
		a := d.AttrAt(j)
		if !keyIgnored(a.At) {
			ph = planAdd(ph, uint16(a.At), opKind(a.Form))
		}
	}
	h = acc(h, planEnd(ph))
	for j := 0; j < n; j++ {
		a := d.AttrAt(j)
		if keyIgnored(a.At) {
			continue
		}
		switch opKind(a.Form) {
		case opRef:
			k.edge(a)
		case opStrp, opFlag, opData:
			h = acc(h, a.Val)
		default:
			h = k.attrSlow(a, acc(h, uint64(a.At)<<8))
		}
	}
	for c := d.FirstChild(); c.ID() != dwarfread.NoTag; c = c.NextSibling() {
		if x := k.nodes.find(c.Offset()); x >= 0 {
			h = acc(h, 0xe)
			k.edges = append(k.edges, x)
			continue
		}
		h = k.label(c, acc(h, 0xc))
	}
	return acc(h, 0xd)
}

// keyIgnored reports the attributes the encoder never reads for a type.
func keyIgnored(at dwarf.Attr) bool {
	switch at {
	case dwarf.AttrSibling, dwarf.AttrDeclFile, dwarf.AttrDeclLine, dwarf.AttrDeclColumn:
		return true
	}
	return false
}

// attrSlow folds attribute a's value into h (after its name), or
// appends its edge.
func (k *ClosureKeys) attrSlow(a dwarfread.Attr, h uint64) uint64 {
	switch a.Form {
	case formRef1, formRef2, formRef4, formRef8, formRefUdata:
		k.edge(a)
		return h
	case keyFormStrp:
		return acc(acc(h, 1), a.Val)
	case keyFormFlag, keyFormFlagPresent:
		return acc(acc(h, 3), a.Val)
	}
	if keyDataForm(a.Form) {
		// A data form's value is the constant (also where DWARF 2
		// and 3 call it a section offset: the same offset is the
		// same data).
		return acc(acc(h, 4), a.Val)
	}
	switch cl := a.Class(); {
	case cl == dwarf.ClassReference:
		k.edge(a)
	case cl == dwarf.ClassString && a.Form != formGNUStrpAlt:
		if off, ok := a.DebugStrOffset(); ok {
			h = acc(acc(h, 1), off)
		} else if s, err := a.String(); err == nil && a.Form == keyFormString {
			h = acc(h, 2)
			for i := 0; i < len(s); i++ {
				h = acc(h, uint64(s[i]))
			}
		} else {
			k.edges = append(k.edges, -1)
		}
	case cl == dwarf.ClassExprLoc || cl == dwarf.ClassBlock:
		b := a.Block()
		h = acc(acc(h, 5), uint64(len(b)))
		for _, c := range b {
			h = acc(h, uint64(c))
		}
	default:
		k.edges = append(k.edges, -1) // not understood: no key
	}
	return h
}

// acc folds v into h (FNV-1a's step on a word); whoever ends a sequence
// mixes the result (mixKey).
func acc(h, v uint64) uint64 { return (h ^ v) * 0x100000001b3 }

// edge appends the target of reference a: a type DIE of the unit, or -1
// (no key) for anything else, references by section offset included.
func (k *ClosureKeys) edge(a dwarfread.Attr) {
	if a.Form != formRefAddr {
		k.ref(a.Ref())
	} else {
		k.edges = append(k.edges, -1)
	}
}

// ref appends the node at off, or -1 if off is no type DIE of the unit.
func (k *ClosureKeys) ref(off dwarfread.DIEOff) {
	k.edges = append(k.edges, k.nodes.find(off))
}

// strong is Tarjan's walk from node x. It hashes x's key as it goes, on
// the chance that x is a component of its own (most are): each target is
// then done, or x itself. Targets' keys, already mixed, are folded in
// with acc and the sum mixed once.
func (k *ClosureKeys) strong(x int32) {
	sx := &k.st[x] // k.st stays put during the walk
	sx.index, sx.low = k.next, k.next
	k.next++
	k.stack = append(k.stack, x)
	sx.on = true
	h, bad, decl, loop := sx.lh, false, sx.decl, false
	for _, y := range k.edges[k.at[x]:k.at[x+1]] {
		if y < 0 {
			bad = true
			continue
		}
		sy := &k.st[y]
		if sy.index == 0 {
			k.strong(y)
			sx.low = min(sx.low, sy.low)
		} else if sy.on {
			sx.low = min(sx.low, sy.index)
			loop = loop || y == x
		}
		if sy.key != 0 {
			h = acc(h, sy.key)
			decl = decl || sy.decl
		} else {
			bad = true
		}
	}
	if sx.low != sx.index {
		return
	}
	j := len(k.stack) - 1
	if k.stack[j] == x && !loop {
		// A component of one node and no loop: its key is h.
		k.stack = k.stack[:j]
		sx.on = false
		sx.decl = decl
		sx.key = mixKey(h, 0x1f) | 1
		if bad {
			sx.key = 0
			k.Unkeyed++
		}
		return
	}
	for k.stack[j] != x {
		j--
	}
	comp := k.stack[j:]
	for _, m := range comp {
		k.st[m].on = false
	}
	k.hashComp(comp)
	k.stack = k.stack[:j]
}

// hashComp gives the members of one component (of a cycle) their keys;
// the components they reach have theirs.
func (k *ClosureKeys) hashComp(comp []int32) {
	root := k.uniqueRoot(comp)
	if root < 0 {
		for _, m := range comp {
			k.st[m].key = 0
		}
		k.Unkeyed += len(comp)
		return
	}
	for _, m := range comp {
		k.st[m].num = -3 // a member not met yet
	}
	w := compWalk{k: k, h: 0x51}
	w.walk(root)
	for _, m := range comp {
		k.st[m].key = mixKey(w.h, uint64(k.st[m].num-1)) | 1
		k.st[m].decl = w.decl
		if w.bad {
			k.st[m].key = 0
		}
		k.st[m].num = 0
	}
	if w.bad {
		k.Unkeyed += len(comp)
	}
}

// uniqueRoot returns the member with the smallest label hash that no
// other member has, -1 if every label hash repeats.
func (k *ClosureKeys) uniqueRoot(comp []int32) int32 {
	k.hs = k.hs[:0]
	for _, m := range comp {
		k.hs = append(k.hs, k.st[m].lh)
	}
	slices.Sort(k.hs)
	for j, h := range k.hs {
		if (j > 0 && k.hs[j-1] == h) || (j+1 < len(k.hs) && k.hs[j+1] == h) {
			continue
		}
		for _, m := range comp {
			if k.st[m].lh == h {
				return m
			}
		}
	}
	return -1
}

// compWalk is the canonical walk of one component. Its words are folded
// with acc (labels and keys are mixed already); hashComp mixes the sum
// into each member's key.
type compWalk struct {
	k         *ClosureKeys
	h         uint64
	n         int32
	bad, decl bool
}

func (w *compWalk) walk(x int32) {
	k := w.k
	k.st[x].num = w.n + 1
	w.n++
	w.h = acc(w.h, k.st[x].lh)
	w.decl = w.decl || k.st[x].decl
	for _, y := range k.edges[k.at[x]:k.at[x+1]] {
		switch {
		case y < 0:
			w.bad = true
		case k.st[y].num > 0:
			w.h = acc(w.h, 0xb0000000|uint64(k.st[y].num-1))
		case k.st[y].num == -3:
			w.h = acc(w.h, 0xf)
			w.walk(y)
		default:
			w.h = acc(w.h, k.st[y].key)
			w.bad = w.bad || k.st[y].key == 0
			w.decl = w.decl || k.st[y].decl
		}
	}
}
