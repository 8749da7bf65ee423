package encode

import (
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// keyedType is one type DIE of a unit: its key, and the batch it became.
type keyedType struct {
	unit int
	die  int
	b    *btf.Spec
	id   btf.TypeID
	name string
	decl bool
}

// encodeKeyed encodes every unit of an object and returns its type DIEs
// with their closure keys (fresh batches, so all stay readable).
func encodeKeyed(t *testing.T, path string) (keyed map[uint64][]keyedType, all []keyedType) {
	t.Helper()
	f, err := dwarfread.Open(path, dwarfread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ef := f.ELF()
	w := goldenWorker(t, f, func(shndx uint32) bool {
		return shndx < uint32(len(ef.Sections)) && VarIncluded(ef.Sections[shndx].Name, DefaultFeatures)
	})
	ur, err := f.NewUnitReader(dwarfread.UnitOptions{Jobs: 1, NoTypeUnits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ur.Close()
	var ck ClosureKeys
	keyed = map[uint64][]keyedType{}
	for unit := 0; ; unit++ {
		cu := nextDecoded(t, ur)
		if cu == nil {
			break
		}
		if Skip(cu) {
			cu.Release()
			continue
		}
		keys, decl := ck.Unit(cu)
		b, err := w.Encode(cu, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i, id := range w.DIETypes() {
			if id == 0 {
				continue
			}
			kt := keyedType{unit: unit, die: i, b: b.Types, id: id, name: cu.DIE(dwarfread.TagID(i)).Name(), decl: decl[i]}
			all = append(all, kt)
			if keys[i] != 0 {
				keyed[keys[i]] = append(keyed[keys[i]], kt)
			}
		}
		cu.Release()
	}
	return keyed, all
}

// sameClosure reports whether type x of a and type y of b reach
// isomorphic graphs: a bijection between the types they reach that keeps
// labels (names by content) and edges, position by position.
func sameClosure(a *btf.Spec, x btf.TypeID, b *btf.Spec, y btf.TypeID) bool {
	ab, ba := map[btf.TypeID]btf.TypeID{}, map[btf.TypeID]btf.TypeID{}
	var same func(x, y btf.TypeID) bool
	same = func(x, y btf.TypeID) bool {
		if x == 0 || y == 0 {
			return x == y
		}
		if m, ok := ab[x]; ok {
			return m == y
		}
		if m, ok := ba[y]; ok {
			return m == x
		}
		ab[x], ba[y] = y, x
		ta, tb := a.Type(x), b.Type(y)
		if ta.Info != tb.Info || a.Name(x) != b.Name(y) {
			return false
		}
		k := ta.Kind()
		if k.HasType() {
			if !same(ta.Ref(), tb.Ref()) {
				return false
			}
		} else if ta.SizeOrType != tb.SizeOrType {
			return false
		}
		wa, wb := a.Extra(x), b.Extra(y)
		if len(wa) != len(wb) {
			return false
		}
		refs, strs := wordRoles(k)
		for j := range wa {
			switch {
			case refs(j):
				if !same(btf.TypeID(wa[j]), btf.TypeID(wb[j])) {
					return false
				}
			case strs(j):
				sa, _ := a.Strings().Lookup(btf.StrOff(wa[j]))
				sb, _ := b.Strings().Lookup(btf.StrOff(wb[j]))
				if sa != sb {
					return false
				}
			case wa[j] != wb[j]:
				return false
			}
		}
		return true
	}
	return same(x, y)
}

// wordRoles says which extra words of a kind are type ids and which are
// string offsets (as btf.Spec.ForEachRef and ForEachStr visit them).
func wordRoles(k btf.Kind) (refs, strs func(int) bool) {
	no := func(int) bool { return false }
	switch k {
	case btf.KindArray:
		return func(j int) bool { return j < 2 }, no
	case btf.KindStruct, btf.KindUnion:
		return func(j int) bool { return j%3 == 1 }, func(j int) bool { return j%3 == 0 }
	case btf.KindEnum64:
		return no, func(j int) bool { return j%3 == 0 }
	case btf.KindEnum:
		return no, func(j int) bool { return j%2 == 0 }
	case btf.KindFuncProto:
		return func(j int) bool { return j%2 == 1 }, func(j int) bool { return j%2 == 0 }
	}
	return no, no
}

// TestClosureKeysImplyClosures: in every golden object of every target,
// type DIEs of equal key (in one unit or two) became isomorphic BTF
// closures, and keys see through what the encoder ignores (declaration
// lines) but not through a declaration opposite a definition.
func TestClosureKeysImplyClosures(t *testing.T) {
	objs, err := filepath.Glob("../testdata/encode/golden/*/*.o")
	if err != nil || len(objs) == 0 {
		t.Fatalf("no golden objects: %v", err)
	}
	pairs, crossUnit := 0, 0
	for _, obj := range objs {
		if filepath.Base(obj) == "foreign_ref.o" {
			continue // its unit fails to encode on purpose
		}
		keyed, all := encodeKeyed(t, obj)
		nkeyed := 0
		for _, group := range keyed {
			nkeyed += len(group)
			for _, o := range group[1:] {
				pairs++
				if o.unit != group[0].unit {
					crossUnit++
				}
				if o.decl != group[0].decl {
					t.Errorf("%s: %q (unit %d DIE %d) and %q (unit %d DIE %d): one key, decl %v and %v",
						obj, group[0].name, group[0].unit, group[0].die, o.name, o.unit, o.die, group[0].decl, o.decl)
				}
				if !sameClosure(group[0].b, group[0].id, o.b, o.id) {
					t.Errorf("%s: %q (unit %d DIE %d) and %q (unit %d DIE %d): one key, different BTF closures",
						obj, group[0].name, group[0].unit, group[0].die, o.name, o.unit, o.die)
				}
			}
		}
		// gnu_annot.o's types lead to GCC annotations, which are not
		// types: unkeyed on purpose.
		if nkeyed < len(all)/2 && filepath.Base(obj) != "gnu_annot.o" {
			t.Errorf("%s: only %d of %d type DIEs keyed", obj, nkeyed, len(all))
		}
	}
	if pairs == 0 || crossUnit == 0 {
		t.Errorf("no DIEs of equal keys (%d, %d across units): the test tests nothing", pairs, crossUnit)
	}
	t.Logf("%d objects, %d DIEs sharing a key with an earlier one (%d across units)", len(objs), pairs, crossUnit)
}

// TestClosureKeysMulti: in multi.o's two units, int is one key and
// reaches no declaration; struct shared reaches the declaration of
// opaque_a; struct opaque_b, declared in one unit and defined in the
// other, has two keys (both reach opaque_a's declaration).
func TestClosureKeysMulti(t *testing.T) {
	keyed, all := encodeKeyed(t, "../testdata/encode/golden/amd64/multi.o")
	keyOf := map[keyedType]uint64{}
	for k, g := range keyed {
		for _, kt := range g {
			keyOf[kt] = k
		}
	}
	units := map[int]int{} // unit numbers as 0, 1
	for _, kt := range all {
		if _, ok := units[kt.unit]; !ok {
			units[kt.unit] = len(units)
		}
	}
	find := func(name string, unit int) keyedType {
		t.Helper()
		for _, kt := range all {
			if kt.name == name && units[kt.unit] == unit {
				return kt
			}
		}
		t.Fatalf("no %q in unit %d", name, unit)
		return keyedType{}
	}
	ia, ib := find("int", 0), find("int", 1)
	if keyOf[ia] == 0 || keyOf[ia] != keyOf[ib] || ia.decl {
		t.Errorf("int: keys %x and %x, decl %v: want one key, no declaration", keyOf[ia], keyOf[ib], ia.decl)
	}
	sa, sb := find("shared", 0), find("shared", 1)
	if keyOf[sa] == 0 || keyOf[sb] == 0 || !sa.decl || !sb.decl {
		t.Errorf("struct shared: keys %x, %x, decl %v, %v: want keys, reaching opaque_a's declaration", keyOf[sa], keyOf[sb], sa.decl, sb.decl)
	}
	oa, ob := find("opaque_b", 0), find("opaque_b", 1)
	if oa.b.Kind(oa.id) != btf.KindFwd || ob.b.Kind(ob.id) != btf.KindStruct {
		t.Fatalf("opaque_b: kinds %v, %v: want FWD, STRUCT", oa.b.Kind(oa.id), ob.b.Kind(ob.id))
	}
	if keyOf[oa] == keyOf[ob] || !oa.decl || !ob.decl {
		t.Errorf("opaque_b: keys %x, %x, decl %v, %v: want two keys, both reaching a declaration", keyOf[oa], keyOf[ob], oa.decl, ob.decl)
	}
}

// TestNodeStateSize: Tarjan's walk touches one cache line per node only
// while nodeState stays 32 bytes (on 32-bit hosts too).
func TestNodeStateSize(t *testing.T) {
	if s := unsafe.Sizeof(nodeState{}); s != 32 {
		t.Errorf("nodeState is %d bytes, want 32", s)
	}
}
