package btf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// tb builds small Specs for the validator table.
type tb struct{ s *Spec }

func newTB() *tb { return &tb{NewSpec()} }

func (b *tb) str(name string) uint32 { return uint32(b.s.Strings().Add(name)) }

func (b *tb) add(name string, k Kind, vlen uint32, flag bool, sizeOrType uint32, extra ...uint32) TypeID {
	var off StrOff
	if name != "" {
		off = b.s.Strings().Add(name)
	}
	return b.s.Add(Type{NameOff: off, Info: MakeInfo(k, vlen, flag), SizeOrType: sizeOrType}, extra...)
}

func (b *tb) int32() TypeID {
	return b.add("int", KindInt, 0, false, 4, MakeIntInfo(IntSigned, 0, 32))
}

// rejectCases are BTFs the kernel's verifier rejects, with the message
// Validate gives (the whole message, or a part of it).
var rejectCases = []struct {
	name  string
	build func(b *tb)
	want  string
}{
	{"member offset beyond size", func(b *tb) {
		i := b.int32()
		b.add("foo", KindStruct, 1, false, 16, b.str("bar"), uint32(i), 9000)
	}, "type [2] STRUCT 'foo': member 'bar' offset 9000 beyond size 16"},
	{"member end beyond size", func(b *tb) {
		i := b.int32()
		b.add("foo", KindStruct, 1, false, 14, b.str("bar"), uint32(i), 96)
	}, "type [2] STRUCT 'foo': member 'bar' offset 96 + 32 bits beyond size 14"},
	{"bitfield beyond size", func(b *tb) {
		i := b.int32()
		b.add("foo", KindStruct, 1, true, 4, b.str("b"), uint32(i), 4<<24|30)
	}, "type [2] STRUCT 'foo': member 'b' offset 30 + 4 bits beyond size 4"},
	{"bitfield wider than its int", func(b *tb) {
		i := b.int32()
		b.add("foo", KindStruct, 1, true, 8, b.str("b"), uint32(i), 33<<24)
	}, "bitfield_size 33 exceeds its int's 32 bits"},
	{"member offsets go back", func(b *tb) {
		i := b.int32()
		b.add("foo", KindStruct, 2, false, 8, b.str("a"), uint32(i), 32, b.str("b"), uint32(i), 0)
	}, "member 'b': offset 0 before previous member's 32"},
	{"union member at non-zero offset", func(b *tb) {
		i := b.int32()
		b.add("u", KindUnion, 1, false, 8, b.str("a"), uint32(i), 32)
	}, "type [2] UNION 'u': member 'a': offset 32, must be 0 in a union"},
	{"pointer member not byte aligned", func(b *tb) {
		p := b.add("", KindPtr, 0, false, 0)
		b.add("s", KindStruct, 1, false, 16, b.str("p"), uint32(p), 4)
	}, "member 'p': offset 4 not byte aligned"},
	{"type id out of range", func(b *tb) {
		b.int32()
		b.add("t", KindTypedef, 0, false, 99)
	}, "type [2] TYPEDEF 't': invalid type_id 99 (out of range, last id 2)"},
	{"member type out of range", func(b *tb) {
		b.add("s", KindStruct, 1, false, 4, b.str("m"), 7, 0)
	}, "type [1] STRUCT 's': member 'm': invalid type_id 7 (out of range, last id 1)"},
	{"void member", func(b *tb) {
		b.add("s", KindStruct, 1, false, 4, b.str("m"), 0, 0)
	}, "member 'm': invalid type_id 0"},
	{"name offset beyond strings", func(b *tb) {
		b.s.Add(Type{NameOff: 1000, Info: MakeInfo(KindInt, 0, false), SizeOrType: 4}, MakeIntInfo(0, 0, 32))
	}, "type [1] INT '(anon)': name offset 1000 beyond string section"},
	{"member name offset beyond strings", func(b *tb) {
		i := b.int32()
		b.add("s", KindStruct, 1, false, 4, 5000, uint32(i), 0)
	}, "member #0 name offset 5000 beyond string section"},
	{"struct name not an identifier", func(b *tb) {
		b.add("foo bar", KindStruct, 0, false, 0)
	}, "type [1] STRUCT 'foo bar': invalid name: not a C identifier"},
	{"identifier starting with a digit", func(b *tb) {
		i := b.int32()
		b.add("9lives", KindTypedef, 0, false, uint32(i))
	}, "invalid name: TYPEDEF needs a C identifier"},
	{"enum value without a name", func(b *tb) {
		b.add("e", KindEnum, 1, false, 4, 0, 1)
	}, "type [1] ENUM 'e': value #0 (anon): invalid name"},
	{"datasec name not printable", func(b *tb) {
		i := b.int32()
		v := b.add("v", KindVar, 0, false, uint32(i), LinkageGlobal)
		b.add(".data\x01", KindDatasec, 1, false, 4, uint32(v), 0, 4)
	}, "invalid name: DATASEC needs printable characters"},
	{"anonymous typedef", func(b *tb) {
		i := b.int32()
		b.add("", KindTypedef, 0, false, uint32(i))
	}, "type [2] TYPEDEF '(anon)': invalid name"},
	{"named pointer", func(b *tb) {
		b.add("p", KindPtr, 0, false, 0)
	}, "type [1] PTR 'p': invalid name: PTR must be anonymous"},
	{"const loop", func(b *tb) {
		b.add("", KindConst, 0, false, 2)
		b.add("", KindVolatile, 0, false, 1)
	}, "type [1] CONST '(anon)': loop detected: [1] CONST -> [2] VOLATILE -> [1]"},
	{"pointer loop", func(b *tb) {
		b.add("", KindPtr, 0, false, 2)
		b.add("", KindConst, 0, false, 1)
	}, "type [1] PTR '(anon)': loop detected: [1] PTR -> [2] CONST -> [1]"},
	{"typedef loop through type tag", func(b *tb) {
		b.add("t", KindTypedef, 0, false, 2)
		b.add("user", KindTypeTag, 0, false, 1)
	}, "loop detected"},
	{"struct contains itself", func(b *tb) {
		b.add("a", KindStruct, 1, false, 4, b.str("b"), 2, 0)
		b.add("b", KindStruct, 1, false, 4, b.str("a"), 1, 0)
	}, "type [1] STRUCT 'a': loop detected: [1] STRUCT -> [2] STRUCT -> [1]"},
	{"array of itself through typedef", func(b *tb) {
		i := b.int32()
		b.add("", KindArray, 0, false, 0, 3, uint32(i), 2)
		b.add("arr", KindTypedef, 0, false, 2)
	}, "loop detected"},
	{"resolve depth", func(b *tb) {
		i := b.int32()
		for n := 0; n < 40; n++ {
			b.add("", KindConst, 0, false, uint32(b.s.NextID())+1)
		}
		b.add("", KindVolatile, 0, false, uint32(i))
	}, "exceeded max resolving depth 32"},
	{"const of a VAR", func(b *tb) {
		i := b.int32()
		v := b.add("v", KindVar, 0, false, uint32(i), 0)
		b.add("", KindConst, 0, false, uint32(v))
	}, "type [3] CONST '(anon)': invalid type_id 2 (VAR)"},
	{"int bits beyond size", func(b *tb) {
		b.add("i", KindInt, 0, false, 2, MakeIntInfo(0, 0, 32))
	}, "type [1] INT 'i': nr_bits 32 + bits_offset 0 exceeds size 2"},
	{"int encoding", func(b *tb) {
		b.add("i", KindInt, 0, false, 4, MakeIntInfo(IntSigned|IntBool, 0, 32))
	}, "unsupported encoding 0x5"},
	{"enum size", func(b *tb) {
		b.add("e", KindEnum, 0, false, 3)
	}, "type [1] ENUM 'e': unexpected size 3"},
	{"float size", func(b *tb) {
		b.add("f", KindFloat, 0, false, 3)
	}, "type [1] FLOAT 'f': invalid size 3"},
	{"kind_flag on a pointer", func(b *tb) {
		b.add("", KindPtr, 0, true, 0)
	}, "kind_flag set, must be 0 for PTR"},
	{"extern func", func(b *tb) {
		p := b.add("", KindFuncProto, 0, false, 0)
		b.add("f", KindFunc, LinkageExtern, false, uint32(p))
	}, "type [2] FUNC 'f': invalid func linkage 2"},
	{"func of a non-proto", func(b *tb) {
		i := b.int32()
		b.add("f", KindFunc, 0, false, uint32(i))
	}, "type [2] FUNC 'f': type_id 1 (INT) is not a FUNC_PROTO"},
	{"func param without name", func(b *tb) {
		i := b.int32()
		p := b.add("", KindFuncProto, 1, false, 0, 0, uint32(i))
		b.add("f", KindFunc, 0, false, uint32(p))
	}, "arg#1 of FUNC_PROTO [2] has no name"},
	{"void parameter", func(b *tb) {
		i := b.int32()
		b.add("", KindFuncProto, 2, false, 0, b.str("a"), 0, b.str("b"), uint32(i))
	}, "type [2] FUNC_PROTO '(anon)': invalid arg#1: type_id 0 (void) has no size"},
	{"named vararg", func(b *tb) {
		b.add("", KindFuncProto, 1, false, 0, b.str("x"), 0)
	}, "arg#1: vararg with a name"},
	{"extern var", func(b *tb) {
		i := b.int32()
		b.add("v", KindVar, 0, false, uint32(i), LinkageExtern)
	}, "type [2] VAR 'v': linkage 2 not supported"},
	{"datasec of a non-var", func(b *tb) {
		i := b.int32()
		b.add(".data", KindDatasec, 1, false, 4, uint32(i), 0, 4)
	}, "type [2] DATASEC '.data': secinfo #0: type_id 1 (INT) is not a VAR"},
	{"datasec entry beyond size", func(b *tb) {
		i := b.int32()
		v := b.add("v", KindVar, 0, false, uint32(i), 0)
		b.add(".bss", KindDatasec, 1, false, 4, uint32(v), 2, 4)
	}, "secinfo #0 (type_id 2): offset 2 + size 4 beyond size 4"},
	{"datasec entry smaller than its var", func(b *tb) {
		i := b.int32()
		v := b.add("v", KindVar, 0, false, uint32(i), 0)
		b.add(".bss", KindDatasec, 1, false, 4, uint32(v), 0, 2)
	}, "secinfo #0: size 2 smaller than VAR [2]'s type (4)"},
	{"decl tag component beyond members", func(b *tb) {
		i := b.int32()
		s := b.add("s", KindStruct, 1, false, 4, b.str("a"), uint32(i), 0)
		b.add("tag", KindDeclTag, 0, false, uint32(s), 1)
	}, "type [3] DECL_TAG 'tag': component_idx 1 beyond the 1 members/params of [2]"},
	{"decl tag component on a var", func(b *tb) {
		i := b.int32()
		v := b.add("v", KindVar, 0, false, uint32(i), 0)
		b.add("tag", KindDeclTag, 0, false, uint32(v), 0)
	}, "component_idx 0 on a VAR (must be -1)"},
	{"decl tag on an int", func(b *tb) {
		i := b.int32()
		b.add("tag", KindDeclTag, 0, false, uint32(i), 0xffffffff)
	}, "type_id 1 (INT) cannot carry a DECL_TAG"},
	{"decl tag component below -1", func(b *tb) {
		i := b.int32()
		b.add("tag", KindDeclTag, 0, false, uint32(i), 0xfffffffe)
	}, "invalid component_idx -2"},
	{"type tag after const", func(b *tb) {
		i := b.int32()
		tt := b.add("user", KindTypeTag, 0, false, uint32(i))
		c := b.add("", KindConst, 0, false, uint32(tt))
		b.add("", KindPtr, 0, false, uint32(c))
	}, "type [3] CONST '(anon)': TYPE_TAG [2] after a non-tag modifier: type tags must precede modifiers"},
	{"array index not an int", func(b *tb) {
		i := b.int32()
		s := b.add("s", KindStruct, 0, false, 0)
		b.add("", KindArray, 0, false, 0, uint32(i), uint32(s), 4)
	}, "type [3] ARRAY '(anon)': invalid index type_id 2 (STRUCT): not a regular int"},
	{"array size overflow", func(b *tb) {
		i := b.int32()
		b.add("", KindArray, 0, false, 0, uint32(i), uint32(i), 1<<31)
	}, "array size 2147483648 * 4 overflows u32"},
}

