package btf

import (
	"errors"
	"fmt"
	"math/bits"
)

// Limits of the kernel's BTF verifier (kernel/bpf/btf.c, include/linux/btf.h).
const (
	MaxTypeID      = 0x000fffff // BTF_MAX_TYPE
	MaxNameOffset  = 0x00ffffff // BTF_MAX_NAME_OFFSET
	maxNameLen     = 512        // KSYM_NAME_LEN
	maxResolveDeep = 32         // MAX_RESOLVE_DEPTH
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("invalid BTF")

// ValidateOptions tunes Validate.
type ValidateOptions struct {
	// PtrSize is sizeof(void *) on the kernel the BTF describes; the
	// verifier checks pointer members against it. 0 takes the size of the
	// INT 'long int' / 'long unsigned int' if the BTF has one, else 8.
	PtrSize uint32
	// TrustBase: the base of split BTF is not validated as a whole, as
	// the kernel does not check vmlinux's BTF again when it loads a
	// module's. Only the base types the split's types reference are
	// checked (btf_check_meta) and resolved, with every type their
	// resolution walks through: what the split's checks read of the base
	// (resolved ids and sizes). The base's structure must have been
	// checked (CheckStructure). A module's base is a whole vmlinux, whose
	// checks take longer than the module's own. Errors in the base are
	// prefixed "base: ", as Validate's.
	TrustBase bool
}

// Validate checks the Spec against the rules of the kernel's BTF verifier
// (btf_parse_hdr, btf_check_all_metas, btf_check_all_types and
// btf_check_type_tags) and returns the first violation as a
// *FormatError naming the type and the rule, such as
//
//	type [42] STRUCT 'foo': member 'bar' offset 9000 beyond size 16
//
// Offsets of members are in bits, sizes in bytes, as bpftool prints them.
// For split BTF the base is validated too (its errors are prefixed
// "base: ").
func (s *Spec) Validate() error { return s.ValidateWith(ValidateOptions{}) }

// ValidateWith is Validate with options.
func (s *Spec) ValidateWith(o ValidateOptions) error {
	_, err := newVerifier(s, o)
	return err
}

func newVerifier(s *Spec, o ValidateOptions) (*verifier, error) {
	v := &verifier{s: s, ptrSize: o.PtrSize, first: s.FirstID(), next: s.NextID()}
	if s.base != nil {
		newBase := newVerifier
		if o.TrustBase {
			newBase = func(b *Spec, o ValidateOptions) (*verifier, error) { return trustedVerifier(b, o, s) }
		}
		bv, err := newBase(s.base, o)
		if err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
		v.base = bv
		v.ptrSize = bv.ptrSize
	}
	if v.ptrSize == 0 {
		v.ptrSize = guessPtrSize(s)
	}
	n := s.Len()
	v.visit = make([]uint8, n)
	v.resID = make([]TypeID, n)
	v.resSize = make([]uint32, n)
	if err := s.CheckStructure(); err != nil {
		return nil, err
	}
	for id := v.first; id < v.next; id++ {
		if err := v.checkMeta(id); err != nil {
			return nil, err
		}
	}
	for id := v.first; id < v.next; id++ {
		k := s.Kind(id)
		if needsResolve(k) && !v.resolved(id) {
			if err := v.resolve(id); err != nil {
				return nil, err
			}
		}
		if k == KindFuncProto {
			if err := v.checkFuncProto(id); err != nil {
				return nil, err
			}
		}
	}
	if err := v.checkTypeTags(); err != nil {
		return nil, err
	}
	return v, nil
}

// trustedVerifier is the verifier of a trusted base, for split BTF on top
// of it: nothing is checked but that the base types split's types
// reference pass checkMeta and resolve, with the types their resolution
// pushes (lazyMeta), which is all split's verifier reads of it. (What a
// type resolves to does not depend on which type's resolution reached it
// first.)
func trustedVerifier(base *Spec, o ValidateOptions, split *Spec) (*verifier, error) {
	v := &verifier{s: base, ptrSize: o.PtrSize, first: base.FirstID(), next: base.NextID(), lazyMeta: true}
	if v.ptrSize == 0 {
		v.ptrSize = guessPtrSize(base)
	}
	v.reached = make(map[TypeID]reachedType)
	var err error
	for id := split.FirstID(); id < split.NextID() && err == nil; id++ {
		split.ForEachRef(id, func(ref *uint32) {
			b := TypeID(*ref)
			switch {
			case err != nil || b < v.first || b >= v.next || v.resolved(b):
			case needsResolve(base.Kind(b)):
				err = v.resolve(b) // checks b's meta when it pushes it
			default:
				err = v.checkMeta(b)
			}
		})
	}
	return v, err
}

func guessPtrSize(s *Spec) uint32 {
	for sp := s; sp != nil; sp = sp.base {
		for id := sp.FirstID(); id < sp.NextID(); id++ {
			t := sp.Type(id)
			if t.Kind() != KindInt {
				continue
			}
			switch sp.Name(id) {
			case "long int", "long unsigned int", "long", "unsigned long":
				return t.Size()
			}
		}
	}
	return 8
}

// errAt builds the error for type id, located at the type's record.
func (v *verifier) errAt(id TypeID, format string, a ...any) error {
	return &FormatError{Off: v.s.TypeOffset(id), ID: id, Kind: v.s.Kind(id), Name: v.s.Name(id), Msg: fmt.Sprintf(format, a...), Err: ErrInvalid}
}

func (v *verifier) errHdr(off int64, format string, a ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, a...), Err: ErrInvalid}
}

