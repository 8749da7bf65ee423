package btf

import (
	"strings"
	"testing"
)

// TestRelocate: each distillation case relocated back onto the full base
// refers to the full base's types where the distilled base stood for them
// (same kind and name), and the worked example comes back as the split
// over the full base it was.
func TestRelocate(t *testing.T) {
	for i, tc := range distillCases {
		t.Run(tc.name, func(t *testing.T) {
			base, nb, ns := distilledCase(t, i)
			rel, err := Relocate(ns, base)
			if err != nil {
				t.Fatal(err)
			}
			if rel.Base() != base || rel.FirstID() != base.NextID() || rel.Len() != ns.Len() {
				t.Fatalf("relocated: %d types from %d over %d", rel.Len(), rel.FirstID(), base.Len())
			}
			for id := ns.FirstID(); id < ns.NextID(); id++ {
				rid := rel.FirstID() + (id - ns.FirstID())
				var from, to []uint32
				ns.ForEachRef(id, func(r *uint32) { from = append(from, *r) })
				rel.ForEachRef(rid, func(r *uint32) { to = append(to, *r) })
				for i := range from {
					f, g := TypeID(from[i]), TypeID(to[i])
					switch {
					case f == 0:
						if g != 0 {
							t.Errorf("[%d] ref %d: void became %d", rid, i, g)
						}
					case f < nb.NextID():
						if g >= base.NextID() || base.Name(g) != nb.Name(f) {
							t.Errorf("[%d] ref %d: distilled [%d] '%s' became [%d] '%s'", rid, i, f, nb.Name(f), g, base.Name(g))
						}
					default:
						if g != rel.FirstID()+(f-ns.FirstID()) {
							t.Errorf("[%d] ref %d: split [%d] became [%d]", rid, i, f, g)
						}
					}
				}
				if rel.Name(rid) != ns.Name(id) {
					t.Errorf("[%d] name '%s', want '%s'", rid, rel.Name(rid), ns.Name(id))
				}
			}
		})
	}
	// The worked example: m's pointer is to the full base's list_head [3].
	base, _, ns := distilledCase(t, 0)
	rel, err := Relocate(ns, base)
	if err != nil {
		t.Fatal(err)
	}
	want := `[17] STRUCT 'm' size=16 vlen=2
	'a' type_id=18 bits_offset=0
	'b' type_id=20 bits_offset=64
[18] PTR '(anon)' type_id=3
[19] STRUCT '(anon)' size=4 vlen=1
	'counter' type_id=1 bits_offset=0
[20] TYPEDEF 'atomic_t' type_id=19
`
	if got := dumpString(t, rel); got != want {
		t.Errorf("worked example relocated:\n%s\nwant:\n%s", got, want)
	}
}

// TestRelocateErrors: a distilled base type the full base does not have
// (here list_head of another size) is an error naming it; so is BTF that
// is not split.
func TestRelocateErrors(t *testing.T) {
	base, nb, ns := distilledCase(t, 0)
	other := distillBase()
	other.s.SetType(3, Type{NameOff: other.s.Type(3).NameOff, Info: other.s.Type(3).Info, SizeOrType: 32})
	if _, err := Relocate(ns, other.s); err == nil || !strings.Contains(err.Error(), "'list_head' size 16 has no counterpart") {
		t.Errorf("relocating onto a base with another list_head: %v", err)
	}
	if _, err := Relocate(nb, base); err == nil {
		t.Error("relocating base BTF: no error")
	}
}

// distilledCase builds distillCases[i] over distillBase and distills it:
// the full base, the distilled base and the split over it.
func distilledCase(t *testing.T, i int) (base, nb, ns *Spec) {
	t.Helper()
	base = distillBase().s
	sb := splitOf(base)
	distillCases[i].build(sb)
	nb, ns, err := Distill(sb.s)
	if err != nil {
		t.Fatal(err)
	}
	return base, nb, ns
}