func TestValidateRules(t *testing.T) {
	for _, tc := range rejectCases {
		t.Run(tc.name, func(t *testing.T) {
			b := newTB()
			tc.build(b)
			err := b.s.Validate()
			if err == nil {
				t.Fatalf("accepted:\n%s", dumpString(t, b.s))
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\nwant   %q", err, tc.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %T does not unwrap to *FormatError and ErrInvalid", err)
			}
			// The same BTF read back from bytes fails the same way.
			s2, perr := Parse(b.s.Marshal(), nil)
			if perr != nil {
				return // the reader already refuses it
			}
			if err2 := s2.Validate(); err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("after a round trip: %v", err2)
			}
		})
	}
}

// TestValidateAccepts lists what the kernel accepts and a too-strict
// checker might not.
var acceptCases = []struct {
	name  string
	build func(b *tb)
}{
	{"struct reaching itself through a pointer", func(b *tb) {
		p := b.add("", KindPtr, 0, false, 2)
		b.add("list", KindStruct, 1, false, 8, b.str("next"), uint32(p), 0)
	}},
	{"pointer to const pointer to struct holding the first pointer", func(b *tb) {
		p := b.add("", KindPtr, 0, false, 2)
		c := b.add("", KindConst, 0, false, 3)
		b.add("", KindPtr, 0, false, 4)
		b.add("s", KindStruct, 2, false, 16, b.str("a"), uint32(p), 0, b.str("b"), uint32(c), 64)
	}},
	{"identifiers with dots (gcc clones)", func(b *tb) {
		p := b.add("", KindFuncProto, 0, false, 0)
		b.add("do_thing.isra.0", KindFunc, 0, false, uint32(p))
	}},
	{"datasec names with dots", func(b *tb) {
		i := b.int32()
		v := b.add("v", KindVar, 0, false, uint32(i), 0)
		b.add(".data..percpu", KindDatasec, 1, false, 8, uint32(v), 4, 4)
	}},
	{"flexible array member at the end", func(b *tb) {
		i := b.int32()
		a := b.add("", KindArray, 0, false, 0, uint32(i), uint32(i), 0)
		b.add("s", KindStruct, 2, false, 4, b.str("n"), uint32(i), 0, b.str("data"), uint32(a), 32)
	}},
	{"const void and pointer to fwd", func(b *tb) {
		c := b.add("", KindConst, 0, false, 0)
		b.add("", KindPtr, 0, false, uint32(c))
		f := b.add("later", KindFwd, 0, true, 0)
		b.add("", KindPtr, 0, false, uint32(f))
	}},
	{"type tags before const", func(b *tb) {
		i := b.int32()
		c := b.add("", KindConst, 0, false, uint32(i))
		tt := b.add("percpu", KindTypeTag, 0, false, uint32(c))
		b.add("", KindPtr, 0, false, uint32(tt))
	}},
}