// checkHeader applies btf_parse_hdr, btf_check_sec_info and
// btf_parse_str_sec to the header the Spec was read with (when its section
// sizes still describe the Spec) and to the string table.
func (v *verifier) checkHeader() error {
	s := v.s
	h := s.Header
	strs := s.strings.Bytes()
	typeLen := uint32(12*len(s.types) + 4*len(s.extra))
	if h.HdrLen != 0 && s.fitsHeader(typeLen, uint32(len(strs))) {
		if h.Flags != 0 {
			return v.errHdr(3, "header: unsupported flags %#x", h.Flags)
		}
		for i, c := range h.Extra {
			if c != 0 {
				return v.errHdr(int64(h.HdrLen)-int64(len(h.Extra))+int64(i), "header: unsupported non-zero header byte (hdr_len %d)", h.HdrLen)
			}
		}
		if err := checkSections(h); err != nil {
			return err
		}
	}
	if s.base == nil {
		if len(strs) == 0 || strs[0] != 0 {
			return v.errHdr(-1, "string section does not start with an empty string")
		}
		if len(s.types) == 0 {
			return v.errHdr(-1, "no type found")
		}
	}
	if len(strs) > 0 && strs[len(strs)-1] != 0 {
		return v.errHdr(-1, "string section not NUL-terminated")
	}
	if s.strings.Len() > MaxNameOffset {
		return v.errHdr(-1, "string section of %d bytes exceeds BTF_MAX_NAME_OFFSET %d", s.strings.Len(), MaxNameOffset)
	}
	if last := v.next - 1; last > MaxTypeID {
		return v.errHdr(-1, "%d types exceed BTF_MAX_TYPE %d", last, MaxTypeID)
	}
	return nil
}

// nameOK reports whether off is a valid offset into the string section.
func (v *verifier) nameOK(off StrOff) bool { return uint32(off) < v.s.strings.Len() }

// validIdentifier is btf_name_valid_identifier: a C identifier of at most
// KSYM_NAME_LEN-1 bytes, where the kernel also accepts '.' (as in
// "foo.isra.0"). The offset must be valid.
//
// A vmlinux names its 108k types and 500k members with 100k strings:
// offsets found valid are remembered (a bit per byte of strings).
func (v *verifier) validIdentifier(off StrOff) bool {
	if v.identOK == nil && !v.lazyMeta { // a lazyMeta verifier checks few names
		v.identOK = make([]uint64, v.s.strings.Len()/64+1)
	}
	if int(off/64) < len(v.identOK) && v.identOK[off/64]&(1<<(off%64)) != 0 {
		return true
	}
	b, err := v.s.strings.LookupBytes(off)
	if err != nil || len(b) == 0 || len(b) >= maxNameLen {
		return false
	}
	if identChar[b[0]] != identStart {
		return false
	}
	for _, c := range b[1:] {
		if identChar[c] == 0 {
			return false
		}
	}
	if int(off/64) < len(v.identOK) {
		v.identOK[off/64] |= 1 << (off % 64)
	}
	return true
}

// identChar classes bytes for validIdentifier: identStart may begin an
// identifier (letters, '_', '.'), identDigit only follow.
var identChar = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '.':
			t[c] = identStart
		case c >= '0' && c <= '9':
			t[c] = identDigit
		}
	}
	return t
}()

const (
	identStart = 1
	identDigit = 2
)

