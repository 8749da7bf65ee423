// Command funcset prints the FUNCs of a raw BTF file, one line each: the
// name, then its prototype as text (types spelled out, so two files'
// lines compare whatever their ids), with the DECL_TAGs of the function.
// Sorted, it makes two encoders' function sets comparable with comm(1)
// or diff(1), which `btfstream diff` cannot show until every type
// matches:
//
//	go run ./bench/funcset A.btf | sort > a; go run ./bench/funcset B.btf | sort > b
//	comm -3 a b
//
// A module's split BTF needs its base: funcset -base VMLINUX.btf MOD.btf.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/btfstream/btfstream/btf"
)

func main() {
	baseFile := flag.String("base", "", "base BTF (raw) of a split BTF FILE")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: funcset [-base BASE.btf] FILE.btf")
		os.Exit(2)
	}
	var base *btf.Spec
	if *baseFile != "" {
		base = load(*baseFile, nil)
	}
	s := load(flag.Arg(0), base)
	tags := map[btf.TypeID][]string{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		if s.Kind(id) == btf.KindDeclTag {
			t := s.Type(id)
			tags[t.Ref()] = append(tags[t.Ref()], fmt.Sprintf("%s@%d", s.Name(id), s.DeclTagComponent(id)))
		}
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for id := s.FirstID(); id < s.NextID(); id++ {
		if s.Kind(id) != btf.KindFunc {
			continue
		}
		proto := s.Type(id).Ref()
		fmt.Fprintf(w, "%s %s", s.Name(id), protoText(s, proto))
		if tg := tags[id]; len(tg) > 0 {
			fmt.Fprintf(w, " tags=%s", strings.Join(tg, ","))
		}
		fmt.Fprintln(w)
	}
}

// load reads a raw BTF file (split over base if not nil), or exits.
func load(name string, base *btf.Spec) *btf.Spec {
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	raw, err := btf.ReadRaw(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s, err := btf.Parse(raw, base)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return s
}

func protoText(s *btf.Spec, id btf.TypeID) string {
	var b strings.Builder
	t := s.Type(id)
	b.WriteString(typeText(s, t.Ref(), 0))
	b.WriteString(" (")
	for i := 0; i < int(t.Vlen()); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		p := s.Param(id, i)
		if p.Type == 0 && s.Strings().Name(p.NameOff) == "" {
			b.WriteString("...")
			continue
		}
		b.WriteString(typeText(s, p.Type, 0))
		b.WriteString(" ")
		b.WriteString(s.Strings().Name(p.NameOff))
	}
	b.WriteString(")")
	return b.String()
}

// typeText spells a type out: named types by kind and name, the others
// by structure.
func typeText(s *btf.Spec, id btf.TypeID, depth int) string {
	if id == 0 {
		return "void"
	}
	if depth > 20 {
		return "..."
	}
	t := s.Type(id)
	name := s.Name(id)
	switch t.Kind() {
	case btf.KindInt, btf.KindFloat:
		return name
	case btf.KindStruct:
		if name == "" {
			return fmt.Sprintf("struct{%d}", t.Size())
		}
		return "struct " + name
	case btf.KindUnion:
		if name == "" {
			return fmt.Sprintf("union{%d}", t.Size())
		}
		return "union " + name
	case btf.KindEnum, btf.KindEnum64:
		return "enum " + name
	case btf.KindFwd:
		if t.KindFlag() {
			return "union " + name
		}
		return "struct " + name
	case btf.KindTypedef:
		return name
	case btf.KindPtr:
		return typeText(s, t.Ref(), depth+1) + "*"
	case btf.KindConst:
		return "const " + typeText(s, t.Ref(), depth+1)
	case btf.KindVolatile:
		return "volatile " + typeText(s, t.Ref(), depth+1)
	case btf.KindRestrict:
		return "restrict " + typeText(s, t.Ref(), depth+1)
	case btf.KindTypeTag:
		return fmt.Sprintf("tag(%s) %s", name, typeText(s, t.Ref(), depth+1))
	case btf.KindArray:
		a := s.Array(id)
		return fmt.Sprintf("%s[%d]", typeText(s, a.Type, depth+1), a.Nelems)
	case btf.KindFuncProto:
		return "fn" + protoText(s, id)
	}
	return fmt.Sprintf("kind%d %s", t.Kind(), name)
}
