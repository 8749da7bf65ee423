package dwarfread

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"iter"
	"unsafe"

	"github.com/btfstream/btfstream/arena"
	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream/elffile"
)

// TagID identifies a DIE within its CU (an index into the CU's arena).
type TagID = arena.TagID

// DIEOff is a DIE's offset in its section.
type DIEOff = arena.DIEOff

// NoTag is the "none" TagID.
const NoTag = arena.NoTag

// CU is one decoded unit (compile, partial or type unit). Its DIEs live in
// an arena that returns to the File's pool when the consumer calls
// Release; after that the CU and every DIE and Attr taken from it must not
// be used.
type CU struct {
	f       *File
	arena   *arena.Arena
	table   *abbrevTable
	hdr     unitHeader
	order   binary.ByteOrder
	secName string
	next    uint32    // decode resume position after the language peek
	body    *lazyBody // the unit's bytes not read yet (Decode reads them)

	lang           uint16
	strOffsetsBase uint64
	addrBase       uint64
	rnglistsBase   uint64
	loclistsBase   uint64

	budget   *spill.Budget // accounts reserved while the CU lives (nil: none)
	reserved int64

	// byOff indexes the tags by offset for Lookup: byOff[b] covers the
	// unit's bytes b<<byOffShift to (b+1)<<byOffShift (built on the first
	// Lookup, for byOffTags tags). It is the arena's Index, kept here too
	// for Lookup's one load.
	byOff     []offBucket
	byOffTags int
}

func (cu *CU) key() abbrevKey {
	return abbrevKey{off: cu.hdr.abbrevOff, addrSize: cu.hdr.addrSize, is64: cu.hdr.is64, version: cu.hdr.version}
}

// Release returns the CU's memory to the pool. Idempotent.
func (cu *CU) Release() { cu.release(true) }

// Free is Release without keeping the arena for reuse: its memory is left
// to the collector, so what is allocated after the next collection can
// take its pages instead of growing the heap.
func (cu *CU) Free() { cu.release(false) }

// Footprint returns the bytes the unit's arena holds (0 once released).
func (cu *CU) Footprint() uint64 {
	if cu.arena == nil {
		return 0
	}
	return cu.arena.Footprint()
}

func (cu *CU) release(keep bool) {
	if cu.arena != nil {
		if keep {
			cu.f.pool.Put(cu.arena)
		}
		cu.arena = nil
		cu.byOff, cu.byOffTags = nil, 0
	}
	if cu.budget != nil {
		cu.budget.Return(cu.reserved)
		cu.budget, cu.reserved = nil, 0
	}
}

// Offset returns the section offset of the unit header.
func (cu *CU) Offset() uint64 { return cu.hdr.off }

// Length returns the unit's size in bytes, header included.
func (cu *CU) Length() uint64 { return cu.hdr.total }

// Section returns the unit's section name (.debug_info or .debug_types).
func (cu *CU) Section() string { return cu.secName }

// Version returns the DWARF version (2 to 5).
func (cu *CU) Version() uint16 { return cu.hdr.version }

// UnitType returns DW_UT_* (UTCompile for DWARF 2-4 .debug_info units,
// UTType for .debug_types units).
func (cu *CU) UnitType() uint8 { return cu.hdr.unitType }

// AddrSize returns the size of a target address in bytes.
func (cu *CU) AddrSize() uint8 { return cu.hdr.addrSize }

// Is64 reports whether the unit uses the 64-bit DWARF format.
func (cu *CU) Is64() bool { return cu.hdr.is64 }

// ByteOrder returns the byte order of the file.
func (cu *CU) ByteOrder() binary.ByteOrder { return cu.order }

// Language returns the unit DIE's DW_AT_language (0 if absent).
func (cu *CU) Language() uint16 { return cu.lang }

// Signature returns the type signature of a type unit (or the DWO id of a
// skeleton unit).
func (cu *CU) Signature() uint64 { return cu.hdr.signature }

// TypeOffset returns the section offset of a type unit's type DIE.
func (cu *CU) TypeOffset() DIEOff { return DIEOff(cu.hdr.off + cu.hdr.typeOff) }

// Producer returns the unit DIE's DW_AT_producer, or "".
func (cu *CU) Producer() string {
	s, _ := cu.Root().AttrString(dwarf.AttrProducer)
	return s
}

// Len returns the number of DIEs.
func (cu *CU) Len() uint32 { return uint32(len(cu.arena.Tags)) }

// Tags returns the raw tag records, in section order.
func (cu *CU) Tags() []arena.Tag { return cu.arena.Tags }