// validSection is btf_name_valid_section: DATASEC names may hold any
// printable character (".data..percpu", ".bss").
func (v *verifier) validSection(off StrOff) bool {
	b, err := v.s.strings.LookupBytes(off)
	if err != nil || len(b) == 0 || len(b) >= maxNameLen {
		return false
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

func (v *verifier) str(off StrOff) string {
	b, err := v.s.strings.LookupBytes(off)
	if err != nil {
		return fmt.Sprintf("(invalid offset %d)", off)
	}
	return printable(string(b))
}

// lazyDesc names a member only when an error is printed (%s calls String).
type lazyDesc struct {
	v    *verifier
	what string
	i    int
	name StrOff
}

func (d lazyDesc) String() string { return d.v.memberDesc(d.what, d.i, d.name) }

// memberDesc names member i of a struct, union, enum or func proto.
func (v *verifier) memberDesc(what string, i int, name StrOff) string {
	if name == 0 {
		return fmt.Sprintf("%s #%d (anon)", what, i)
	}
	return fmt.Sprintf("%s '%s'", what, v.str(name))
}

// checkMeta is btf_check_meta: everything that can be checked of one type
// without looking at the types it refers to.
func (v *verifier) checkMeta(id TypeID) error {
	s := v.s
	t := s.Type(id)
	k := t.Kind()
	w := s.Extra(id)
	vlen := t.Vlen()
	if !k.Valid() {
		return v.errAt(id, "invalid kind %d", k)
	}
	if !v.nameOK(t.NameOff) {
		return v.errAt(id, "name offset %d beyond string section (%d bytes)", t.NameOff, s.strings.Len())
	}
	noVlen := func() error {
		if vlen != 0 {
			return v.errAt(id, "vlen %d, must be 0", vlen)
		}
		return nil
	}
	noFlag := func() error {
		if t.KindFlag() {
			return v.errAt(id, "kind_flag set, must be 0 for %s", k)
		}
		return nil
	}
	needIdent := func() error {
		if t.NameOff == 0 || !v.validIdentifier(t.NameOff) {
			return v.errAt(id, "invalid name: %s needs a C identifier", k)
		}
		return nil
	}
	optIdent := func() error {
		if t.NameOff != 0 && !v.validIdentifier(t.NameOff) {
			return v.errAt(id, "invalid name: not a C identifier")
		}
		return nil
	}
	noName := func() error {
		if t.NameOff != 0 {
			return v.errAt(id, "invalid name: %s must be anonymous", k)
		}
		return nil
	}
	refOK := func(what string, ref uint32, allowVoid bool) error {
		if ref == 0 && !allowVoid || ref > MaxTypeID {
			return v.errAt(id, "invalid %stype_id %d", what, ref)
		}
		return nil
	}
	switch k {
	case KindInt:
		if err := firstErr(noVlen(), noFlag()); err != nil {
			return err
		}
		if w[0]&^0x0fffffff != 0 {
			return v.errAt(id, "invalid int data %#x", w[0])
		}
		enc, off, nbits := IntInfo(w[0])
		if off+nbits > 128 {
			return v.errAt(id, "nr_bits %d + bits_offset %d exceeds 128", nbits, off)
		}
		if (off+nbits+7)/8 > t.Size() {
			return v.errAt(id, "nr_bits %d + bits_offset %d exceeds size %d", nbits, off, t.Size())
		}
		if enc != 0 && enc != IntSigned && enc != IntChar && enc != IntBool {
			return v.errAt(id, "unsupported encoding %#x", enc)
		}
	case KindPtr, KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag:
		if err := noVlen(); err != nil {
			return err
		}
		if k != KindTypeTag {
			if err := noFlag(); err != nil {
				return err
			}
		}
		if err := refOK("", t.SizeOrType, true); err != nil {
			return err
		}
		switch k {
		case KindTypedef:
			return needIdent()
		case KindTypeTag:
			if b, err := s.strings.LookupBytes(t.NameOff); t.NameOff == 0 || err != nil || len(b) == 0 {
				return v.errAt(id, "invalid name: TYPE_TAG needs a value")
			}
		default:
			return noName()
		}
	case KindArray:
		if err := firstErr(noName(), noVlen(), noFlag()); err != nil {
			return err
		}
		if t.SizeOrType != 0 {
			return v.errAt(id, "size %d, must be 0", t.SizeOrType)
		}
		if err := refOK("elem ", w[0], false); err != nil {
			return err
		}
		return refOK("index ", w[1], false)
	case KindStruct, KindUnion:
		if err := optIdent(); err != nil {
			return err
		}
		last := uint32(0)
		for i := 0; i < int(vlen); i++ {
			m := s.Member(id, i)
			if !v.nameOK(m.NameOff) {
				return v.errAt(id, "member #%d name offset %d beyond string section", i, m.NameOff)
			}
			desc := lazyDesc{v, "member", i, m.NameOff}
			if m.NameOff != 0 && !v.validIdentifier(m.NameOff) {
				return v.errAt(id, "%s: invalid name: not a C identifier", desc)
			}
			if m.Type == 0 || m.Type > MaxTypeID {
				return v.errAt(id, "%s: invalid type_id %d", desc, m.Type)
			}
			off := m.BitOffset(t.KindFlag())
			if k == KindUnion && off != 0 {
				return v.errAt(id, "%s: offset %d, must be 0 in a union", desc, off)
			}
			if off < last {
				return v.errAt(id, "%s: offset %d before previous member's %d", desc, off, last)
			}
			if (uint64(off)+7)/8 > uint64(t.Size()) {
				return v.errAt(id, "%s offset %d beyond size %d", desc, off, t.Size())
			}
			last = off
		}
	case KindEnum, KindEnum64:
		if t.Size() > 8 || bits.OnesCount32(t.Size()) != 1 {
			return v.errAt(id, "unexpected size %d (1, 2, 4 or 8)", t.Size())
		}
		if err := optIdent(); err != nil {
			return err
		}
		for i := 0; i < int(vlen); i++ {
			e := s.EnumValue(id, i)
			if !v.nameOK(e.NameOff) {
				return v.errAt(id, "value #%d name offset %d beyond string section", i, e.NameOff)
			}
			if e.NameOff == 0 || !v.validIdentifier(e.NameOff) {
				return v.errAt(id, "%s: invalid name: not a C identifier", v.memberDesc("value", i, e.NameOff))
			}
		}
	case KindFwd:
		if err := noVlen(); err != nil {
			return err
		}
		if t.SizeOrType != 0 {
			return v.errAt(id, "type %d, must be 0", t.SizeOrType)
		}
		return needIdent()
	case KindFunc:
		if err := needIdent(); err != nil {
			return err
		}
		if vlen > LinkageGlobal {
			return v.errAt(id, "invalid func linkage %d (static or global)", vlen)
		}
		return noFlag()
	case KindFuncProto:
		return firstErr(noName(), noFlag())
	case KindVar:
		if err := firstErr(noVlen(), noFlag(), needIdent(), refOK("", t.SizeOrType, false)); err != nil {
			return err
		}
		if w[0] != LinkageStatic && w[0] != LinkageGlobal {
			return v.errAt(id, "linkage %d not supported (static or global)", w[0])
		}
	case KindDatasec:
		if t.Size() == 0 {
			return v.errAt(id, "size 0")
		}
		if err := noFlag(); err != nil {
			return err
		}
		if t.NameOff == 0 || !v.validSection(t.NameOff) {
			return v.errAt(id, "invalid name: DATASEC needs printable characters")
		}
		lastEnd, sum := uint64(0), uint64(0)
		for i := 0; i < int(vlen); i++ {
			si := s.Secinfo(id, i)
			if si.Type == 0 || si.Type > MaxTypeID {
				return v.errAt(id, "secinfo #%d: invalid type_id %d", i, si.Type)
			}
			if uint64(si.Offset) < lastEnd || si.Offset >= t.Size() {
				return v.errAt(id, "secinfo #%d (type_id %d): invalid offset %d (previous end %d, size %d)", i, si.Type, si.Offset, lastEnd, t.Size())
			}
			if si.Size == 0 || si.Size > t.Size() {
				return v.errAt(id, "secinfo #%d (type_id %d): invalid size %d", i, si.Type, si.Size)
			}
			lastEnd = uint64(si.Offset) + uint64(si.Size)
			if lastEnd > uint64(t.Size()) {
				return v.errAt(id, "secinfo #%d (type_id %d): offset %d + size %d beyond size %d", i, si.Type, si.Offset, si.Size, t.Size())
			}
			sum += uint64(si.Size)
		}
		if sum > uint64(t.Size()) {
			return v.errAt(id, "secinfo sizes add up to %d, beyond size %d", sum, t.Size())
		}
	case KindFloat:
		if err := firstErr(noVlen(), noFlag()); err != nil {
			return err
		}
		switch t.Size() {
		case 2, 4, 8, 12, 16:
		default:
			return v.errAt(id, "invalid size %d (2, 4, 8, 12 or 16)", t.Size())
		}
	case KindDeclTag:
		if b, err := s.strings.LookupBytes(t.NameOff); t.NameOff == 0 || err != nil || len(b) == 0 {
			return v.errAt(id, "invalid value: DECL_TAG needs a name")
		}
		if err := noVlen(); err != nil {
			return err
		}
		if c := int32(w[0]); c < -1 {
			return v.errAt(id, "invalid component_idx %d", c)
		}
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
