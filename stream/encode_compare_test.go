package stream

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/e2e/testenv"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// This file compares encoder output with pahole's in a way that does not
// depend on deduplication or id order: every type is rendered as a
// canonical string in which references are spelled out (named structs,
// unions, enums and typedefs by kind and name, everything else inline),
// and the two sets of strings must be equal.

// canon renders type id; depth guards against cycles through anonymous
// types (which C cannot build).
func canon(s *btf.Spec, id btf.TypeID, top bool, depth int) string {
	if id == 0 {
		return "void"
	}
	if depth > 8 {
		return "..."
	}
	t := s.Type(id)
	k := t.Kind()
	name := s.Name(id)
	ref := func(r btf.TypeID) string { return canon(s, r, false, depth+1) }
	switch k {
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindTypedef, btf.KindFwd:
		if !top && name != "" {
			if k == btf.KindFwd {
				if t.KindFlag() {
					return "union " + name
				}
				return "struct " + name
			}
			if k == btf.KindEnum64 {
				k = btf.KindEnum
			}
			return strings.ToLower(k.String()) + " " + name
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s '%s'", k, name)
	switch k {
	case btf.KindInt:
		enc, off, bits := btf.IntInfo(s.Extra(id)[0])
		fmt.Fprintf(&b, " size=%d enc=%d off=%d bits=%d", t.Size(), enc, off, bits)
	case btf.KindFloat:
		fmt.Fprintf(&b, " size=%d", t.Size())
	case btf.KindPtr, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypedef, btf.KindTypeTag:
		fmt.Fprintf(&b, " -> %s", ref(t.Ref()))
	case btf.KindFwd:
		fmt.Fprintf(&b, " union=%v", t.KindFlag())
	case btf.KindArray:
		a := s.Array(id)
		fmt.Fprintf(&b, " [%d] of %s idx %s", a.Nelems, ref(a.Type), ref(a.IndexType))
	case btf.KindStruct, btf.KindUnion:
		fmt.Fprintf(&b, " size=%d kflag=%v {", t.Size(), t.KindFlag())
		for i := 0; i < int(t.Vlen()); i++ {
			m := s.Member(id, i)
			fmt.Fprintf(&b, " %s:%s@%d/%d;", s.Strings().Name(m.NameOff), ref(m.Type), m.BitOffset(t.KindFlag()), m.BitfieldSize(t.KindFlag()))
		}
		b.WriteString(" }")
	case btf.KindEnum, btf.KindEnum64:
		fmt.Fprintf(&b, " size=%d signed=%v {", t.Size(), t.KindFlag())
		for i := 0; i < int(t.Vlen()); i++ {
			v := s.EnumValue(id, i)
			fmt.Fprintf(&b, " %s=%d", s.Strings().Name(v.NameOff), int64(v.Value))
		}
		b.WriteString(" }")
	case btf.KindFuncProto:
		fmt.Fprintf(&b, " ret %s (", ref(t.Ref()))
		for i := 0; i < int(t.Vlen()); i++ {
			p := s.Param(id, i)
			fmt.Fprintf(&b, "%s %s, ", ref(p.Type), s.Strings().Name(p.NameOff))
		}
		b.WriteString(")")
	case btf.KindFunc:
		fmt.Fprintf(&b, " linkage=%d %s", t.Vlen(), ref(t.Ref()))
	case btf.KindVar:
		fmt.Fprintf(&b, " linkage=%d %s", s.Extra(id)[0], ref(t.Ref()))
	case btf.KindDatasec:
		fmt.Fprintf(&b, " size=%d {", t.Size())
		var ents []string
		for i := 0; i < int(t.Vlen()); i++ {
			e := s.Secinfo(id, i)
			ents = append(ents, fmt.Sprintf(" %s@%d+%d", s.Name(e.Type), e.Offset, e.Size))
		}
		slices.Sort(ents)
		b.WriteString(strings.Join(ents, ""))
		b.WriteString(" }")
	case btf.KindDeclTag:
		fmt.Fprintf(&b, " comp=%d on %s", int32(s.Extra(id)[0]), canon(s, t.Ref(), true, depth+1))
	}
	return b.String()
}

func canonSet(s *btf.Spec) map[string]int {
	m := map[string]int{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		m[canon(s, id, true, 0)]++
	}
	return m
}

// diffCanon returns the strings only in a and only in b.
func diffCanon(a, b *btf.Spec) (onlyA, onlyB []string) {
	ma, mb := canonSet(a), canonSet(b)
	for k := range ma {
		if mb[k] == 0 {
			onlyA = append(onlyA, k)
		}
	}
	for k := range mb {
		if ma[k] == 0 {
			onlyB = append(onlyB, k)
		}
	}
	slices.Sort(onlyA)
	slices.Sort(onlyB)
	return
}

// compileFixture compiles testdata/encode/<name> with cc (the Debian
// package pkg has it), or is testenv.Missing.
func compileFixture(t *testing.T, cc, pkg, name string, flags ...string) string {
	t.Helper()
	testenv.Tool(t, cc, pkg)
	obj := filepath.Join(t.TempDir(), strings.TrimSuffix(name, ".c")+"-"+cc+".o")
	args := append([]string{"-g", "-O2", "-c", "-o", obj, testkit.Testdata(filepath.Join("encode", name))}, flags...)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, out)
	}
	return obj
}

// paholeBTF runs the reference pahole 1.32 (testenv.Pahole) -J on obj with
// the given --btf_features and returns its BTF.
func paholeBTF(t *testing.T, obj, features string) *btf.Spec {
	t.Helper()
	bin := testenv.Pahole(t)
	out := obj + ".pahole.btf"
	args := []string{"-J", "--btf_encode_detached", out, "--lang_exclude=rust"}
	if features != "" {
		args = append(args, "--btf_features="+features)
	}
	args = append(args, obj)
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, b)
	}
	s, err := elffile.LoadBTF(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