// Vals returns the raw attribute values of every DIE (a DIE's start at its
// Tag.Vals, in abbreviation order; see the package doc for what a value
// means): for callers that read the same attributes of many DIEs of one
// abbreviation and find their positions once (NumAbbrevs, DIE.AttrAt).
func (cu *CU) Vals() []uint64 { return cu.arena.Vals }

// NumAbbrevs returns the number of abbreviations of the unit's table: the
// bound of Tag.Abbrev.
func (cu *CU) NumAbbrevs() int { return len(cu.table.decls) }

// HasAttr reports whether the unit's abbreviation table declares
// attribute at, i.e. whether any of its DIEs may carry it (one scan of the
// table, a few hundred entries).
func (cu *CU) HasAttr(at dwarf.Attr) bool {
	for i := range cu.table.specs {
		if dwarf.Attr(cu.table.specs[i].at) == at {
			return true
		}
	}
	return false
}

// HasTag reports whether the unit's abbreviation table declares tag, i.e.
// whether any of its DIEs may have it.
func (cu *CU) HasTag(tag dwarf.Tag) bool {
	for i := range cu.table.decls {
		if dwarf.Tag(cu.table.decls[i].tag) == tag {
			return true
		}
	}
	return false
}

// DIE returns the DIE with the given id.
func (cu *CU) DIE(id TagID) DIE { return DIE{cu: cu, id: id} }

// Root returns the unit DIE.
func (cu *CU) Root() DIE { return DIE{cu: cu, id: 0} }

// Contains reports whether a section offset lies inside this unit.
func (cu *CU) Contains(off DIEOff) bool {
	return uint64(off) >= cu.hdr.off && uint64(off) < cu.hdr.off+cu.hdr.total
}

// DIE is a handle on one decoded DIE: a CU and an index. It is two words
// and never allocates.
type DIE struct {
	cu *CU
	id TagID
}

// ID returns the DIE's index in its CU.
func (d DIE) ID() TagID { return d.id }

// Valid reports whether d refers to a DIE.
func (d DIE) Valid() bool { return d.cu != nil && d.id != NoTag }

func (d DIE) rec() *arena.Tag { return &d.cu.arena.Tags[d.id] }

func (d DIE) decl() *abbrevDecl { return &d.cu.table.decls[d.rec().Abbrev] }

// Tag returns DW_TAG_*.
func (d DIE) Tag() dwarf.Tag { return dwarf.Tag(d.decl().tag) }

// Offset returns the DIE's section offset.
func (d DIE) Offset() DIEOff { return d.rec().Off }

// HasChildren reports DW_CHILDREN_yes (the DIE may still have no children).
func (d DIE) HasChildren() bool { return d.decl().children != 0 }

// Parent returns the parent DIE; Valid is false for the unit DIE.
func (d DIE) Parent() DIE { return DIE{d.cu, d.rec().Parent} }

// FirstChild returns the first child; Valid is false if there is none.
func (d DIE) FirstChild() DIE { return DIE{d.cu, d.rec().FirstChild} }

// NextSibling returns the next sibling; Valid is false after the last.
func (d DIE) NextSibling() DIE { return DIE{d.cu, d.rec().NextSibling} }

// Children iterates over the DIE's children.
func (d DIE) Children() iter.Seq[DIE] {
	return func(yield func(DIE) bool) {
		tags := d.cu.arena.Tags
		for c := tags[d.id].FirstChild; c != NoTag; c = tags[c].NextSibling {
			if !yield(DIE{d.cu, c}) {
				return
			}
		}
	}
}

// NumAttrs returns the number of attributes.
func (d DIE) NumAttrs() int { return int(d.decl().n) }

// AttrAt returns the i-th attribute, in abbreviation order.
func (d DIE) AttrAt(i int) Attr {
	dc := d.decl()
	sp := &d.cu.table.specs[dc.first+uint32(i)]
	vi := d.rec().Vals + uint32(i)
	form := sp.form
	if form == formIndirect {
		form = uint16(d.cu.arena.Extra[vi])
	}
	return Attr{cu: d.cu, At: dwarf.Attr(sp.at), Form: form, Val: d.cu.arena.Vals[vi]}
}

// Attrs iterates over the attributes in abbreviation order.
func (d DIE) Attrs() iter.Seq[Attr] {
	return func(yield func(Attr) bool) {
		n := d.NumAttrs()
		for i := 0; i < n; i++ {
			if !yield(d.AttrAt(i)) {
				return
			}
		}
	}
}

