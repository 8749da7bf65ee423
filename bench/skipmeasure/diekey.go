package main

import (
	"debug/dwarf"
	"slices"

	"github.com/btfstream/btfstream/stream/dwarfread"
)

// dieKeyer computes sound DIE-level closure keys: a type DIE's key is a
// hash of everything the encoder could read from it, its descendants
// (members, enumerators, subranges, parameters) and every type DIE they
// reach, up to isomorphism, computed like closer's BTF keys: labels (all
// attributes but DW_AT_sibling and DW_AT_decl_file, strings by .debug_str
// offset or content, references as placeholders), Tarjan's components
// over the references, a canonical walk per cyclic component. A DIE whose
// closure reaches a reference out of the unit or to a DIE that is not a
// type gets key 0 (unkeyed). decl says the closure holds a declaration
// (DW_AT_declaration) or an enum without enumerators: what becomes a FWD
// or an enum declaration in BTF.
type dieKeyer struct {
	cu     *dwarfread.CU
	node   []bool
	lh     []uint64
	at     []int32 // edges of node i: edges[at[i]:at[i+1]] (-1: poison)
	edges  []int32
	keys   []uint64
	decl   []bool
	index  []int32
	low    []int32
	on     []bool
	num    []int32
	stack  []int32
	next   int32
	unkey  int
	sccMax int
}

