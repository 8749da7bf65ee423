package dedup

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// builder writes BTF by hand with symbolic references: every type gets a
// label, edges name labels ("void" is 0), and labels may be used before
// their type is added, which is how cycles are written.
type builder struct {
	s      *btf.Spec
	labels map[string]btf.TypeID
	fix    []fixup
}

type fixup struct {
	id    btf.TypeID
	word  int // -1: size_or_type
	label string
}

func newBuilder(s *btf.Spec, inherit map[string]btf.TypeID) *builder {
	b := &builder{s: s, labels: map[string]btf.TypeID{"void": 0}}
	for k, v := range inherit {
		b.labels[k] = v
	}
	return b
}

func (b *builder) str(x string) uint32 { return uint32(b.s.Strings().Add(x)) }

func (b *builder) add(label string, k btf.Kind, name string, vlen uint32, flag bool, size uint32, extra []uint32, refs map[int]string) btf.TypeID {
	id := b.s.Add(btf.Type{NameOff: btf.StrOff(b.str(name)), Info: btf.MakeInfo(k, vlen, flag), SizeOrType: size}, extra...)
	if label != "" {
		if _, dup := b.labels[label]; dup {
			panic("duplicate label " + label)
		}
		b.labels[label] = id
	}
	for w, l := range refs {
		b.fix = append(b.fix, fixup{id, w, l})
	}
	return id
}

// done resolves the labels.
func (b *builder) done() *btf.Spec {
	for _, f := range b.fix {
		id, ok := b.labels[f.label]
		if !ok {
			panic("unknown label " + f.label)
		}
		if f.word < 0 {
			t := b.s.Type(f.id)
			t.SizeOrType = uint32(id)
			b.s.SetType(f.id, t)
		} else {
			b.s.Extra(f.id)[f.word] = uint32(id)
		}
	}
	b.fix = nil
	return b.s
}

func (b *builder) Int(l, name string, size uint32) {
	b.add(l, btf.KindInt, name, 0, false, size, []uint32{btf.MakeIntInfo(btf.IntSigned, 0, size*8)}, nil)
}
func (b *builder) Float(l, name string, size uint32) {
	b.add(l, btf.KindFloat, name, 0, false, size, nil, nil)
}
func (b *builder) ref(l string, k btf.Kind, name, to string) {
	b.add(l, k, name, 0, false, 0, nil, map[int]string{-1: to})
}
func (b *builder) Ptr(l, to string)           { b.ref(l, btf.KindPtr, "", to) }
func (b *builder) Const(l, to string)         { b.ref(l, btf.KindConst, "", to) }
func (b *builder) Volatile(l, to string)      { b.ref(l, btf.KindVolatile, "", to) }
func (b *builder) Restrict(l, to string)      { b.ref(l, btf.KindRestrict, "", to) }
func (b *builder) Typedef(l, name, to string) { b.ref(l, btf.KindTypedef, name, to) }
func (b *builder) TypeTag(l, name, to string) { b.ref(l, btf.KindTypeTag, name, to) }
func (b *builder) Func(l, name, proto string) {
	b.add(l, btf.KindFunc, name, btf.LinkageGlobal, false, 0, nil, map[int]string{-1: proto})
}
func (b *builder) Fwd(l, name string, union bool) { b.add(l, btf.KindFwd, name, 0, union, 0, nil, nil) }

// Struct members are "name:label@bitoff".
func (b *builder) Struct(l, name string, size uint32, members ...string) {
	b.composite(l, btf.KindStruct, name, size, members)
}
func (b *builder) Union(l, name string, size uint32, members ...string) {
	b.composite(l, btf.KindUnion, name, size, members)
}
func (b *builder) composite(l string, k btf.Kind, name string, size uint32, members []string) {
	w := make([]uint32, 0, 3*len(members))
	refs := map[int]string{}
	for i, m := range members {
		nm, rest, _ := strings.Cut(m, ":")
		lab, off, _ := strings.Cut(rest, "@")
		o, _ := strconv.Atoi(off)
		w = append(w, b.str(nm), 0, uint32(o))
		refs[3*i+1] = lab
	}
	b.add(l, k, name, uint32(len(members)), false, size, w, refs)
}

// Enum values are "NAME=value".
func (b *builder) Enum(l, name string, size uint32, vals ...string) {
	w := []uint32{}
	for _, v := range vals {
		nm, x, _ := strings.Cut(v, "=")
		n, _ := strconv.ParseInt(x, 10, 64)
		w = append(w, b.str(nm), uint32(n))
	}
	b.add(l, btf.KindEnum, name, uint32(len(vals)), false, size, w, nil)
}
func (b *builder) Enum64(l, name string, size uint32, vals ...string) {
	w := []uint32{}
	for _, v := range vals {
		nm, x, _ := strings.Cut(v, "=")
		n, _ := strconv.ParseUint(x, 10, 64)
		w = append(w, b.str(nm), uint32(n), uint32(n>>32))
	}
	b.add(l, btf.KindEnum64, name, uint32(len(vals)), false, size, w, nil)
}
func (b *builder) Array(l, elem, index string, n uint32) {
	b.add(l, btf.KindArray, "", 0, false, 0, []uint32{0, 0, n}, map[int]string{0: elem, 1: index})
}

// Proto params are "name:label".
func (b *builder) Proto(l, ret string, params ...string) {
	w := []uint32{}
	refs := map[int]string{-1: ret}
	for i, p := range params {
		nm, lab, _ := strings.Cut(p, ":")
		w = append(w, b.str(nm), 0)
		refs[2*i+1] = lab
	}
	b.add(l, btf.KindFuncProto, "", uint32(len(params)), false, 0, w, refs)
}
func (b *builder) Var(l, name, typ string) {
	b.add(l, btf.KindVar, name, 0, false, 0, []uint32{btf.LinkageGlobal}, map[int]string{-1: typ})
}

// Datasec entries are "label@off+size".
func (b *builder) Datasec(l, name string, size uint32, entries ...string) {
	w := []uint32{}
	refs := map[int]string{}
	for i, e := range entries {
		lab, rest, _ := strings.Cut(e, "@")
		off, sz, _ := strings.Cut(rest, "+")
		o, _ := strconv.Atoi(off)
		s, _ := strconv.Atoi(sz)
		w = append(w, 0, uint32(o), uint32(s))
		refs[3*i] = lab
	}
	b.add(l, btf.KindDatasec, name, uint32(len(entries)), false, size, w, refs)
}
func (b *builder) DeclTag(l, name, target string, comp int32) {
	b.add(l, btf.KindDeclTag, name, 0, false, 0, []uint32{uint32(comp)}, map[int]string{-1: target})
}

// dump renders every local type of s, one per line.
func dump(s *btf.Spec) []string {
	var out []string
	for id := s.FirstID(); id < s.NextID(); id++ {
		out = append(out, FormatType(s, id))
	}
	return out
}

func checkLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

var _ = fmt.Sprint
