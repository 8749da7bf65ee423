package merge

import (
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/encode"
)

func TestArenaProto(t *testing.T) {
	s := btf.NewSpec()
	intID := s.Add(btf.Type{NameOff: s.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4},
		btf.MakeIntInfo(btf.IntSigned, 0, 32))
	ptr := s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(intID)})
	params := []encode.FuncParam{{Type: ptr}, {Type: ptr}, {Type: intID}}

	// The arena attribute wraps a pointer's target: PTR -> TYPE_TAG(kflag) -> int.
	isArenaPtr := func(id btf.TypeID) bool {
		p := s.Type(id)
		if p.Kind() != btf.KindPtr || id == ptr {
			return false
		}
		tag := s.Type(p.Ref())
		return tag.Kind() == btf.KindTypeTag && tag.KindFlag() && s.Strings().Name(tag.NameOff) == arenaAttr && tag.Ref() == intID
	}

	for _, c := range []struct {
		flags           uint32
		ret, arg1, arg2 bool
	}{
		{0, false, false, false},
		{kfArenaRet, true, false, false},
		{kfArenaArg1 | kfArenaArg2, false, true, true},
		{kfArenaRet | kfArenaArg2 | kfFastcall, true, false, true},
	} {
		before := s.Len()
		ret, got, err := arenaProto(s, "f", c.flags, ptr, params)
		if err != nil {
			t.Fatalf("flags %#x: %v", c.flags, err)
		}
		if isArenaPtr(ret) != c.ret || isArenaPtr(got[0].Type) != c.arg1 || isArenaPtr(got[1].Type) != c.arg2 || got[2].Type != intID {
			t.Errorf("flags %#x: ret %d params %v", c.flags, ret, got)
		}
		n := 0
		for _, b := range []bool{c.ret, c.arg1, c.arg2} {
			if b {
				n += 2 // a TYPE_TAG and a PTR per tagged position
			}
		}
		if s.Len()-before != n {
			t.Errorf("flags %#x: added %d types, want %d", c.flags, s.Len()-before, n)
		}
		if params[0].Type != ptr || params[1].Type != ptr {
			t.Fatal("arenaProto changed the saved parameters")
		}
	}

	// pahole refuses a flagged position that is not a pointer, and so do we.
	if _, _, err := arenaProto(s, "bad", kfArenaRet, intID, params); err == nil || !strings.Contains(err.Error(), "not a pointer") {
		t.Errorf("non-pointer return: %v", err)
	}
	if _, _, err := arenaProto(s, "bad", kfArenaArg2, ptr, params[:1]); err == nil {
		t.Error("missing second parameter accepted")
	}
}