func TestValidateAccepts(t *testing.T) {
	for _, tc := range acceptCases {
		t.Run(tc.name, func(t *testing.T) {
			b := newTB()
			tc.build(b)
			if err := b.s.Validate(); err != nil {
				t.Fatalf("%v\n%s", err, dumpString(t, b.s))
			}
		})
	}
}

func TestValidateHeaderAndSplit(t *testing.T) {
	raw := allKinds().Marshal()
	mut := func(f func(b []byte)) error {
		b := append([]byte{}, raw...)
		f(b)
		s, err := Parse(b, nil)
		if err != nil {
			return err
		}
		return s.Validate()
	}
	if err := mut(func(b []byte) { b[3] = 1 }); err == nil || !strings.Contains(err.Error(), "unsupported flags") {
		t.Errorf("flags: %v", err)
	}
	// Move the string section 4 bytes on: a gap the kernel rejects.
	if err := mut(func(b []byte) {
		off := binary.LittleEndian.Uint32(b[16:])
		binary.LittleEndian.PutUint32(b[16:], off+4)
		binary.LittleEndian.PutUint32(b[20:], binary.LittleEndian.Uint32(b[20:])-4)
	}); err == nil {
		t.Error("gap between sections accepted")
	}
	// Unknown kinds stop the reader itself.
	if err := mut(func(b []byte) { b[HeaderLen+7] = 25 }); err == nil || !strings.Contains(err.Error(), "unknown kind 25") {
		t.Errorf("kind 25: %v", err)
	}

	base := allKinds()
	split := NewSplitSpec(base)
	split.Add(Type{NameOff: split.Strings().Add("node_ptr"), Info: MakeInfo(KindTypedef, 0, false), SizeOrType: 5})
	if err := split.Validate(); err != nil {
		t.Fatalf("split: %v", err)
	}
	split.Add(Type{NameOff: split.Strings().Add("dangling"), Info: MakeInfo(KindTypedef, 0, false), SizeOrType: uint32(split.NextID()) + 5})
	err := split.Validate()
	if err == nil || !strings.Contains(err.Error(), "type [37] TYPEDEF 'dangling': invalid type_id 42") {
		t.Errorf("split: %v", err)
	}
	bad := allKinds()
	bad.Add(Type{Info: MakeInfo(KindPtr, 0, false), SizeOrType: 1000})
	if err := NewSplitSpec(bad).Validate(); err == nil || !strings.HasPrefix(err.Error(), "base: ") {
		t.Errorf("bad base: %v", err)
	}
}