// Attr returns the attribute at, if present.
func (d DIE) Attr(at dwarf.Attr) (Attr, bool) {
	t := d.cu.table
	rec := d.rec()
	if uint(at) < uint(len(hotSlot)) && hotSlot[at] >= 0 {
		h := t.hot[int(rec.Abbrev)*hotAttrs+int(hotSlot[at])]
		switch p := h & 0xff; p {
		case hotAbsent:
			return Attr{}, false
		case hotScan:
		default:
			form := uint16(h >> 8)
			vi := rec.Vals + p - 1
			if form == formIndirect {
				form = uint16(d.cu.arena.Extra[vi])
			}
			return Attr{cu: d.cu, At: at, Form: form, Val: d.cu.arena.Vals[vi]}, true
		}
	}
	dc := &t.decls[rec.Abbrev]
	specs := t.specs[dc.first : dc.first+dc.n]
	for i := range specs {
		if dwarf.Attr(specs[i].at) == at {
			return d.AttrAt(i), true
		}
	}
	return Attr{}, false
}

// Name returns DW_AT_name, or "" if absent or unreadable.
func (d DIE) Name() string {
	s, _ := d.AttrString(dwarf.AttrName)
	return s
}

// AttrString returns a string attribute's value.
func (d DIE) AttrString(at dwarf.Attr) (string, error) {
	a, ok := d.Attr(at)
	if !ok {
		return "", nil
	}
	return a.String()
}

// AttrUint returns the raw value of a constant attribute (0, false if absent).
func (d DIE) AttrUint(at dwarf.Attr) (uint64, bool) {
	a, ok := d.Attr(at)
	if !ok {
		return 0, false
	}
	return a.Uint(), true
}

// Type returns the section offset of DW_AT_type, if present and a
// reference into .debug_info.
func (d DIE) Type() (DIEOff, bool) {
	a, ok := d.Attr(dwarf.AttrType)
	if !ok || a.Class() != dwarf.ClassReference {
		return 0, false
	}
	return a.Ref(), true
}

// String formats the DIE the way pahole does: DW_TAG_structure_type @ <0x1a2b>.
func (d DIE) String() string {
	return fmt.Sprintf("DW_TAG_%s @ <%#x>", TagName(d.Tag()), uint32(d.Offset()))
}

// Attr is one attribute value: DW_AT, form, and a 64-bit word whose meaning
// depends on the form (see doc.go). Methods decode it.
type Attr struct {
	cu   *CU
	At   dwarf.Attr
	Form uint16 // DW_FORM_*, never DW_FORM_indirect
	Val  uint64 // raw word as stored in the arena
}

// Class returns the DWARF class of the value, with debug/dwarf's rules.
func (a Attr) Class() dwarf.Class { return formClass(a.Form, a.At, a.cu.hdr.version) }

// Uint returns a constant, flag, address (not resolved for addrx), or index.
func (a Attr) Uint() uint64 { return a.Val }

// Int returns the value as signed: sign-extended for DW_FORM_sdata and
// implicit_const, and zero-extended otherwise (as debug/dwarf does).
func (a Attr) Int() int64 { return int64(a.Val) }

// Flag returns a flag's value.
func (a Attr) Flag() bool { return a.Val != 0 }

// Ref returns the section offset of a reference (unit-relative forms are
// already rebased; DW_FORM_ref_addr is a global .debug_info offset that may
// lie in another CU).
func (a Attr) Ref() DIEOff { return DIEOff(a.Val) }

// Block returns a block, exprloc or data16 payload, sharing the CU's
// memory (valid until Release).
func (a Attr) Block() []byte {
	b := a.cu.arena.Bytes
	switch a.Form {
	case formData16:
		return b[a.Val : a.Val+16]
	case formBlock1, formBlock2, formBlock4, formBlock, formExprloc:
		p, n := a.Val>>32, a.Val&0xffffffff
		return b[p : p+n]
	}
	return nil
}

// String resolves a string-class attribute: inline, .debug_str,
// .debug_line_str or through .debug_str_offsets.
func (a Attr) String() (string, error) {
	switch a.Form {
	case formStrp:
		return a.cu.f.debugString(a.Val)
	case formStrx, formStrx1, formStrx2, formStrx3, formStrx4, formGNUStrIndex:
		off, err := a.cu.StrOffset(a.Val)
		if err != nil {
			return "", err
		}
		return a.cu.f.debugString(off)
	}
	b, err := a.Bytes()
	return string(b), err
}

