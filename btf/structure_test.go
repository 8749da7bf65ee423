package btf

import (
	"errors"
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
