package encode

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/btf"
)

// btf_type_tag and btf_decl_tag annotations, in the two ways compilers
// write them (pahole 1.32's dwarf_loader, e6d98f95):
//
//   - LLVM: DW_TAG_LLVM_annotation (0x6000) children of the annotated DIE,
//     in source order.
//   - GCC 16+: DW_TAG_GNU_annotation (0x6001) DIEs that are not children
//     of what they annotate: the annotated DIE's DW_AT_GNU_annotation
//     (0x2139) refers to the first, each refers to the next through the
//     same attribute. A 0x6001 DIE among the children is also read as an
//     LLVM-style one.
//
// What pahole reads where:
//
//   - pointer: btf_type_tag children; if there are none, the chain, up to
//     its first annotation that is not a btf_type_tag. Children are in
//     source order, so the PTR points to the last and each to the one
//     before; the chain is already in BTF order (the PTR points to its
//     first). Each reference to an annotation DIE is a TYPE_TAG of its
//     own, even if several pointers share the DIE.
//   - btf_decl_tag: children and chain of members and parameters (their
//     index), children of structs, unions, typedefs, variables and
//     functions (-1), the chain of a struct (not a union) and of a
//     function, after everything else of it (-1). The chain goes on past
//     other annotations; a variable's or typedef's chain is not read.

const (
	tagGNUAnnotation  dwarf.Tag  = 0x6001
	attrGNUAnnotation dwarf.Attr = 0x2139
)

func isAnnotation(tag dwarf.Tag) bool { return tag == tagLLVMAnnotation || tag == tagGNUAnnotation }

// annotChain calls fn for each DIE of node i's DW_AT_GNU_annotation chain
// until fn returns false. A chain is at most as long as the unit has DIEs
// (a cycle stops there; pahole would loop); a reference outside the unit
// ends it.
func (t *encTree) annotChain(i int32, fn func(a int32) bool) {
	if !t.gnuAnnot {
		return
	}
	for range t.n {
		a := t.ref(i, attrGNUAnnotation)
		if a < 0 || t.tag(a) != tagGNUAnnotation || !fn(a) {
			return
		}
		i = a
	}
}

// typeTag is one TYPE_TAG of a pointer: a reference to an annotation DIE.
type typeTag struct {
	ptr  int32 // the pointer node
	node int32 // the annotation DIE
	next int32 // the typeTag this one wraps, -1: the pointee
	id   btf.TypeID
}

// tagEntry is a typeTag's entry in cuConv.order (node entries are >= 0).
func tagEntry(k int) int32 { return -int32(k) - 1 }

// collectTypeTags adds pointer node i's btf_type_tags to the type table,
// before the pointer (where dwarf_loader adds them).
func (c *cuConv) collectTypeTags(i int32) {
	t := c.t
	if !t.annots {
		return
	}
	first := len(c.tags)
	add := func(a, next int32) {
		c.tags = append(c.tags, typeTag{ptr: i, node: a, next: next})
		c.order = append(c.order, tagEntry(len(c.tags)-1))
	}
	t.children(i, func(a int32) {
		if isAnnotation(t.tag(a)) && t.str(a, dwarf.AttrName) == "btf_type_tag" {
			next := int32(-1)
			if len(c.tags) > first {
				next = int32(len(c.tags) - 1)
			}
			add(a, next)
		}
	})
	if len(c.tags) > first {
		c.ptrTag[i] = int32(len(c.tags) - 1)
		return
	}
	t.annotChain(i, func(a int32) bool {
		if t.str(a, dwarf.AttrName) != "btf_type_tag" {
			return false
		}
		if len(c.tags) > first {
			c.tags[len(c.tags)-1].next = int32(len(c.tags))
		}
		add(a, -1)
		return true
	})
	if len(c.tags) > first {
		c.ptrTag[i] = int32(first)
	}
}

// ptrTarget is what pointer node i's PTR refers to: its outermost
// TYPE_TAG, else its DW_AT_type.
func (c *cuConv) ptrTarget(i int32) btf.TypeID {
	if k, ok := c.ptrTag[i]; ok {
		return c.tags[k].id
	}
	return c.typeOf(i)
}

func (c *cuConv) emitTypeTag(k int, strs *btf.Strings) {
	tt := &c.tags[k]
	to := c.typeOf(tt.ptr)
	if tt.next >= 0 {
		to = c.tags[tt.next].id
	}
	c.out.Add(btf.Type{NameOff: strs.Append(c.t.str(tt.node, dwarf.AttrConstValue)), Info: btf.MakeInfo(btf.KindTypeTag, 0, false),
		SizeOrType: uint32(to)})
}

// emitDeclTags adds the DECL_TAGs of structs, unions and typedefs
// (btf_decl_tag annotations), after all of the unit's types.
func (c *cuConv) emitDeclTags() {
	if !c.feat.Has(FeatDeclTag) || !c.t.annots {
		return
	}
	t := c.t
	strs := c.out.Strings()
	for _, i := range c.order {
		if i < 0 {
			continue
		}
		to := c.idOf[i]
		switch tag := t.tag(i); tag {
		case dwarf.TagStructType, dwarf.TagUnionType:
			idx := int32(0)
			t.children(i, func(m int32) {
				switch mt := t.tag(m); {
				case mt == dwarf.TagMember || mt == dwarf.TagInheritance:
					t.children(m, func(a int32) { c.declTag(a, to, idx, strs) })
					c.declTagChain(m, to, idx, strs)
					idx++
				case isAnnotation(mt):
					c.declTag(m, to, -1, strs)
				}
			})
			if tag == dwarf.TagStructType {
				c.declTagChain(i, to, -1, strs)
			}
		case dwarf.TagTypedef:
			t.children(i, func(a int32) { c.declTag(a, to, -1, strs) })
		}
	}
}

// declTag adds a DECL_TAG if a is a btf_decl_tag annotation.
func (c *cuConv) declTag(a int32, to btf.TypeID, comp int32, strs *btf.Strings) {
	t := c.t
	if !isAnnotation(t.tag(a)) || t.str(a, dwarf.AttrName) != "btf_decl_tag" {
		return
	}
	c.out.Add(btf.Type{NameOff: strs.Append(t.str(a, dwarf.AttrConstValue)), Info: btf.MakeInfo(btf.KindDeclTag, 0, false),
		SizeOrType: uint32(to)}, uint32(comp))
}

// declTagChain adds the DECL_TAGs of node i's DW_AT_GNU_annotation chain.
func (c *cuConv) declTagChain(i int32, to btf.TypeID, comp int32, strs *btf.Strings) {
	c.t.annotChain(i, func(a int32) bool {
		c.declTag(a, to, comp, strs)
		return true
	})
}