// A type-level error also names the byte offset of the type's record, in
// the BTF as read (here: a header with the string section first).
func TestValidateErrorOffset(t *testing.T) {
	s := NewSpec()
	s.Add(Type{NameOff: s.Strings().Add("int"), Info: MakeInfo(KindInt, 0, false), SizeOrType: 4}, MakeIntInfo(IntSigned, 0, 32))
	s.Add(Type{NameOff: 1000, Info: MakeInfo(KindInt, 0, false), SizeOrType: 4}, MakeIntInfo(IntSigned, 0, 32))
	s.Strings().Add("ab") // 8 bytes of strings: the type section after them stays aligned
	err := s.Validate()
	var fe *FormatError
	if !errors.As(err, &fe) || fe.ID != 2 || fe.Off != HeaderLen+16 {
		t.Fatalf("got %v (%#v)", err, fe)
	}
	if want := "BTF+0x28: type [2] INT '(anon)': name offset 1000 beyond string section"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %q, want prefix %q", err, want)
	}
	// Strings first, types after them: the offset follows the header.
	// The 7.2 kernel takes that order only with the 32-byte header; with
	// the 24-byte one the string section must end the data.
	raw := s.Marshal()
	strs := s.Strings().Bytes()
	types := raw[HeaderLen : len(raw)-len(strs)]
	for _, hdrLen := range []int{HeaderLen, HeaderLenLayout} {
		moved := append(append(append(append([]byte{}, raw[:HeaderLen]...), make([]byte, hdrLen-HeaderLen)...), strs...), types...)
		binary.LittleEndian.PutUint32(moved[4:], uint32(hdrLen))
		binary.LittleEndian.PutUint32(moved[8:], uint32(len(strs)))
		binary.LittleEndian.PutUint32(moved[16:], 0)
		p, err := Parse(moved, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Validate()
		if hdrLen == HeaderLen {
			if err == nil || !strings.Contains(err.Error(), "not at the end of the data") {
				t.Errorf("strings first, 24-byte header: got %v", err)
			}
			continue
		}
		if !errors.As(err, &fe) || fe.Off != int64(hdrLen+len(strs)+16) {
			t.Errorf("strings first, 32-byte header: got %v", err)
		}
	}
}

