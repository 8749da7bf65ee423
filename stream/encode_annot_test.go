package stream

import (
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestEncodeAnnotationCycle encodes DW_AT_GNU_annotation chains that loop
// (testdata/encode/annot_cycle.s: a pointer's type tags a -> b -> a, a
// struct's decl tags da -> db -> da). pahole 1.32 never returns on it; the
// encoder must stop (a chain is at most as long as the unit has DIEs) and
// still write the pointer's tags in chain order and the struct's decl tags.
func TestEncodeAnnotationCycle(t *testing.T) {
	obj := filepath.Join("testdata", "encode", "golden", "amd64", "annot_cycle.o")
	opts := DefaultEncodeOptions()
	opts.MemLimit = -1
	s, _, err := EncodeFile(obj, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	var ptr btf.TypeID
	decl := map[string]bool{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		switch s.Kind(id) {
		case btf.KindPtr:
			ptr = id
		case btf.KindDeclTag:
			decl[s.Name(id)] = true
		}
	}
	if ptr == 0 {
		t.Fatal("no PTR")
	}
	// PTR -> a -> b -> a -> ... -> int: alternating, ending at the INT.
	var chain []string
	for id := btf.TypeID(s.Type(ptr).SizeOrType); s.Kind(id) == btf.KindTypeTag; id = btf.TypeID(s.Type(id).SizeOrType) {
		chain = append(chain, s.Name(id))
		if len(chain) > 64 {
			t.Fatalf("TYPE_TAG chain longer than the unit: %v", chain)
		}
	}
	if len(chain) < 2 {
		t.Fatalf("TYPE_TAG chain %v, want a, b, ...", chain)
	}
	for i, n := range chain {
		if want := []string{"a", "b"}[i%2]; n != want {
			t.Fatalf("TYPE_TAG chain %v: [%d] is %q, want %q", chain, i, n, want)
		}
	}
	if !decl["da"] || !decl["db"] || len(decl) != 2 {
		t.Errorf("DECL_TAGs %v, want da and db", decl)
	}
}
