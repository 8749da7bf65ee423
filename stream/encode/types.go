package encode

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/elffile"
)

// DWARF constants the converter needs beyond debug/dwarf's.
const (
	tagLLVMAnnotation dwarf.Tag = 0x6000
	tagAtomicType     dwarf.Tag = 0x47
	tagCallSite       dwarf.Tag = 0x48
	tagCallSiteParam  dwarf.Tag = 0x49
	tagGNUCallSite    dwarf.Tag = 0x4109
	tagGNUCallSiteP   dwarf.Tag = 0x410a

	ateBoolean      = 0x02
	ateComplexFloat = 0x03
	ateFloat        = 0x04
	ateSigned       = 0x05
	ateSignedChar   = 0x06
	ateImagFloat    = 0x09
)

// cuConv converts one unit's types into out, the way pahole's
// dwarf_loader + btf_encoder__encode_cu order and shape them.
type cuConv struct {
	t    *encTree
	out  *btf.Spec
	feat Features
	le   bool
	addr uint32 // address size

	// order is the type table in pahole's order: node indices, and
	// tagEntry(k) for tags[k].
	order []int32
	idOf  []btf.TypeID // per node; 0 for void / not a type
	tags  []typeTag    // the pointers' TYPE_TAGs (annot.go)
	// ptrTag maps a pointer node with TYPE_TAGs to the one its PTR refers to.
	ptrTag  map[int32]int32
	funcs   []int32 // DW_TAG_subprogram nodes in pahole's functions table order
	vars    []int32 // top-level DW_TAG_variable nodes
	index   IndexUse
	indexID btf.TypeID // the unit's own index type (see emit)
	names   *nameCache // the worker's; nil disables it
	// funcSyms: the worker's cache of function names' symbol indices
	// (nil disables it).
	funcSyms *funcSymCache
	// rel: the file is relocatable (a module, an object): its units do
	// not share .debug_str offsets.
	rel    bool
	words  []uint32   // scratch: one type's extra words
	params unitParams // scratch: the unit's parameter verdicts (funcs.go)
	dims   []uint32   // scratch: one array's dimensions (arrayDims)
	// shapes: per abbreviation of the unit, where its members keep their
	// attributes (shape.go).
	shapes []dieShape
	// imp: per node, the table id of a type skipped as an import
	// (closureskip.go); empty when nothing is.
	imp     []btf.TypeID
	imports int
	// keyed: the unit's closure keys, when computed (markImports): its
	// index of the unit's types finds DW_AT_type targets for shapeType.
	keyed *ClosureKeys
}

func newCUConv(t *encTree, out *btf.Spec, feat Features, le bool, addr uint32) *cuConv {
	c := &cuConv{ptrTag: map[int32]int32{}}
	c.reset(t, out, feat, le, addr)
	return c
}

// reset readies c (a worker's, reused) for another unit, keeping its
// buffers.
func (c *cuConv) reset(t *encTree, out *btf.Spec, feat Features, le bool, addr uint32) {
	n := t.n
	c.t, c.out, c.feat, c.le, c.addr = t, out, feat, le, addr
	c.order, c.funcs, c.vars, c.tags = c.order[:0], c.funcs[:0], c.vars[:0], c.tags[:0]
	c.idOf = resize(c.idOf, n)
	c.shapes = resize(c.shapes, t.cu.NumAbbrevs())
	clear(c.ptrTag)
	c.index, c.indexID = IndexUse{}, 0
}

// resize returns s with length n, zeroed, reusing its array if it fits.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// collect walks the unit building the type table in dwarf_loader's order:
// a type's nested types (members' anonymous types, pointer type tags,
// types declared in function bodies) come before it.
func (c *cuConv) collect() {
	c.scope(0, scopeUnit)
}

type scopeKind uint8

const (
	scopeUnit scopeKind = iota
	scopeClass
	scopeFunc
	scopeProto
)