// Names with control or non-ASCII bytes are escaped in errors, which stay
// one line.
func TestValidateErrorEscapesNames(t *testing.T) {
	s := NewSpec()
	s.Add(Type{NameOff: s.Strings().Add("bad\nname\x89"), Info: MakeInfo(KindStruct, 0, false), SizeOrType: 0})
	err := s.Validate()
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `'bad\nname\x89'`) {
		t.Errorf("got %q", err)
	}
}

// TestValidateTrustBase: validating split BTF with TrustBase (the base
// checked before) reports what a full validation reports, for split types
// of every shape over every base type.
func TestValidateTrustBase(t *testing.T) {
	base := allKinds()
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
	shapes := []func(s *Spec, b uint32){
		func(s *Spec, b uint32) {
			s.Add(Type{NameOff: s.Strings().Add("t"), Info: MakeInfo(KindTypedef, 0, false), SizeOrType: b})
		},
		func(s *Spec, b uint32) { s.Add(Type{Info: MakeInfo(KindPtr, 0, false), SizeOrType: b}) },
		func(s *Spec, b uint32) { s.Add(Type{Info: MakeInfo(KindConst, 0, false), SizeOrType: b}) },
		func(s *Spec, b uint32) { s.Add(Type{Info: MakeInfo(KindArray, 0, false)}, b, 1, 4) },
		func(s *Spec, b uint32) {
			s.Add(Type{NameOff: s.Strings().Add("s"), Info: MakeInfo(KindStruct, 1, false), SizeOrType: 8}, uint32(s.Strings().Add("m")), b, 0)
		},
		func(s *Spec, b uint32) {
			s.Add(Type{NameOff: s.Strings().Add("s"), Info: MakeInfo(KindStruct, 1, false), SizeOrType: 1}, uint32(s.Strings().Add("m")), b, 0)
		},
		func(s *Spec, b uint32) {
			s.Add(Type{NameOff: s.Strings().Add("v"), Info: MakeInfo(KindVar, 0, false), SizeOrType: b}, 0)
		},
		func(s *Spec, b uint32) { s.Add(Type{Info: MakeInfo(KindFuncProto, 1, false), SizeOrType: b}, 0, b) },
	}
	errs := 0
	for b := uint32(1); b < uint32(base.NextID()); b++ {
		for i, shape := range shapes {
			split := NewSplitSpec(base)
			shape(split, b)
			full := fmt.Sprint(split.Validate())
			trusted := fmt.Sprint(split.ValidateWith(ValidateOptions{TrustBase: true}))
			if full != trusted {
				t.Errorf("base type [%d] %s, shape %d: full %q, trusting the base %q", b, base.Kind(TypeID(b)), i, full, trusted)
			}
			if full != "<nil>" {
				errs++
			}
		}
	}
	if errs == 0 {
		t.Error("no shape was invalid: the test compares nothing but successes")
	}
}

