package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// builder adds types to a Spec by name.
type builder struct{ s *btf.Spec }

func (b builder) str(name string) uint32 { return uint32(b.s.Strings().Add(name)) }

func (b builder) add(name string, k btf.Kind, vlen uint32, sizeOrType uint32, extra ...uint32) uint32 {
	var off btf.StrOff
	if name != "" {
		off = b.s.Strings().Add(name)
	}
	return uint32(b.s.Add(btf.Type{NameOff: off, Info: btf.MakeInfo(k, vlen, false), SizeOrType: sizeOrType}, extra...))
}

func (b builder) int32() uint32 {
	return b.add("int", btf.KindInt, 0, 4, btf.MakeIntInfo(btf.IntSigned, 0, 32))
}

// baseIDs are where a base put the types a module refers to.
type baseIDs struct{ intID, listHead, listPtr, atomic uint32 }

// paholeBase: [1] int, [2] list_head {next, prev: [3]}, [3] PTR -> 2,
// [4] anonymous struct {counter: int}, [5] TYPEDEF atomic_t -> 4.
func paholeBase() (*btf.Spec, baseIDs) {
	b := builder{btf.NewSpec()}
	i := b.int32()
	lh := b.add("list_head", btf.KindStruct, 2, 16, b.str("next"), 3, 0, b.str("prev"), 3, 64)
	p := b.add("", btf.KindPtr, 0, lh)
	anon := b.add("", btf.KindStruct, 1, 4, b.str("counter"), i, 0)
	at := b.add("atomic_t", btf.KindTypedef, 0, anon)
	return b.s, baseIDs{i, lh, p, at}
}

// otherBase is the same graph in another order, as another encoder may
// emit it: [1] anonymous struct {counter: [5]}, [2] atomic_t -> 1,
// [3] PTR -> 4, [4] list_head {next, prev: [3]}, [5] int.
func otherBase() (*btf.Spec, baseIDs) {
	b := builder{btf.NewSpec()}
	anon := b.add("", btf.KindStruct, 1, 4, b.str("counter"), 5, 0)
	at := b.add("atomic_t", btf.KindTypedef, 0, anon)
	p := b.add("", btf.KindPtr, 0, 4)
	lh := b.add("list_head", btf.KindStruct, 2, 16, b.str("next"), p, 0, b.str("prev"), p, 64)
	i := b.int32()
	return b.s, baseIDs{i, lh, p, at}
}

// module builds split BTF over base: STRUCT 'm' {a: PTR -> list_head, b:
// atomic_t, or int when wrongB}; withCopy adds a copy of the base's int
// first (pahole 1.32 leaves such copies).
func module(base *btf.Spec, ids baseIDs, wrongB, withCopy bool) *btf.Spec {
	b := builder{btf.NewSplitSpec(base)}
	if withCopy {
		b.int32()
	}
	second := ids.atomic
	if wrongB {
		second = ids.intID
	}
	b.add("m", btf.KindStruct, 2, 16, b.str("a"), ids.listPtr, 0, b.str("b"), second, 64)
	return b.s
}

func write(t *testing.T, dir, name string, s *btf.Spec) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, s.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEqualModule(t *testing.T) {
	dir := t.TempDir()
	pb, pids := paholeBase()
	ob, oids := otherBase()
	pbPath, obPath := write(t, dir, "pahole-vmlinux.btf", pb), write(t, dir, "other-vmlinux.btf", ob)
	ref, err := loadSpec(pbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := loadSpec(obPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &comparer{ref: ref, bases: map[string]*btf.Spec{"same": ref, "other": other}}
	paholeMod := write(t, dir, "pahole.btf", module(pb, pids, false, true))
	for _, tc := range []struct {
		name, tool string
		mod        *btf.Spec
		equal      bool
	}{
		{"same base, no copy", "same", module(pb, pids, false, false), true},
		{"same base, member type differs", "same", module(pb, pids, true, false), false},
		{"other base, same graph", "other", module(ob, oids, false, false), true},
		{"other base, with a copy of int", "other", module(ob, oids, false, true), true},
		{"other base, member type differs", "other", module(ob, oids, true, false), false},
	} {
		ours := write(t, dir, "ours.btf", tc.mod)
		eq, status, err := c.equalModule(paholeMod, tc.tool, ours)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if eq != tc.equal || eq != (status == "equal") || !eq && !strings.HasPrefix(status, "differ: ") {
			t.Errorf("%s: equal %v, %q; want equal %v", tc.name, eq, status, tc.equal)
		}
	}
	// The vmlinux check: the two bases are one graph; a base missing a type is not.
	if eq, status, err := equalFiles(pbPath, obPath); err != nil || !eq {
		t.Errorf("equalFiles(bases) = %v, %q, %v; want equal", eq, status, err)
	}
	short := builder{btf.NewSpec()}
	short.int32()
	if eq, _, err := equalFiles(pbPath, write(t, dir, "short.btf", short.s)); err != nil || eq {
		t.Errorf("equalFiles(base, int only) = %v, %v; want not equal", eq, err)
	}
	if c.spent <= 0 {
		t.Error("comparer.spent not counted")
	}
}
