package btf

import (
	"bufio"
	"io"
	"strconv"
)

// Dump writes the Spec's local types (for split BTF, only the split part)
// in the format of `bpftool btf dump file FILE format raw`, one type per
// line and one tab-indented line per member, value, parameter or secinfo.
// The format follows bpftool 7.1 (libbpf 1.1) with one deliberate
// difference: vlen is printed with today's 24 bits, where bpftool truncates
// it to 16 (no real BTF has 65536 members).
func (s *Spec) Dump(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for id := s.FirstID(); id < s.NextID(); id++ {
		buf = s.appendDump(buf[:0], id)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// DumpType returns the dump of one type (base or local), ending in '\n'.
func (s *Spec) DumpType(id TypeID) string { return string(s.appendDump(nil, id)) }

// dumpKindName is bpftool's btf_kind_str, which differs from Kind.String
// for kind 0 and kinds it does not know.
func dumpKindName(k Kind) string {
	if k == KindUnknown || !k.Valid() {
		return "UNKNOWN"
	}
	return k.String()
}

// appendStr appends a name the way bpftool's btf_str prints it.
func (s *Spec) appendStr(b []byte, off StrOff) []byte {
	if off == 0 {
		return append(b, "(anon)"...)
	}
	name, err := s.strings.LookupBytes(off)
	if err != nil {
		return append(b, "(invalid)"...)
	}
	return append(b, name...)
}

func appendU(b []byte, key string, v uint32) []byte {
	b = append(b, key...)
	return strconv.AppendUint(b, uint64(v), 10)
}

var intEncNames = map[uint32]string{0: "(none)", IntSigned: "SIGNED", IntChar: "CHAR", IntBool: "BOOL"}

func linkageName(l uint32) string {
	switch l {
	case LinkageStatic:
		return "static"
	case LinkageGlobal:
		return "global"
	case LinkageExtern:
		return "extern"
	}
	return "(unknown)"
}

func (s *Spec) appendDump(b []byte, id TypeID) []byte {
	t := s.Type(id)
	k := t.Kind()
	b = append(b, '[')
	b = strconv.AppendUint(b, uint64(id), 10)
	b = append(b, "] "...)
	b = append(b, dumpKindName(k)...)
	b = append(b, " '"...)
	b = s.appendStr(b, t.NameOff)
	b = append(b, '\'')
	w := s.Extra(id)
	vlen := t.Vlen()
	switch k {
	case KindInt:
		enc, off, bits := IntInfo(w[0])
		b = appendU(b, " size=", t.Size())
		b = appendU(b, " bits_offset=", off)
		b = appendU(b, " nr_bits=", bits)
		name, ok := intEncNames[enc]
		if !ok {
			name = "UNKN"
		}
		b = append(b, " encoding="...)
		b = append(b, name...)
	case KindPtr, KindConst, KindVolatile, KindRestrict, KindTypedef, KindTypeTag:
		b = appendU(b, " type_id=", t.SizeOrType)
	case KindArray:
		b = appendU(b, " type_id=", w[0])
		b = appendU(b, " index_type_id=", w[1])
		b = appendU(b, " nr_elems=", w[2])
	case KindStruct, KindUnion:
		b = appendU(b, " size=", t.Size())
		b = appendU(b, " vlen=", vlen)
		for i := 0; i < int(vlen); i++ {
			m := s.Member(id, i)
			b = append(b, "\n\t'"...)
			b = s.appendStr(b, m.NameOff)
			b = append(b, '\'')
			b = appendU(b, " type_id=", uint32(m.Type))
			b = appendU(b, " bits_offset=", m.BitOffset(t.KindFlag()))
			if sz := m.BitfieldSize(t.KindFlag()); sz != 0 {
				b = appendU(b, " bitfield_size=", sz)
			}
		}
	case KindEnum, KindEnum64:
		if t.KindFlag() {
			b = append(b, " encoding=SIGNED"...)
		} else {
			b = append(b, " encoding=UNSIGNED"...)
		}
		b = appendU(b, " size=", t.Size())
		b = appendU(b, " vlen=", vlen)
		for i := 0; i < int(vlen); i++ {
			v := s.EnumValue(id, i)
			b = append(b, "\n\t'"...)
			b = s.appendStr(b, v.NameOff)
			b = append(b, "' val="...)
			switch {
			case k == KindEnum && t.KindFlag():
				b = strconv.AppendInt(b, int64(int32(v.Value)), 10)
			case k == KindEnum:
				b = strconv.AppendUint(b, v.Value&0xffffffff, 10)
			case t.KindFlag():
				b = strconv.AppendInt(b, int64(v.Value), 10)
				b = append(b, "LL"...)
			default:
				b = strconv.AppendUint(b, v.Value, 10)
				b = append(b, "ULL"...)
			}
		}
	case KindFwd:
		if t.KindFlag() {
			b = append(b, " fwd_kind=union"...)
		} else {
			b = append(b, " fwd_kind=struct"...)
		}
	case KindFunc:
		b = appendU(b, " type_id=", t.SizeOrType)
		b = append(b, " linkage="...)
		b = append(b, linkageName(vlen)...)
	case KindFuncProto:
		b = appendU(b, " ret_type_id=", t.SizeOrType)
		b = appendU(b, " vlen=", vlen)
		for i := 0; i < int(vlen); i++ {
			p := s.Param(id, i)
			b = append(b, "\n\t'"...)
			b = s.appendStr(b, p.NameOff)
			b = append(b, '\'')
			b = appendU(b, " type_id=", uint32(p.Type))
		}
	case KindVar:
		b = appendU(b, " type_id=", t.SizeOrType)
		b = append(b, ", linkage="...)
		b = append(b, linkageName(w[0])...)
	case KindDatasec:
		b = appendU(b, " size=", t.Size())
		b = appendU(b, " vlen=", vlen)
		for i := 0; i < int(vlen); i++ {
			v := s.Secinfo(id, i)
			b = appendU(b, "\n\ttype_id=", uint32(v.Type))
			b = appendU(b, " offset=", v.Offset)
			b = appendU(b, " size=", v.Size)
			if s.Valid(v.Type) {
				vt := s.Type(v.Type)
				b = append(b, " ("...)
				b = append(b, dumpKindName(vt.Kind())...)
				b = append(b, " '"...)
				b = s.appendStr(b, vt.NameOff)
				b = append(b, "')"...)
			}
		}
	case KindFloat:
		b = appendU(b, " size=", t.Size())
	case KindDeclTag:
		b = appendU(b, " type_id=", t.SizeOrType)
		b = append(b, " component_idx="...)
		b = strconv.AppendInt(b, int64(int32(w[0])), 10)
	}
	return append(b, '\n')
}
