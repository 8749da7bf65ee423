package dedup

import (
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// addNode adds `struct NAME { int val; struct NAME *next; }` and returns the
// struct's id.
func addNode(s *btf.Spec, name string) btf.TypeID {
	str := s.Strings()
	intID := s.Add(btf.Type{NameOff: str.Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4},
		btf.MakeIntInfo(btf.IntSigned, 0, 32))
	ptr := s.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false)})
	node := s.Add(btf.Type{NameOff: str.Add(name), Info: btf.MakeInfo(btf.KindStruct, 2, false), SizeOrType: 16},
		uint32(str.Add("val")), uint32(intID), 0, uint32(str.Add("next")), uint32(ptr), 64)
	s.SetType(ptr, btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(node)})
	return node
}

func TestSplitOnto(t *testing.T) {
	base := btf.NewSpec()
	addNode(base, "list")
	baseBytes := string(base.Marshal())

	mod := btf.NewSpec() // a module encoded on its own: repeats "list", adds "item"
	addNode(mod, "list")
	addNode(mod, "item")

	out, err := SplitOnto(base, mod)
	if err != nil {
		t.Fatal(err)
	}
	if out.Base() != base || out.FirstID() != base.NextID() {
		t.Fatalf("not split over base: first id %d", out.FirstID())
	}
	// Only item's struct and pointer are new; int and list come from base.
	if out.Len() != 2 {
		t.Fatalf("split has %d types, want 2:\n%s", out.Len(), dumpAll(out))
	}
	for id := out.FirstID(); id < out.NextID(); id++ {
		if out.Kind(id) == btf.KindStruct {
			if m := out.Member(id, 0); m.Type >= base.NextID() {
				t.Errorf("item.val points at module type %d, not base int", m.Type)
			}
		}
	}
	if string(base.Marshal()) != baseBytes {
		t.Error("SplitOnto changed the base")
	}
	for id := out.FirstID(); id < out.NextID(); id++ {
		if out.Name(id) == "list" {
			t.Error("module kept its own copy of base struct list")
		}
	}
	if _, err := SplitOnto(base, out); err == nil {
		t.Error("SplitOnto accepted split input")
	}
}

func dumpAll(s *btf.Spec) string {
	var b string
	for id := s.FirstID(); id < s.NextID(); id++ {
		b += s.DumpType(id)
	}
	return b
}

// An input with no types (a valid BTF: header and an empty string) must
// dedup to an empty result, not an error (found by FuzzDedup).
func TestDedupEmpty(t *testing.T) {
	out, _, err := Dedup(btf.NewSpec())
	if err != nil || out.Len() != 0 {
		t.Fatalf("Dedup(empty) = %d types, %v", out.Len(), err)
	}
}