func isTypeTag(t dwarf.Tag) bool {
	switch t {
	case dwarf.TagArrayType, dwarf.TagStringType, dwarf.TagBaseType, dwarf.TagConstType,
		dwarf.TagReferenceType, dwarf.TagRestrictType, dwarf.TagVolatileType, 0x47,
		dwarf.TagPtrToMemberType, dwarf.TagTypedef, dwarf.TagRvalueReferenceType,
		dwarf.TagEnumerationType, dwarf.TagUnspecifiedType, dwarf.TagPointerType,
		dwarf.TagStructType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType,
		dwarf.TagSubroutineType:
		return true
	}
	return false
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// unit computes the keys of cu's type DIEs (index by DIE; 0 elsewhere).
func (k *dieKeyer) unit(cu *dwarfread.CU) ([]uint64, []bool) {
	n := int(cu.Len())
	k.cu = cu
	k.node = grow(k.node, n)
	k.lh = grow(k.lh, n)
	k.at = grow(k.at, n+1)
	k.edges = k.edges[:0]
	k.keys = grow(k.keys, n)
	k.decl = grow(k.decl, n)
	k.index = grow(k.index, n)
	k.low = grow(k.low, n)
	k.on = grow(k.on, n)
	k.num = grow(k.num, n)
	lang := uint64(cu.Language())
	for i := range n {
		k.node[i] = isTypeTag(cu.DIE(dwarfread.TagID(i)).Tag())
	}
	for i := range n {
		k.at[i] = int32(len(k.edges))
		k.index[i], k.num[i] = -1, -1
		if !k.node[i] {
			continue
		}
		d := cu.DIE(dwarfread.TagID(i))
		h := mix(lang, 0x7e)
		h = k.label(d, h, true)
		k.lh[i] = h
		switch d.Tag() {
		case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType, dwarf.TagEnumerationType:
			if a, ok := d.Attr(dwarf.AttrDeclaration); ok && a.Flag() {
				k.decl[i] = true
			}
			if d.Tag() == dwarf.TagEnumerationType && d.FirstChild().ID() == dwarfread.NoTag {
				k.decl[i] = true
			}
		}
	}
	k.at[n] = int32(len(k.edges))
	k.next = 0
	for i := range n {
		if k.node[i] && k.index[i] < 0 {
			k.strong(int32(i))
		}
	}
	for i := range n {
		if !k.node[i] {
			k.keys[i] = 0
		}
	}
	return k.keys, k.decl
}

// label hashes d's attributes and its descendants' (type DIEs among the
// descendants are edges, not part of the label), appending the edges.
func (k *dieKeyer) label(d dwarfread.DIE, h uint64, top bool) uint64 {
	h = mix(h, uint64(d.Tag()))
	n := d.NumAttrs()
	for j := 0; j < n; j++ {
		a := d.AttrAt(j)
		switch a.At {
		case dwarf.AttrSibling, dwarf.AttrDeclFile:
			continue
		}
		h = mix(h, uint64(a.At))
		switch a.Class() {
		case dwarf.ClassReference:
			h = mix(h, 0xe)
			t, ok := k.cu.Lookup(a.Ref())
			if !ok || !k.node[t] {
				k.edges = append(k.edges, -1)
			} else {
				k.edges = append(k.edges, int32(t))
			}
		case dwarf.ClassString:
			h = mix(h, k.str(a))
		case dwarf.ClassExprLoc, dwarf.ClassBlock:
			for _, c := range a.Block() {
				h = mix(h, uint64(c))
			}
		case dwarf.ClassConstant, dwarf.ClassFlag:
			h = mix(h, a.Val)
		default:
			h = mix(h, 0xbad)
			k.edges = append(k.edges, -1) // not understood: poison
		}
	}
	for c := d.FirstChild(); c.ID() != dwarfread.NoTag; c = c.NextSibling() {
		if k.node[c.ID()] {
			h = mix(h, 0xe)
			k.edges = append(k.edges, int32(c.ID()))
			continue
		}
		h = k.label(c, mix(h, 0xc), false)
	}
	return mix(h, 0xd)
}

func (k *dieKeyer) str(a dwarfread.Attr) uint64 {
	if off, ok := a.DebugStrOffset(); ok {
		return mix(1, off)
	}
	s, _ := a.String()
	h := uint64(2)
	for j := 0; j < len(s); j++ {
		h = mix(h, uint64(s[j]))
	}
	return h
}

func (k *dieKeyer) strong(x int32) {
	k.index[x], k.low[x] = k.next, k.next
	k.next++
	k.stack = append(k.stack, x)
	k.on[x] = true
	for _, y := range k.edges[k.at[x]:k.at[x+1]] {
		if y < 0 {
			continue
		}
		if k.index[y] < 0 {
			k.strong(y)
			k.low[x] = min(k.low[x], k.low[y])
		} else if k.on[y] {
			k.low[x] = min(k.low[x], k.index[y])
		}
	}
	if k.low[x] != k.index[x] {
		return
	}
	j := len(k.stack) - 1
	for k.stack[j] != x {
		j--
	}
	comp := k.stack[j:]
	for _, m := range comp {
		k.on[m] = false
	}
	k.hashComp(comp)
	k.stack = k.stack[:j]
}

func (k *dieKeyer) hashComp(comp []int32) {
	if len(comp) == 1 {
		x := comp[0]
		self, bad, decl := false, false, k.decl[x]
		h := k.lh[x]
		for _, y := range k.edges[k.at[x]:k.at[x+1]] {
			switch {
			case y < 0:
				bad = true
			case y == x:
				self = true
			default:
				h = mix(h, k.keys[y])
				bad = bad || k.keys[y] == 0
				decl = decl || k.decl[y]
			}
		}
		if !self {
			k.decl[x] = decl
			k.keys[x] = h | 1
			if bad {
				k.keys[x] = 0
				k.unkey++
			}
			return
		}
	}
	k.sccMax = max(k.sccMax, len(comp))
	hs := make([]uint64, len(comp))
	for j, m := range comp {
		hs[j] = k.lh[m]
	}
	slices.Sort(hs)
	root := int32(-1)
	for j := 0; j < len(hs) && root < 0; j++ {
		if (j == 0 || hs[j-1] != hs[j]) && (j+1 == len(hs) || hs[j+1] != hs[j]) {
			for _, m := range comp {
				if k.lh[m] == hs[j] {
					root = m
					break
				}
			}
		}
	}
	if root < 0 {
		k.unkey += len(comp)
		for _, m := range comp {
			k.keys[m] = 0
		}
		return
	}
	for _, m := range comp {
		k.num[m] = -3
	}
	member := func(y int32) bool { return k.num[y] == -3 || k.num[y] >= 0 }
	var h uint64 = 0x51
	var n int32
	bad, decl := false, false
	var walk func(x int32)
	walk = func(x int32) {
		k.num[x] = n
		n++
		h = mix(h, k.lh[x])
		decl = decl || k.decl[x]
		for _, y := range k.edges[k.at[x]:k.at[x+1]] {
			switch {
			case y < 0:
				bad = true
			case member(y) && k.num[y] >= 0:
				h = mix(h, 0xb0000000|uint64(k.num[y]))
			case member(y):
				h = mix(h, 0xf)
				walk(y)
			default:
				h = mix(h, k.keys[y])
				bad = bad || k.keys[y] == 0
				decl = decl || k.decl[y]
			}
		}
	}
	walk(root)
	for _, m := range comp {
		k.keys[m] = mix(h, uint64(k.num[m])) | 1
		k.decl[m] = decl
		if bad {
			k.keys[m] = 0
		}
		k.num[m] = -2
	}
	if bad {
		k.unkey += len(comp)
	}
}
