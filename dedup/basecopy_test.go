package dedup

import (
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestBaseCopies: a module reference over a base FWD that a module struct
// made stand for its definition (libbpf's hypot_adjust_canon) stays a
// module type, reaching that definition, whichever unit comes first; as
// libbpf, which deduplicates every struct of the module before any
// reference type. Base structs over the FWD still take module structs.
func TestBaseCopies(t *testing.T) {
	// base: struct s1 { struct s2 *p; } with s2 only declared; typedef
	// t2 = const struct s2 *; struct w { struct s2 *f; }.
	bb := newBuilder(btf.NewSpec(), nil)
	bb.Int("int", "int", 4)
	bb.Fwd("fwd", "s2", false)
	bb.Ptr("pfwd", "fwd")
	bb.Struct("s1", "s1", 8, "p:pfwd@0")
	bb.Const("cp", "pfwd")
	bb.Typedef("t2", "t2", "cp")
	bb.Struct("w", "w", 8, "f:pfwd@0")
	bb.Ptr("pw", "w")
	base := bb.done()
	bid := func(name string) btf.TypeID { return bb.labels[name] }

	// defines: the unit that defines s2 (its s1 is kept, the base FWD
	// stands for its s2). user: a unit that only declares s2 and uses it
	// in a module struct u { struct s2 *q; t2 r; struct w *v; }.
	defines := func(b *builder) {
		b.Int("int", "int", 4)
		b.Struct("s2", "s2", 4, "x:int@0")
		b.Ptr("ps2", "s2")
		b.Struct("s1", "s1", 8, "p:ps2@0")
	}
	user := func(b *builder) {
		b.Fwd("fwd", "s2", false)
		b.Ptr("pfwd", "fwd")
		b.Const("cp", "pfwd")
		b.Typedef("t2", "t2", "cp")
		b.Struct("w", "w", 8, "f:pfwd@0")
		b.Ptr("pw", "w")
		b.Struct("u", "u", 24, "q:pfwd@0", "r:t2@64", "v:pw@128")
	}
	for _, tc := range []struct {
		name  string
		units []func(*builder)
	}{
		{"the user first", []func(*builder){user, defines}},
		{"the definition first", []func(*builder){defines, user}},
		{"both in one unit", []func(*builder){func(b *builder) { user(b); defines(b) }}},
	} {
		d, err := NewIncremental(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range tc.units {
			b := newBuilder(d.NewBatch(), nil)
			u(b)
			if _, err := d.AddBatch(b.done()); err != nil {
				t.Fatal(err)
			}
		}
		out, _, err := d.Finish()
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]btf.TypeID{}
		for id := out.FirstID(); id < out.NextID(); id++ {
			if n := out.Name(id); n != "" {
				byName[n] = id
			}
		}
		s2, u := byName["s2"], byName["u"]
		if s2 == 0 || u == 0 || byName["s1"] == 0 {
			t.Fatalf("%s: module lacks s2, s1 or u:\n%s", tc.name, dumpAll(out))
		}
		// u.q: a module PTR to the module's s2.
		q := out.Member(u, 0).Type
		if q < out.FirstID() || out.Kind(q) != btf.KindPtr || out.Type(q).SizeOrType != uint32(s2) {
			t.Errorf("%s: u.q is [%d], want a module PTR to s2 [%d]:\n%s", tc.name, q, s2, dumpAll(out))
		}
		// u.r: a module copy of typedef t2 -> CONST -> that PTR.
		r := out.Member(u, 1).Type
		if r < out.FirstID() || out.Kind(r) != btf.KindTypedef {
			t.Errorf("%s: u.r is [%d], want a module copy of typedef t2:\n%s", tc.name, r, dumpAll(out))
		} else if c := btf.TypeID(out.Type(r).SizeOrType); out.Kind(c) != btf.KindConst || btf.TypeID(out.Type(c).SizeOrType) != q {
			t.Errorf("%s: t2's copy does not reach u.q's PTR:\n%s", tc.name, dumpAll(out))
		}
		// u.v: the base's struct w, which the FWD stands for, folds.
		if v := out.Member(u, 2).Type; v != bid("pw") {
			t.Errorf("%s: u.v is [%d], want the base's PTR to w [%d]:\n%s", tc.name, v, bid("pw"), dumpAll(out))
		}
		// Nothing is in the module twice: one PTR to s2, one typedef t2.
		ptrs, typedefs := 0, 0
		for id := out.FirstID(); id < out.NextID(); id++ {
			switch {
			case out.Kind(id) == btf.KindPtr && out.Type(id).SizeOrType == uint32(s2):
				ptrs++
			case out.Kind(id) == btf.KindTypedef:
				typedefs++
			}
		}
		if ptrs != 1 || typedefs != 1 {
			t.Errorf("%s: %d PTRs to s2 and %d typedefs in the module, want 1 and 1:\n%s", tc.name, ptrs, typedefs, dumpAll(out))
		}
	}
}

// TestKeptCopiesFold: libbpf keeps the first module struct whose check
// reaches a base FWD opposite the module's definition (rcuwait in sctp.ko,
// before task_struct and net); once the FWD stands for that definition,
// everything under the kept struct folds onto the base, so it is a copy
// of the base's. Finish folds it: a module never holds a type identical
// to a base type.
func TestKeptCopiesFold(t *testing.T) {
	bb := newBuilder(btf.NewSpec(), nil)
	bb.Int("int", "int", 4)
	bb.Fwd("fmib", "mib", false)
	bb.Ptr("pmib", "fmib")
	bb.Struct("net", "net", 8, "m:pmib@0")
	bb.Ptr("pnet", "net")
	bb.Struct("task", "task", 8, "n:pnet@0")
	bb.Ptr("ptask", "task")
	bb.Struct("rcuwait", "rcuwait", 8, "t:ptask@0")
	base := bb.done()

	d, err := NewIncremental(base)
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder(d.NewBatch(), nil)
	b.Struct("rcuwait", "rcuwait", 8, "t:ptask@0")
	b.Ptr("ptask", "task")
	b.Struct("task", "task", 8, "n:pnet@0")
	b.Ptr("pnet", "net")
	b.Struct("net", "net", 8, "m:pmib@0")
	b.Ptr("pmib", "mib")
	b.Struct("mib", "mib", 4, "x:int@0")
	b.Int("int", "int", 4)
	if _, err := d.AddBatch(b.done()); err != nil {
		t.Fatal(err)
	}
	if len(d.kept) == 0 {
		t.Fatal("rcuwait was not kept apart: the test proves nothing")
	}
	out, _, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(out, btf.NewSplitSpec(base))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := c.BaseCopies(); n != 0 {
		t.Errorf("%d module types identical to base types:\n%s", n, dumpAll(out))
	}
	// What stays: mib and the pointer to it (the base has neither).
	if out.Len() != 2 {
		t.Errorf("module has %d types, want 2 (mib, its pointer):\n%s", out.Len(), dumpAll(out))
	}
}