// Bytes is like String but shares memory (the CU's, or a cached page of
// the string section); do not modify or retain past Release.
func (a Attr) Bytes() ([]byte, error) {
	cu := a.cu
	switch a.Form {
	case formString:
		s := cu.arena.Bytes[a.Val:]
		return s[:bytes.IndexByte(s, 0)], nil
	case formStrp:
		return cu.f.stringBytes(secStr, a.Val)
	case formLineStrp:
		return cu.f.stringBytes(secLineStr, a.Val)
	case formStrx, formStrx1, formStrx2, formStrx3, formStrx4, formGNUStrIndex:
		off, err := cu.StrOffset(a.Val)
		if err != nil {
			return nil, err
		}
		return cu.f.stringBytes(secStr, off)
	}
	return nil, fmt.Errorf("%s: DW_AT %v: form %#x is not a string", cu.f.name, a.At, a.Form)
}

// NameBytes is Bytes for a reader that keeps its own copy of the names
// it reads (the encoder's name cache). With keep, a .debug_str string
// comes from the file's string cache, read from the section's pages and
// added to it on a miss, as String does. Without keep it comes straight
// from the section's pages, read through m (may be nil), and is neither
// looked up in nor added to the string cache: for files whose units do
// not share .debug_str offsets, as relocatable objects, where the cache
// would only fill with strings no other unit asks for and a lookup is a
// cache miss that almost never hits (6% of xfs.ko's encode). Do not
// modify or retain the result past Release.
func (a Attr) NameBytes(m *elffile.PageMemo, keep bool) ([]byte, error) {
	off, ok := a.DebugStrOffset()
	if !ok {
		return a.Bytes() // other forms, or an strx that does not resolve (Bytes says why)
	}
	f := a.cu.f
	if keep {
		s, err := f.debugString(off)
		return unsafe.Slice(unsafe.StringData(s), len(s)), err
	}
	return f.stringBytesVia(m, secStr, off)
}

// Address resolves an address-class attribute (DW_FORM_addrx* through
// .debug_addr).
func (a Attr) Address() (uint64, error) {
	switch a.Form {
	case formAddrx, formAddrx1, formAddrx2, formAddrx3, formAddrx4, formGNUAddrIndex:
		return a.cu.Addrx(a.Val)
	}
	return a.Val, nil
}

// StrOffset resolves a DW_FORM_strx index to a .debug_str offset.
func (cu *CU) StrOffset(idx uint64) (uint64, error) {
	r, err := cu.f.sec(secStrOffsets)
	if err != nil {
		return 0, elffile.WithFile(cu.f.name, err)
	}
	size := uint8(4)
	if cu.hdr.is64 {
		size = 8
	}
	at := cu.strOffsetsBase + idx*uint64(size)
	v, err := r.Uint(at, size, cu.order)
	if err != nil {
		return 0, cu.f.errorf(".debug_str_offsets", at, "strx index %d out of range", idx)
	}
	return v, nil
}

// Addrx resolves a DW_FORM_addrx index through .debug_addr.
func (cu *CU) Addrx(idx uint64) (uint64, error) {
	r, err := cu.f.sec(secAddr)
	if err != nil {
		return 0, elffile.WithFile(cu.f.name, err)
	}
	at := cu.addrBase + idx*uint64(cu.hdr.addrSize)
	v, err := r.Uint(at, cu.hdr.addrSize, cu.order)
	if err != nil {
		return 0, cu.f.errorf(".debug_addr", at, "addrx index %d out of range", idx)
	}
	return v, nil
}

// RnglistOffset resolves a DW_FORM_rnglistx index to a .debug_rnglists
// offset.
func (cu *CU) RnglistOffset(idx uint64) (uint64, error) {
	r, err := cu.f.sec(secRnglists)
	if err != nil {
		return 0, elffile.WithFile(cu.f.name, err)
	}
	size := uint8(4)
	if cu.hdr.is64 {
		size = 8
	}
	at := cu.rnglistsBase + idx*uint64(size)
	v, err := r.Uint(at, size, cu.order)
	if err != nil {
		return 0, cu.f.errorf(".debug_rnglists", at, "rnglistx index %d out of range", idx)
	}
	return cu.rnglistsBase + v, nil
}

// LoclistsBase returns DW_AT_loclists_base of the unit DIE (0 if absent).
func (cu *CU) LoclistsBase() uint64 { return cu.loclistsBase }

// DebugStrOffset returns the .debug_str offset of a DW_FORM_strp or strx*
// attribute (strx resolved through .debug_str_offsets): the key under
// which equal strings of a file meet. ok is false for other forms and for
// an index that does not resolve.
func (a Attr) DebugStrOffset() (off uint64, ok bool) {
	switch a.Form {
	case formStrp:
		return a.Val, true
	case formStrx, formStrx1, formStrx2, formStrx3, formStrx4, formGNUStrIndex:
		o, err := a.cu.StrOffset(a.Val)
		return o, err == nil
	}
	return 0, false
}
