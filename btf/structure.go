package btf

import (
	"errors"
	"fmt"
)

// Two levels of checking.
//
// CheckStructure is the format's own level: what any reader needs to walk
// the BTF at all (the properties libbpf's btf_sanity_check relies on, plus
// the header and the string section). Every tool refuses BTF that fails it.
//
// Validate adds the kernel verifier's rules for loading BTF (C
// identifiers, sized return types, member offsets within the struct,
// resolvable chains...). The encoder checks its own output with them and
// `btfstream check` runs them on any BTF, but BTF from other producers that
// only breaks these rules (libbpf deduplicates it) is still read, dumped,
// deduplicated and compared.
//
// The structural level is one function per part of the file, each
// returning a *FormatError that names the byte offset and, for a type, its
// id: checkHeader (validate.go: the header, the sections it describes and
// the string section), checkTypeRecords (each type's record). A new
// section's contents get their own function in the list in
// CheckStructure.

// ErrMalformed is wrapped by the errors of CheckStructure. It wraps
// ErrInvalid, so errors.Is(err, ErrInvalid) holds for both levels.
var ErrMalformed = fmt.Errorf("malformed BTF: %w", ErrInvalid)

// CheckStructure checks what every reader of s needs: the header's
// sections tile the data (when s still has the sections it was read with),
// the string section starts with "" and ends with NUL, every type has a
// known kind and a record of the length its vlen implies, every string
// offset is inside the string section, every type id is one of s's (or its
// base's) types or void, and a FUNC's type is a FUNC_PROTO. The base of
// split BTF is not checked (load it with its own check).
func (s *Spec) CheckStructure() error {
	v := &verifier{s: s, first: s.FirstID(), next: s.NextID()}
	for _, check := range []func() error{v.checkHeader, v.checkTypeRecords} {
		if err := check(); err != nil {
			var fe *FormatError
			if errors.As(err, &fe) && fe.Err == ErrInvalid {
				fe.Err = ErrMalformed
			}
			return err
		}
	}
	return nil
}

// checkTypeRecords checks each local type's record on its own: known
// kind, record length, string offsets, type ids (what btf_validate_type
// checks in libbpf).
func (v *verifier) checkTypeRecords() error {
	if v.recordsSound() {
		return nil
	}
	return v.firstRecordError()
}

// firstRecordError is checkTypeRecords type by type, returning the first
// error with its message.
func (v *verifier) firstRecordError() error {
	s := v.s
	for id := v.first; id < v.next; id++ {
		t := s.Type(id)
		k := t.Kind()
		if !k.Valid() {
			return v.errAt(id, "invalid kind %d", k)
		}
		if n := k.ExtraWords(t.Vlen()); n != len(s.Extra(id)) {
			return v.errAt(id, "vlen %d needs %d words of %s data, record has %d", t.Vlen(), n, k, len(s.Extra(id)))
		}
		if !v.nameOK(t.NameOff) {
			return v.errAt(id, "name offset %d beyond string section (%d bytes)", t.NameOff, s.strings.Len())
		}
		if err := v.checkRecordFields(id, k); err != nil {
			return err
		}
		if k == KindFunc && s.Kind(TypeID(t.SizeOrType)) != KindFuncProto {
			return v.errAt(id, "type_id %d (%s) is not a FUNC_PROTO", t.SizeOrType, s.Kind(TypeID(t.SizeOrType)))
		}
	}
	return nil
}

// recordsSound is checkTypeRecords' test without its messages, in one
// tight pass over the records: checkTypeRecords looks for the first error
// only when this fails. (On a vmlinux base it ran for every module.)
func (v *verifier) recordsSound() bool {
	s := v.s
	types, at, words := s.Raw()
	strLen, next := s.strings.Len(), uint32(v.next)
	// Type i's words start where type i-1's end: counted, and checked
	// against at where there is one (a sparse Spec has none).
	rest := words
	for i, t := range types {
		k := t.Kind()
		n := t.WordCount() // a valid kind: its ExtraWords
		if !k.Valid() || uint32(t.NameOff) >= strLen || n > uint32(len(rest)) {
			return false
		}
		w := rest[:n:n]
		rest = rest[n:]
		if at != nil && int(at[i+1]) != len(words)-len(rest) {
			return false
		}
		if k.HasType() && t.SizeOrType >= next {
			return false
		}
		// Each kind's words as (stride, name index, type index), -1 for none.
		step, name, ref := 0, -1, -1
		switch k {
		case KindArray:
			if w[0] >= next || w[1] >= next {
				return false
			}
		case KindStruct, KindUnion:
			step, name, ref = 3, 0, 1
		case KindEnum:
			step, name = 2, 0
		case KindEnum64:
			step, name = 3, 0
		case KindFuncProto:
			step, name, ref = 2, 0, 1
		case KindDatasec:
			step, ref = 3, 0
		case KindFunc:
			if s.Kind(TypeID(t.SizeOrType)) != KindFuncProto {
				return false
			}
		}
		for j := 0; step > 0 && j < len(w); j += step {
			if name >= 0 && w[j+name] >= strLen || ref >= 0 && w[j+ref] >= next {
				return false
			}
		}
	}
	return len(rest) == 0
}

// checkRecordFields checks the string offsets and type ids inside a
// type's record, naming the member, value, parameter or secinfo.
func (v *verifier) checkRecordFields(id TypeID, k Kind) error {
	s := v.s
	t := s.Type(id)
	ref := func(what string, r uint32) error {
		if !v.exists(TypeID(r)) {
			return v.errAt(id, "%sinvalid type_id %d (out of range, last id %d)", what, r, v.next-1)
		}
		return nil
	}
	name := func(what string, i int, off StrOff) error {
		if !v.nameOK(off) {
			return v.errAt(id, "%s #%d name offset %d beyond string section (%d bytes)", what, i, off, s.strings.Len())
		}
		return nil
	}
	if k.HasType() {
		if err := ref("", t.SizeOrType); err != nil {
			return err
		}
	}
	vlen := int(t.Vlen())
	switch k {
	case KindArray:
		a := s.Array(id)
		return firstErr(ref("elem ", uint32(a.Type)), ref("index ", uint32(a.IndexType)))
	case KindStruct, KindUnion:
		for i := 0; i < vlen; i++ {
			m := s.Member(id, i)
			if err := name("member", i, m.NameOff); err != nil {
				return err
			}
			if !v.exists(m.Type) {
				return ref(lazyDesc{v, "member", i, m.NameOff}.String()+": ", uint32(m.Type))
			}
		}
	case KindEnum, KindEnum64:
		for i := 0; i < vlen; i++ {
			if err := name("value", i, s.EnumValue(id, i).NameOff); err != nil {
				return err
			}
		}
	case KindFuncProto:
		for i := 0; i < vlen; i++ {
			p := s.Param(id, i)
			if err := name("param", i, p.NameOff); err != nil {
				return err
			}
			if !v.exists(p.Type) {
				return ref(fmt.Sprintf("param #%d: ", i), uint32(p.Type))
			}
		}
	case KindDatasec:
		for i := 0; i < vlen; i++ {
			if si := s.Secinfo(id, i); !v.exists(si.Type) {
				return ref(fmt.Sprintf("secinfo #%d: ", i), uint32(si.Type))
			}
		}
	}
	return nil
}