func (c *cuConv) scope(i int32, k scopeKind) {
	t := c.t
	tags := t.cu.Tags()
	for id := tags[i].FirstChild; id != dwarfread.NoTag; id = tags[id].NextSibling {
		ch := int32(id)
		tag := t.tag(ch)
		switch k {
		case scopeClass:
			switch tag {
			case dwarf.TagMember, dwarf.TagInheritance, dwarf.TagTemplateTypeParameter,
				dwarf.TagTemplateValueParameter, dwarf.TagSubrangeType, dwarf.TagVariantPart,
				tagLLVMAnnotation, 0x4106, 0x4107, 0x4108:
				continue
			}
		case scopeFunc:
			switch tag {
			case dwarf.TagFormalParameter, dwarf.TagVariable, dwarf.TagUnspecifiedParameters,
				dwarf.TagLabel, tagCallSite, tagCallSiteParam, tagGNUCallSite, tagGNUCallSiteP,
				dwarf.TagDwarfProcedure, dwarf.TagTemplateTypeParameter,
				dwarf.TagTemplateValueParameter, tagLLVMAnnotation, 0x4106, 0x4107, 0x4108:
				continue
			case dwarf.TagLexDwarfBlock:
				c.scope(ch, scopeFunc)
				continue
			case dwarf.TagInlinedSubroutine:
				// pahole 1.32 skips inline expansions when it encodes
				// BTF (conf_load.ignore_inline_expansions, ea666a77):
				// nothing under them is read.
				continue
			}
		case scopeProto:
			switch tag {
			case dwarf.TagFormalParameter, dwarf.TagUnspecifiedParameters, dwarf.TagSubrangeType:
				continue
			}
		}
		c.process(ch, k == scopeUnit)
	}
}

// process handles one DIE in a position where dwarf_loader calls
// die__process_tag.
func (c *cuConv) process(i int32, top bool) {
	t := c.t
	switch t.tag(i) {
	case dwarf.TagArrayType, dwarf.TagStringType, dwarf.TagBaseType, dwarf.TagConstType,
		dwarf.TagReferenceType, dwarf.TagRestrictType, dwarf.TagVolatileType, tagAtomicType,
		dwarf.TagPtrToMemberType, dwarf.TagTypedef, dwarf.TagRvalueReferenceType:
		c.addType(i)
	case dwarf.TagEnumerationType:
		// pahole 1.32 (a2f7af87) reads the functions among the
		// enumerators (Rust's methods), before the enum is added.
		t.children(i, func(ch int32) {
			if t.tag(ch) == dwarf.TagSubprogram {
				c.process(ch, false)
			}
		})
		c.addType(i)
	case dwarf.TagUnspecifiedType:
		// hashed but never in the table: references become void
	case dwarf.TagPointerType:
		if c.feat.Has(FeatTypeTag) {
			c.collectTypeTags(i)
		}
		c.addType(i)
	case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagInterfaceType, dwarf.TagUnionType:
		c.scope(i, scopeClass)
		c.addType(i)
	case dwarf.TagNamespace:
		c.scope(i, scopeUnit)
	case dwarf.TagSubroutineType:
		c.scope(i, scopeProto)
		c.addType(i)
	case dwarf.TagSubprogram:
		c.scope(i, scopeFunc)
		c.funcs = append(c.funcs, i)
	case dwarf.TagVariable:
		if top {
			c.vars = append(c.vars, i)
		}
	}
}

func (c *cuConv) addType(i int32) { c.order = append(c.order, i) }

// typeOf resolves node i's DW_AT_type to its BTF id (0: void, absent,
// unspecified or not found in the unit).
func (c *cuConv) typeOf(i int32) btf.TypeID {
	rec := &c.t.cu.Tags()[i]
	return c.shapeType(i, c.shape(rec.Abbrev, i), c.t.cu.Vals()[rec.Vals:])
}

