package btf

import "testing"

// TestDistillKernel distills a real module's split BTF (Debian's xfs.ko
// over its vmlinux) and checks what the kernel's relocation relies on:
// the distilled base holds only named INT, FLOAT, ENUM, STRUCT, UNION and
// FWD types, each of which has a type of that name and a matching kind and
// size in the full base; and the new split is valid BTF over it.
func TestDistillKernel(t *testing.T) {
	vmlinux := kernelVmlinux(t)
	xfs := kernelModule(t, vmlinux, "fs/xfs/xfs.ko")
	base, err := Parse(elfBTF(t, vmlinux), nil)
	if err != nil {
		t.Fatal(err)
	}
	split, err := Parse(elfBTF(t, xfs), base)
	if err != nil {
		t.Fatal(err)
	}
	nb, ns, err := Distill(split)
	if err != nil {
		t.Fatal(err)
	}
	if ns.Len() < split.Len() || nb.Len() == 0 {
		t.Fatalf("distilled base %d types, split %d (was %d)", nb.Len(), ns.Len(), split.Len())
	}
	byName := map[string][]TypeID{}
	for id := TypeID(1); id < base.NextID(); id++ {
		if n := base.Name(id); n != "" {
			byName[n] = append(byName[n], id)
		}
	}
	for id := TypeID(1); id < nb.NextID(); id++ {
		d := nb.Type(id)
		name := nb.Name(id)
		found := false
		for _, c := range byName[name] {
			b := base.Type(c)
			switch d.Kind() {
			case KindInt, KindFloat:
				found = found || (b.Kind() == d.Kind() && b.Size() == d.Size())
			case KindEnum:
				found = found || ((b.Kind() == KindEnum || b.Kind() == KindEnum64) && b.Size() == d.Size())
			case KindStruct, KindUnion:
				found = found || (b.Kind() == d.Kind() && b.Size() == d.Size())
			case KindFwd:
				found = found || b.Kind() == KindFwd || b.Kind() == KindStruct || b.Kind() == KindUnion
			default:
				t.Fatalf("distilled base [%d] has kind %s", id, d.Kind())
			}
		}
		if name == "" || !found {
			t.Errorf("distilled base [%d] %s '%s' size %d has no counterpart in vmlinux", id, d.Kind(), name, d.Size())
		}
	}
	if err := ns.Validate(); err != nil {
		t.Errorf("split over the distilled base: %v", err)
	}
	t.Logf("xfs.ko: %d split types over %d vmlinux types -> distilled base %d types (%d string bytes), split %d types",
		split.Len(), base.Len(), nb.Len(), nb.Strings().Len(), ns.Len())
}
