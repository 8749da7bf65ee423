package stream

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

// Tests on DWARF written by hand (testdata/encode/*.s) that pahole cannot
// serve as the oracle for.

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

// TestEncodeForeignRef encodes a unit whose pointer refers to a DIE of
// another unit (testdata/encode/foreign_ref.s, DW_FORM_ref_addr): the
// encoder does not read across units, so it must fail with ErrUnsupported
// at that DIE instead of writing a pointer to void.
func TestEncodeForeignRef(t *testing.T) {
	obj := filepath.Join("testdata", "encode", "golden", "amd64", "foreign_ref.o")
	opts := DefaultEncodeOptions()
	opts.MemLimit = -1
	_, _, err := EncodeFile(obj, opts)
	var e *elffile.Error
	if !errors.Is(err, elffile.ErrUnsupported) || !errors.As(err, &e) || e.Section != ".debug_info" ||
		!strings.Contains(err.Error(), "refers out of the unit") {
		t.Fatalf("got %v, want ErrUnsupported at the DIE: refers out of the unit", err)
	}
	if e.Offset != 0x40 { // the pointer to one.c's long int (the one to two.c's int is fine)
		t.Errorf("error at 0x%x, want 0x40", e.Offset)
	}
}