// typeOfAttr is typeOf through DIE.Attr.
func (c *cuConv) typeOfAttr(i int32) btf.TypeID {
	j := c.t.ref(i, dwarf.AttrType)
	if j < 0 {
		return 0
	}
	return c.idOf[j]
}

// emit numbers the unit's types from out's next id and appends them.
// pahole's array index type (has_index_type/array_index_id) spans units,
// so the merger decides it; here ARRAYs refer to the unit's own: its first
// base type named "int" (LocalInt), else an INT "int" appended right after
// the types (AddedInt) if the unit has arrays. The merger re-points them,
// and drops AddedInt, when an earlier unit provided the index type. They
// are listed in c.index.Arrays.
func (c *cuConv) emit() error {
	// A node is one BTF type, except an array of n > 1 dimensions: n
	// ARRAYs, innermost first, the node's id being the outermost's.
	next := c.out.NextID()
	imp := c.imp
	for _, i := range c.order {
		if i < 0 {
			c.tags[-i-1].id = next
			next++
			continue
		}
		if len(imp) > 0 && imp[i] != 0 {
			c.idOf[i] = ImportBit | imp[i]
			continue
		}
		n := btf.TypeID(1)
		if c.t.tag(i) == dwarf.TagArrayType {
			n = btf.TypeID(max(len(c.arrayDims(i)), 1))
		}
		next += n
		c.idOf[i] = next - 1
	}
	c.out.Grow(int(next-c.out.NextID())+1, 0)
	c.indexID = next // where AddedInt would go
	for _, i := range c.order {
		if i >= 0 && c.t.tag(i) == dwarf.TagBaseType && c.t.str(i, dwarf.AttrName) == "int" {
			c.index.LocalInt = c.idOf[i]
			c.indexID = c.index.LocalInt
			break
		}
	}
	strs := c.out.Strings()
	for _, i := range c.order {
		if i < 0 {
			c.emitTypeTag(int(-i-1), strs)
			continue
		}
		if len(imp) > 0 && imp[i] != 0 {
			continue
		}
		if err := c.emitOne(i, strs); err != nil {
			return err
		}
	}
	if len(c.index.Arrays) > 0 && c.index.LocalInt == 0 {
		c.index.AddedInt = c.out.Add(btf.Type{NameOff: strs.Append("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4},
			btf.MakeIntInfo(btf.IntSigned, 0, 32))
	}
	return nil
}

func (c *cuConv) emitOne(i int32, strs *btf.Strings) error {
	t := c.t
	name := func() btf.StrOff { return c.name(i) }
	ref := func(k btf.Kind, to btf.TypeID, nameOff btf.StrOff) {
		c.out.Add(btf.Type{NameOff: nameOff, Info: btf.MakeInfo(k, 0, false), SizeOrType: uint32(to)})
	}
	switch t.tag(i) {
	case dwarf.TagBaseType:
		return c.emitBase(i, strs)
	case dwarf.TagConstType:
		ref(btf.KindConst, c.typeOf(i), 0)
	case dwarf.TagVolatileType:
		ref(btf.KindVolatile, c.typeOf(i), 0)
	case dwarf.TagRestrictType:
		ref(btf.KindRestrict, c.typeOf(i), 0)
	case dwarf.TagPointerType:
		ref(btf.KindPtr, c.ptrTarget(i), 0)
	case dwarf.TagTypedef:
		ref(btf.KindTypedef, c.typeOf(i), name())
	case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType:
		union := t.tag(i) == dwarf.TagUnionType
		if t.flag(i, dwarf.AttrDeclaration) {
			c.out.Add(btf.Type{NameOff: name(), Info: btf.MakeInfo(btf.KindFwd, 0, union)})
			return nil
		}
		return c.emitStruct(i, union, strs)
	case dwarf.TagArrayType:
		c.emitArray(i)
	case dwarf.TagEnumerationType:
		return c.emitEnum(i, strs)
	case dwarf.TagSubroutineType:
		c.emitProto(i, strs)
	default:
		return t.errorf(i, elffile.ErrUnsupported, "unsupported DW_TAG %s in BTF", dwarfread.TagName(t.tag(i)))
	}
	return nil
}

func (c *cuConv) emitBase(i int32, strs *btf.Strings) error {
	t := c.t
	name := t.str(i, dwarf.AttrName)
	bitSize := t.num(i, dwarf.AttrByteSize) * 8
	enc := t.num(i, dwarf.AttrEncoding)
	var encoding uint32
	switch {
	case enc == ateSigned || enc == ateSignedChar:
		encoding = btf.IntSigned
	case enc == ateBoolean:
		encoding = btf.IntBool
	case (enc == ateFloat || enc == ateComplexFloat || enc == ateImagFloat) && c.feat.Has(FeatFloat):
		if enc != ateFloat {
			return t.errorf(i, elffile.ErrUnsupported, "complex, interval and imaginary float types are not supported")
		}
		size := uint32((bitSize + 7) / 8)
		switch size {
		case 2, 4, 8, 12, 16:
		default:
			return t.errorf(i, elffile.ErrUnsupported, "FLOAT '%s' of invalid size %d", name, size)
		}
		c.out.Add(btf.Type{NameOff: strs.Append(name), Info: btf.MakeInfo(btf.KindFloat, 0, false), SizeOrType: size})
		return nil
	}
	size := uint32((bitSize + 7) / 8)
	if size == 0 || size&(size-1) != 0 || size > 16 {
		name, size = "__SANITIZED_FAKE_INT__", 4
	}
	c.out.Add(btf.Type{NameOff: strs.Append(name), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: size},
		btf.MakeIntInfo(encoding, 0, size*8))
	return nil
}

// maxArrayDims is how many dimensions pahole's dwarf_loader reads
// (die__create_new_array); later subranges are ignored.
const maxArrayDims = 64

// arrayDims lists the dimensions of array node i, outermost first, in
// c.dims (valid until the next call).
func (c *cuConv) arrayDims(i int32) []uint32 {
	t := c.t
	dims := c.dims[:0]
	t.children(i, func(s int32) {
		if t.tag(s) != dwarf.TagSubrangeType || len(dims) == maxArrayDims {
			return
		}
		dims = append(dims, uint32(t.subrangeCount(s)))
	})
	c.dims = dims
	return dims
}

// arrayElems is the product of array node i's dimensions (1 if it has
// none), pahole's array_type__nelems, for the array's size.
func (c *cuConv) arrayElems(i int32) uint32 {
	n := uint32(1)
	for _, d := range c.arrayDims(i) {
		n *= d
	}
	return n
}

// emitArray appends array node i as pahole 1.32 does (4dce86c3): one
// ARRAY per dimension, nested, innermost first (int a[5][2][4] is
// ARRAY(5) of ARRAY(2) of ARRAY(4) of int), so the last one is the
// node's; an array with no subrange is one ARRAY of 0 elements.
func (c *cuConv) emitArray(i int32) {
	dims := c.arrayDims(i)
	elem := c.typeOf(i)
	if len(dims) == 0 {
		dims = append(dims, 0)
	}
	for k := len(dims) - 1; k >= 0; k-- {
		elem = c.out.Add(btf.Type{Info: btf.MakeInfo(btf.KindArray, 0, false)},
			uint32(elem), uint32(c.indexID), dims[k])
		c.index.Arrays = append(c.index.Arrays, elem)
	}
}

// subrangeCount is pahole's attr_upper_bound: upper_bound+1, else count,
// else 0 (a non-constant bound also gives 0).
func (t *encTree) subrangeCount(s int32) uint64 {
	if t.has(s, dwarf.AttrUpperBound) {
		if v, ok := t.udata(s, dwarf.AttrUpperBound); ok {
			return v + 1
		}
		return 0
	}
	v, _ := t.udata(s, dwarf.AttrCount)
	return v
}

func (c *cuConv) emitStruct(i int32, union bool, strs *btf.Strings) error {
	words, vlen, kflag := c.emitMembers(i, c.words[:0])
	k := btf.KindStruct
	if union {
		k = btf.KindUnion
	}
	c.out.Add(btf.Type{NameOff: c.name(i), Info: btf.MakeInfo(k, vlen, kflag),
		SizeOrType: uint32(c.t.num(i, dwarf.AttrByteSize))}, words...)
	c.words = words
	return nil
}

func (c *cuConv) emitEnum(i int32, strs *btf.Strings) error {
	t := c.t
	sizeBits := t.num(i, dwarf.AttrByteSize) * 8
	if sizeBits == 0 {
		sizeBits = 32
	}
	size := uint32((sizeBits + 7) / 8)
	signed := false
	if j := t.ref(i, dwarf.AttrType); j >= 0 {
		if e := t.num(j, dwarf.AttrEncoding); e == ateSigned || e == ateSignedChar {
			signed = true
		}
	}
	enum32 := size <= 4 || !c.feat.Has(FeatEnum64)
	words := c.words[:0]
	defer func() { c.words = words }()
	vlen := uint32(0)
	kflag := false
	var err error
	tags, vals := t.cu.Tags(), t.cu.Vals()
	for id := tags[i].FirstChild; id != dwarfread.NoTag && err == nil; id = tags[id].NextSibling {
		e, rec := int32(id), &tags[id]
		sh := c.shape(rec.Abbrev, e)
		if sh.kind != shapeEnumerator {
			continue
		}
		var v uint64
		switch sh.val {
		case 0:
		case shapeAttr:
			v, _ = t.udata(e, dwarf.AttrConstValue)
		default:
			v = vals[rec.Vals+uint32(sh.val)-1]
		}
		n := uint32(c.shapeName(e, sh, vals[rec.Vals:]))
		switch {
		case !c.feat.Has(FeatEnum64):
			words = append(words, n, uint32(v))
		case enum32:
			sv := int64(v)
			if sv < -1<<31 || sv > 1<<32-1 {
				err = t.errorf(e, elffile.ErrUnsupported, "enumerator value %d does not fit ENUM", sv)
				continue
			}
			if sv < 0 {
				kflag = true
			}
			words = append(words, n, uint32(v))
		default:
			words = append(words, n, uint32(v), uint32(v>>32))
		}
		vlen++
	}
	if err != nil {
		return err
	}
	if enum32 {
		c.out.Add(btf.Type{NameOff: c.name(i), Info: btf.MakeInfo(btf.KindEnum, vlen, kflag), SizeOrType: size}, words...)
	} else {
		c.out.Add(btf.Type{NameOff: c.name(i), Info: btf.MakeInfo(btf.KindEnum64, vlen, signed), SizeOrType: size}, words...)
	}
	return nil
}

func (c *cuConv) emitProto(i int32, strs *btf.Strings) {
	t := c.t
	words := c.words[:0]
	vlen := uint32(0)
	unspec := false
	tags, vals := t.cu.Tags(), t.cu.Vals()
	for id := tags[i].FirstChild; id != dwarfread.NoTag; id = tags[id].NextSibling {
		p, rec := int32(id), &tags[id]
		switch sh := c.shape(rec.Abbrev, p); {
		case sh.kind == shapeParam:
			v := vals[rec.Vals:]
			words = append(words, uint32(c.shapeName(p, sh, v)), uint32(c.shapeType(p, sh, v)))
			vlen++
		case t.tag(p) == dwarf.TagUnspecifiedParameters:
			unspec = true
		}
	}
	if unspec {
		words = append(words, 0, 0)
		vlen++
	}
	c.out.Add(btf.Type{Info: btf.MakeInfo(btf.KindFuncProto, vlen, false), SizeOrType: uint32(c.typeOf(i))}, words...)
	c.words = words
}
