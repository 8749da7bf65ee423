package encode

import (
	"debug/dwarf"
	"fmt"

	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/elffile"
)

// encTree is the converter's view of one decoded unit: DIEs by index
// (TagID as int32, -1 for none) with the attribute helpers the pahole rules
// need. It wraps a *CU and copies nothing; it is valid until the CU is
// released.
type encTree struct {
	cu   *dwarfread.CU
	n    int
	lang int64
	name string
	// producer: DW_AT_producer of the unit (pahole 1.32 judges clang's
	// parameters differently).
	producer string
	// locPages: the location list pages this unit's parameters read last
	// (a unit's lists are close together in the section).
	locPages elffile.PageMemo
	// strPages: the .debug_str pages the name cache's misses read last
	// (in a module each unit has its own strings, close together).
	strPages elffile.PageMemo
	// foreignErr is the first reference or string that leads out of the
	// unit (see foreign); Worker.Encode returns it.
	foreignErr error
	// gnuAnnot: the unit's abbreviations declare DW_AT_GNU_annotation
	// (else annotChain has nothing to walk: 2% of a vmlinux encode's CPU).
	gnuAnnot bool
	// annots: the unit's abbreviations declare annotation DIEs (LLVM's
	// or GCC's): without them no btf_decl_tag or btf_type_tag can be
	// found, and the walks that look for them are skipped.
	annots bool
}

// Forms of references within the unit, and of references and strings that
// lead out of it.
const (
	formRef1     = 0x11 // DW_FORM_ref1/2/4/8/udata: unit-relative
	formRef2     = 0x12
	formRef4     = 0x13
	formRef8     = 0x14
	formRefUdata = 0x15

	formRefAddr    = 0x10 // DW_FORM_ref_addr: may be in another unit
	formRefSup4    = 0x1c // DW_FORM_ref_sup4/8: in the supplementary file
	formRefSup8    = 0x24
	formGNURefAlt  = 0x1f20 // DW_FORM_GNU_ref_alt, GNU_strp_alt: in dwz's alternate file
	formGNUStrpAlt = 0x1f21
)

// foreign records that attribute a of DIE i leads out of the unit: to a
// DIE of another unit (dwz's partial units, which pahole 1.32 reads through
// DW_TAG_imported_unit, 0227f611, or units merged by LTO) or into a dwz
// alternate file (DW_FORM_GNU_ref_alt/strp_alt, eae6466e). btfstream
// encodes one unit at a time and does not read these: the unit fails with
// ErrUnsupported rather than become a type that refers to void.
func (t *encTree) foreign(i int32, at dwarfread.Attr) {
	if t.foreignErr == nil {
		t.foreignErr = t.errorf(i, elffile.ErrUnsupported,
			"%v (form 0x%x, value 0x%x) refers out of the unit: units that share DIEs (dwz, LTO) are not supported",
			at.At, at.Form, at.Val)
	}
}

func newEncTree(cu *dwarfread.CU) *encTree {
	prod, _ := cu.Root().AttrString(dwarf.AttrProducer)
	return &encTree{cu: cu, n: int(cu.Len()), lang: int64(cu.Language()), name: cu.Root().Name(), producer: prod,
		gnuAnnot: cu.HasAttr(attrGNUAnnotation), annots: cu.HasTag(tagLLVMAnnotation) || cu.HasTag(tagGNUAnnotation)}
}

func (t *encTree) die(i int32) dwarfread.DIE { return t.cu.DIE(dwarfread.TagID(i)) }

func (t *encTree) tag(i int32) dwarf.Tag { return t.die(i).Tag() }

func (t *encTree) attr(i int32, a dwarf.Attr) (dwarfread.Attr, bool) { return t.die(i).Attr(a) }

func (t *encTree) str(i int32, a dwarf.Attr) string {
	at, ok := t.attr(i, a)
	if !ok {
		return ""
	}
	if at.Form == formGNUStrpAlt {
		t.foreign(i, at)
		return ""
	}
	s, _ := at.String()
	return s
}

func (t *encTree) has(i int32, a dwarf.Attr) bool {
	_, ok := t.attr(i, a)
	return ok
}

func (t *encTree) flag(i int32, a dwarf.Attr) bool {
	at, ok := t.attr(i, a)
	if !ok {
		return false
	}
	return at.Flag() // DW_FORM_flag_present has the value 1
}

// udata returns a constant attribute as libdw's dwarf_formudata would: data
// forms zero-extended, sdata sign-extended. ok is false for absent or
// non-constant attributes.
func (t *encTree) udata(i int32, a dwarf.Attr) (uint64, bool) {
	at, ok := t.attr(i, a)
	if !ok {
		return 0, false
	}
	return udataOf(at)
}

// udataOf is udata for an attribute already read.
func udataOf(at dwarfread.Attr) (uint64, bool) {
	switch at.Class() {
	case dwarf.ClassConstant, dwarf.ClassFlag:
		return at.Val, true // DW_FORM_flag_present has the value 1
	}
	return 0, false
}

func (t *encTree) num(i int32, a dwarf.Attr) uint64 {
	v, _ := t.udata(i, a)
	return v
}

// ref returns the DIE a reference attribute points to, -1 if absent or
// outside the unit.
func (t *encTree) ref(i int32, a dwarf.Attr) int32 {
	at, ok := t.attr(i, a)
	if !ok {
		return -1
	}
	switch at.Form {
	case formRef1, formRef2, formRef4, formRef8, formRefUdata:
	case formRefAddr:
		if !t.cu.Contains(at.Ref()) {
			t.foreign(i, at)
			return -1
		}
	case formRefSup4, formRefSup8, formGNURefAlt:
		t.foreign(i, at)
		return -1
	default:
		if at.Class() != dwarf.ClassReference {
			return -1
		}
	}
	id, ok := t.cu.Lookup(at.Ref())
	if !ok {
		return -1
	}
	return int32(id)
}

func (t *encTree) hasChildren(i int32) bool { return t.die(i).FirstChild().ID() != dwarfread.NoTag }

// children calls fn for each child of i, in order.
func (t *encTree) children(i int32, fn func(c int32)) {
	for c := t.die(i).FirstChild(); c.ID() != dwarfread.NoTag; c = c.NextSibling() {
		fn(int32(c.ID()))
	}
}

// errorf returns an error at DIE i: its section and offset, and the DIE the
// way pahole users know it ("DW_TAG_base_type @ <0x2c>: ...").
func (t *encTree) errorf(i int32, sentinel error, format string, args ...any) error {
	d := t.die(i)
	return &elffile.Error{Section: t.cu.Section(), Offset: uint64(d.Offset()),
		Msg: d.String() + ": " + fmt.Sprintf(format, args...), Err: sentinel}
}
