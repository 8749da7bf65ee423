package btf

import (
	"fmt"
	"testing"
	"unsafe"
)

func TestHotStructSizes(t *testing.T) {
	// Sizes are promised in the comments; they must not depend on GOARCH.
	if got := unsafe.Sizeof(Type{}); got != 12 {
		t.Errorf("sizeof(Type) = %d, want 12", got)
	}
	if got := unsafe.Sizeof(Member{}); got != 12 {
		t.Errorf("sizeof(Member) = %d, want 12", got)
	}
}

func TestInfoRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		k    Kind
		vlen uint32
		flag bool
	}{
		{KindInt, 0, false}, {KindStruct, 3, true}, {KindEnum64, MaxVlen, true},
		{KindFuncProto, 65536, false}, // needs the 24-bit vlen
		{Kind(100), 1, false},         // 7-bit kind field
	} {
		ty := Type{Info: MakeInfo(tc.k, tc.vlen, tc.flag)}
		if ty.Kind() != tc.k || ty.Vlen() != tc.vlen || ty.KindFlag() != tc.flag {
			t.Errorf("MakeInfo(%v,%d,%v) decodes as (%v,%d,%v)", tc.k, tc.vlen, tc.flag, ty.Kind(), ty.Vlen(), ty.KindFlag())
		}
	}
}

func TestStringsIntern(t *testing.T) {
	s := NewStrings(nil)
	a := s.Add("foo")
	b := s.Add("bar")
	if a == b || s.Add("foo") != a || s.Add("") != 0 {
		t.Fatalf("interning broken: foo=%d bar=%d again=%d", a, b, s.Add("foo"))
	}
	for i := 0; i < 1000; i++ { // force growth of the slot table
		s.Add(string(rune('a'+i%26)) + string(rune('A'+i/26)))
	}
	if s.Add("bar") != b || s.Name(b) != "bar" {
		t.Fatal("lookup after growth broken")
	}
	split := NewStrings(s)
	if split.Add("foo") != a {
		t.Error("split table re-added a base string")
	}
	c := split.Add("baz")
	if uint32(c) < s.Len() || split.Name(c) != "baz" {
		t.Errorf("split string at %d (base len %d)", c, s.Len())
	}
	// Existing sections are indexed lazily, first occurrence wins.
	raw := StringsFromBytes([]byte("\x00x\x00y\x00x\x00"), nil)
	if off, ok := raw.Find([]byte("x")); !ok || off != 1 {
		t.Errorf("Find(x) = %d,%v want 1,true", off, ok)
	}
	if raw.Add("y") != 3 {
		t.Error("Add(y) did not find the existing string")
	}
	// GrowIndex sizes the lookup set once for what follows.
	g := NewStrings(nil)
	g.GrowIndex(1000)
	slots := len(g.slots)
	for i := 0; i < 1000; i++ {
		g.Add(fmt.Sprint("s", i))
	}
	if len(g.slots) != slots || g.Add("s7") != g.Add("s7") || g.Name(g.Add("s999")) != "s999" {
		t.Errorf("GrowIndex(1000): %d slots, then %d after 1000 strings", slots, len(g.slots))
	}
	// Without its index a table still finds every string, first
	// occurrence first, and appends new ones after them.
	raw.Add("z")
	raw.DropIndex()
	if raw.slots != nil {
		t.Error("DropIndex kept the lookup set")
	}
	if raw.Add("x") != 1 || raw.Add("y") != 3 || raw.Add("z") != 7 || raw.Add("w") != 9 || raw.Name(9) != "w" {
		t.Errorf("after DropIndex: x=%d y=%d z=%d w=%d", raw.Add("x"), raw.Add("y"), raw.Add("z"), raw.Add("w"))
	}
}

func TestBuildMarshalParse(t *testing.T) {
	s := NewSpec()
	intID := s.Add(Type{NameOff: s.Strings().Add("int"), Info: MakeInfo(KindInt, 0, false), SizeOrType: 4}, MakeIntInfo(IntSigned, 0, 32))
	ptr := s.Add(Type{Info: MakeInfo(KindPtr, 0, false)})
	st := s.Add(Type{NameOff: s.Strings().Add("node"), Info: MakeInfo(KindStruct, 2, false), SizeOrType: 16},
		uint32(s.Strings().Add("val")), uint32(intID), 0,
		uint32(s.Strings().Add("next")), uint32(ptr), 64)
	s.SetType(ptr, Type{Info: MakeInfo(KindPtr, 0, false), SizeOrType: uint32(st)})
	raw := s.Marshal()
	if len(raw) < HeaderLen || raw[4] != HeaderLen {
		t.Fatalf("new BTF must use the 24-byte header, got hdr_len %d", raw[4])
	}
	got, err := Parse(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != 3 || got.Name(st) != "node" || got.Member(st, 1).Type != ptr || got.Type(ptr).Ref() != st {
		t.Fatalf("parse(marshal) lost data: len=%d name=%q", got.Len(), got.Name(st))
	}
	if string(got.Marshal()) != string(raw) {
		t.Error("second marshal differs")
	}
	var refs []uint32
	got.ForEachRef(st, func(r *uint32) { refs = append(refs, *r) })
	if len(refs) != 2 || refs[0] != uint32(intID) || refs[1] != uint32(ptr) {
		t.Errorf("ForEachRef(struct) = %v", refs)
	}
}
