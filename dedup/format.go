package dedup

import (
	"fmt"
	"strings"

	"github.com/btfstream/btfstream/btf"
)

// FormatType renders one type on one line, in the style of
// `bpftool btf dump` ([42] STRUCT 'foo' size 16 ...), with edges as ids.
func FormatType(s *btf.Spec, id btf.TypeID) string {
	if id == 0 {
		return "[0] void"
	}
	if !s.Valid(id) {
		return fmt.Sprintf("[%d] <invalid>", id)
	}
	t := s.Type(id)
	k := t.Kind()
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s '%s'", id, k, s.Name(id))
	name := func(off uint32) string { return s.Strings().Name(btf.StrOff(off)) }
	switch k {
	case btf.KindInt:
		enc, off, bits := btf.IntInfo(s.Extra(id)[0])
		fmt.Fprintf(&b, " size %d enc %#x off %d bits %d", t.Size(), enc, off, bits)
	case btf.KindFloat:
		fmt.Fprintf(&b, " size %d", t.Size())
	case btf.KindPtr, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
		fmt.Fprintf(&b, " -> %d", t.Ref())
		if t.KindFlag() {
			b.WriteString(" kflag")
		}
	case btf.KindArray:
		a := s.Array(id)
		fmt.Fprintf(&b, " %d[%d] idx %d", a.Type, a.Nelems, a.IndexType)
	case btf.KindStruct, btf.KindUnion:
		fmt.Fprintf(&b, " size %d {", t.Size())
		for i := 0; i < int(t.Vlen()); i++ {
			m := s.Member(id, i)
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%s:%d@%d", name(uint32(m.NameOff)), m.Type, m.BitOffset(t.KindFlag()))
			if bs := m.BitfieldSize(t.KindFlag()); bs != 0 {
				fmt.Fprintf(&b, ":%d", bs)
			}
		}
		b.WriteByte('}')
	case btf.KindEnum, btf.KindEnum64:
		fmt.Fprintf(&b, " size %d {", t.Size())
		for i := 0; i < int(t.Vlen()); i++ {
			v := s.EnumValue(id, i)
			if i > 0 {
				b.WriteByte(' ')
			}
			if t.KindFlag() {
				fmt.Fprintf(&b, "%s=%d", name(uint32(v.NameOff)), int64(v.Value))
			} else {
				fmt.Fprintf(&b, "%s=%d", name(uint32(v.NameOff)), v.Value)
			}
		}
		b.WriteByte('}')
	case btf.KindFwd:
		if t.KindFlag() {
			b.WriteString(" union")
		} else {
			b.WriteString(" struct")
		}
	case btf.KindFunc:
		fmt.Fprintf(&b, " linkage %d -> %d", t.Vlen(), t.Ref())
	case btf.KindFuncProto:
		fmt.Fprintf(&b, " ret %d (", t.Ref())
		for i := 0; i < int(t.Vlen()); i++ {
			p := s.Param(id, i)
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%s:%d", name(uint32(p.NameOff)), p.Type)
		}
		b.WriteByte(')')
	case btf.KindVar:
		fmt.Fprintf(&b, " linkage %d -> %d", s.Extra(id)[0], t.Ref())
	case btf.KindDatasec:
		fmt.Fprintf(&b, " size %d {", t.Size())
		for i := 0; i < int(t.Vlen()); i++ {
			v := s.Secinfo(id, i)
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%d@%d+%d", v.Type, v.Offset, v.Size)
		}
		b.WriteByte('}')
	case btf.KindDeclTag:
		fmt.Fprintf(&b, " -> %d comp %d", t.Ref(), int32(s.Extra(id)[0]))
		if t.KindFlag() {
			b.WriteString(" kflag")
		}
	}
	return b.String()
}

// Short renders a type as "[id] KIND 'name'" for messages.
func Short(s *btf.Spec, id btf.TypeID) string {
	if id == 0 {
		return "[0] void"
	}
	return fmt.Sprintf("[%d] %s '%s'", id, s.Kind(id), s.Name(id))
}

// edgeName describes edge j of type id for messages ("member 'x' type").
func edgeName(s *btf.Spec, id btf.TypeID, j int) string {
	t := s.Type(id)
	k := t.Kind()
	if k.HasType() {
		if j == 0 {
			switch k {
			case btf.KindFuncProto:
				return "return type"
			case btf.KindFunc:
				return "prototype"
			case btf.KindDeclTag:
				return "target"
			}
			return "type"
		}
		j--
	}
	switch k {
	case btf.KindArray:
		if j == 0 {
			return "element type"
		}
		return "index type"
	case btf.KindStruct, btf.KindUnion:
		return fmt.Sprintf("member '%s' type", s.Strings().Name(s.Member(id, j).NameOff))
	case btf.KindFuncProto:
		return fmt.Sprintf("param %d '%s' type", j, s.Strings().Name(s.Param(id, j).NameOff))
	case btf.KindDatasec:
		return fmt.Sprintf("entry %d type", j)
	}
	return fmt.Sprintf("edge %d", j)
}