// TestValidateTrustBaseChecksWhatItReaches: with TrustBase the base is
// not validated as a whole, but the base types the split's types reach
// (directly, or through what resolving them walks) pass the kernel's
// per-type checks: a broken base type is reported, as a base error, only
// when the split reaches it.
func TestValidateTrustBaseChecksWhatItReaches(t *testing.T) {
	base := allKinds()
	str := base.Strings().Add
	badInt := base.Add(Type{NameOff: str("wide"), Info: MakeInfo(KindInt, 0, false), SizeOrType: 1}, MakeIntInfo(0, 0, 32))
	badStruct := base.Add(Type{NameOff: str("tight"), Info: MakeInfo(KindStruct, 1, false), SizeOrType: 1}, uint32(str("m")), 1, 64)
	byValue := base.Add(Type{NameOff: str("outer"), Info: MakeInfo(KindStruct, 1, false), SizeOrType: 8}, uint32(str("in")), uint32(badStruct), 0)
	typedef := base.Add(Type{NameOff: str("outer_t"), Info: MakeInfo(KindTypedef, 0, false), SizeOrType: uint32(byValue)})
	if err := base.CheckStructure(); err != nil {
		t.Fatal(err)
	}
	if base.Validate() == nil {
		t.Fatal("the base must break the kernel's rules")
	}
	for _, c := range []struct {
		name string
		ref  TypeID
		want string // "" for no error
	}{
		{"a sound base type", 7, ""},
		{"a broken INT, directly", badInt, "base: BTF+"},
		{"a broken STRUCT, directly", badStruct, "type [" + fmt.Sprint(badStruct) + "] STRUCT 'tight': member 'm' offset 64 beyond size 1"},
		{"a broken STRUCT, through a typedef and a member", typedef, "STRUCT 'tight': member 'm' offset 64 beyond size 1"},
	} {
		split := NewSplitSpec(base)
		split.Add(Type{Info: MakeInfo(KindPtr, 0, false), SizeOrType: uint32(c.ref)})
		err := split.ValidateWith(ValidateOptions{TrustBase: true})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), "base: ") || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want a base error containing %q", c.name, err, c.want)
		}
	}
}
