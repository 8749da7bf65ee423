package btf

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestTwoLevels: what breaks the format fails CheckStructure (and so
// Validate) with ErrMalformed; what breaks only a kernel verifier rule
// passes CheckStructure and fails Validate with ErrInvalid alone.
func TestTwoLevels(t *testing.T) {
	intType := func(s *Spec) TypeID {
		return s.Add(Type{NameOff: s.Strings().Add("int"), Info: MakeInfo(KindInt, 0, false), SizeOrType: 4}, MakeIntInfo(IntSigned, 0, 32))
	}
	cases := []struct {
		name      string
		build     func(s *Spec)
		malformed bool
		want      string
	}{
		{"type id past the last type", func(s *Spec) {
			intType(s)
			s.Add(Type{Info: MakeInfo(KindPtr, 0, false), SizeOrType: 9})
		}, true, "type [2] PTR '(anon)': invalid type_id 9 (out of range, last id 2)"},
		{"param type past the last type", func(s *Spec) {
			i := intType(s)
			s.Add(Type{Info: MakeInfo(KindFuncProto, 1, false), SizeOrType: uint32(i)}, 0, 7)
		}, true, "param #0: invalid type_id 7"},
		{"enum value name past the strings", func(s *Spec) {
			s.Add(Type{NameOff: s.Strings().Add("e"), Info: MakeInfo(KindEnum, 1, false), SizeOrType: 4}, 5000, 1)
		}, true, "value #0 name offset 5000 beyond string section"},
		{"FUNC of a typedef", func(s *Spec) {
			i := intType(s)
			td := s.Add(Type{NameOff: s.Strings().Add("t"), Info: MakeInfo(KindTypedef, 0, false), SizeOrType: uint32(i)})
			s.Add(Type{NameOff: s.Strings().Add("f"), Info: MakeInfo(KindFunc, 0, false), SizeOrType: uint32(td)})
		}, true, "type_id 2 (TYPEDEF) is not a FUNC_PROTO"},
		{"typedef recursing through a FUNC_PROTO", func(s *Spec) {
			s.Add(Type{NameOff: s.Strings().Add("Foo"), Info: MakeInfo(KindTypedef, 0, false), SizeOrType: 2})
			s.Add(Type{Info: MakeInfo(KindFuncProto, 0, false), SizeOrType: 1})
		}, false, "invalid return type: type_id 1 (TYPEDEF) has no size"},
		{"struct name not a C identifier", func(s *Spec) {
			i := intType(s)
			s.Add(Type{NameOff: s.Strings().Add("a b"), Info: MakeInfo(KindStruct, 1, false), SizeOrType: 4}, uint32(s.Strings().Add("x")), uint32(i), 0)
		}, false, "invalid name: not a C identifier"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSpec()
			c.build(s)
			// Through the wire, as the tools read it.
			s, err := Parse(s.Marshal(), nil)
			if err != nil {
				t.Fatal(err)
			}
			serr, verr := s.CheckStructure(), s.Validate()
			if verr == nil || !strings.Contains(verr.Error(), c.want) || !errors.Is(verr, ErrInvalid) {
				t.Errorf("Validate: %v, want %q", verr, c.want)
			}
			if c.malformed != (serr != nil) || c.malformed != errors.Is(verr, ErrMalformed) {
				t.Errorf("malformed %v: CheckStructure %v, Validate %v", c.malformed, serr, verr)
			}
		})
	}
}

// TestRecordsSoundAgrees: the one-pass test of the type records accepts
// exactly what the type-by-type check accepts, over single-word mutations
// of the every-kind Spec, alone and split over itself.
func TestRecordsSoundAgrees(t *testing.T) {
	rejected := 0
	for _, split := range []bool{false, true} {
		var s *Spec
		if split {
			s = NewSplitSpec(allKinds())
			s.Add(Type{NameOff: s.Strings().Add("node_ptr"), Info: MakeInfo(KindTypedef, 0, false), SizeOrType: 5})
			s.Add(Type{Info: MakeInfo(KindFuncProto, 1, false), SizeOrType: 1}, 0, 24)
			s.Add(Type{NameOff: s.Strings().Add("g"), Info: MakeInfo(KindFunc, 0, false), SizeOrType: 24})
		} else {
			s = allKinds()
		}
		types, _, words := s.Raw()
		values := []uint32{0, 1, 5, 17, 22, uint32(s.NextID()) - 1, uint32(s.NextID()), s.Strings().Len() - 1, s.Strings().Len(), 1 << 31}
		check := func(what string) {
			v := &verifier{s: s, first: s.FirstID(), next: s.NextID()}
			fast, slow := v.recordsSound(), v.firstRecordError()
			if fast != (slow == nil) {
				t.Errorf("split %v, %s: one pass says %v, type by type %v", split, what, fast, slow)
			}
			if slow != nil {
				rejected++
			}
		}
		for i := range words {
			old := words[i]
			for _, x := range values {
				words[i] = x
				check(fmt.Sprintf("word %d = %d", i, x))
			}
			words[i] = old
		}
		for i := range types {
			old := types[i]
			for _, x := range values {
				types[i].NameOff, types[i].SizeOrType = StrOff(x), old.SizeOrType
				check(fmt.Sprintf("type %d name %d", i, x))
				types[i].NameOff, types[i].SizeOrType = old.NameOff, x
				check(fmt.Sprintf("type %d size_or_type %d", i, x))
			}
			types[i] = old
		}
	}
	if rejected == 0 {
		t.Error("no mutation was rejected: the test compares nothing but successes")
	}
}
