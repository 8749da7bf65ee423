package encode

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

const percpuSection = ".data..percpu"

const opPlusUconst = 0x23 // DW_OP_plus_uconst

// varSection is one ELF section as the variable encoder sees it.
type varSection struct {
	addr    uint64
	size    uint64
	typ     uint32
	include bool
}

// VarEntry is a DATASEC entry of a unit's VAR: the ELF section index, the
// VAR's batch id (until the merger remaps it), its offset in the section
// and its size.
type VarEntry struct {
	Sec    uint32
	Type   btf.TypeID
	Offset uint32
	Size   uint32
}

// varCtx is the per-file state for variables: sections and the STT_OBJECT
// symbols (name, section, value; for the address-0 check).
type varCtx struct {
	secs    []varSection
	objects *objSyms
	// rel is set for ET_REL files, whose sections all start at address 0:
	// there libdwfl lays the SHF_ALLOC sections out before pahole looks
	// addresses up, which amounts to finding a variable's section through
	// its symbol (objects' values).
	rel     bool
	force   bool
	verbose func(string)
	order   binary.ByteOrder
}

func newVarCtx(f *elffile.File, objects *objSyms, feat Features, verbose func(string)) *varCtx {
	vc := &varCtx{force: feat.Has(FeatEncodeForce), verbose: verbose, objects: objects,
		rel: f.Relocatable(), order: f.Order}
	for _, s := range f.Sections {
		v := varSection{addr: s.Addr, size: s.Size, typ: s.Type}
		v.include = VarIncluded(s.Name, feat)
		vc.secs = append(vc.secs, v)
	}
	return vc
}

// VarIncluded reports whether variables of the named section are encoded.
func VarIncluded(name string, feat Features) bool {
	return feat.Has(FeatGlobalVar) || (name == percpuSection && feat.Has(FeatVar))
}

// section returns the first PROGBITS/NOBITS section holding addr (0: none).
func (vc *varCtx) section(addr uint64) int {
	for i := 1; i < len(vc.secs); i++ {
		s := &vc.secs[i]
		if s.typ != elffile.SHTProgbits && s.typ != elffile.SHTNobits {
			continue
		}
		if s.addr <= addr && addr-s.addr < s.size {
			return i
		}
	}
	return 0
}

// relSection finds the section of an ET_REL variable through its symbol.
func (vc *varCtx) relSection(name string, off uint64) int {
	return int(vc.objects.sectionAt(name, off))
}

var varSkipPrefixes = []string{"__UNIQUE_ID", "__tpstrtab_", "__exitcall_", "__gendwarfksyms_ptr_", "__func_stack_frame_non_standard_"}

func btfNameValid(s string) bool {
	if s == "" || len(s) >= 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// varAddr is pahole's dwarf__location for a variable: the address of a
// DW_OP_addr (the index of a DW_OP_addrx) first operation, plus the
// operand of a DW_OP_plus_uconst if that is the one other operation (LLVM's
// GlobalMerge; pahole 1.32, 4783a4dd).
func varAddr(t *encTree, v int32, addrSize int, order binary.ByteOrder) (uint64, bool) {
	a, ok := t.attr(v, dwarf.AttrLocation)
	if !ok || a.Class() != dwarf.ClassExprLoc && a.Class() != dwarf.ClassBlock {
		return 0, false
	}
	loc := a.Block()
	if len(loc) == 0 {
		return 0, false
	}
	var addr uint64
	var rest []byte
	switch loc[0] {
	case opAddr:
		if len(loc) < 1+addrSize {
			return 0, false
		}
		if addrSize == 8 {
			addr = order.Uint64(loc[1:])
		} else {
			addr = uint64(order.Uint32(loc[1:]))
		}
		rest = loc[1+addrSize:]
	case opAddrx:
		x, n := uleb(loc[1:])
		var err error
		if addr, err = t.cu.Addrx(x); err != nil {
			return 0, false
		}
		rest = loc[1+n:]
	default:
		return 0, false
	}
	if len(rest) > 1 && rest[0] == opPlusUconst {
		if off, n := uleb(rest[1:]); 1+n == len(rest) && rest[len(rest)-1]&0x80 == 0 {
			addr += off
		}
	}
	return addr, true
}

// encodeVars adds the unit's VARs (and their DECL_TAGs) as pahole's
// btf_encoder__encode_cu_variables, appending their DATASEC entries to
// out.
func (vc *varCtx) encodeVars(c *cuConv, declTags bool, out []VarEntry) ([]VarEntry, error) {
	t := c.t
	strs := c.out.Strings()
	for _, v := range c.vars {
		spec := t.ref(v, dwarf.AttrSpecification)
		if t.has(v, dwarf.AttrDeclaration) && spec < 0 {
			continue
		}
		if t.has(v, dwarf.AttrArtificial) || t.has(v, dwarf.AttrDeclaration) {
			continue
		}
		addr, ok := varAddr(t, v, int(c.addr), vc.order)
		if !ok {
			continue
		}
		d := v
		if spec >= 0 {
			d = spec
		}
		name := t.str(d, dwarf.AttrName)
		var shndx int
		if vc.rel {
			shndx = vc.relSection(name, addr)
		} else {
			shndx = vc.section(addr)
		}
		if shndx == 0 || !vc.secs[shndx].include {
			continue
		}
		addr -= vc.secs[shndx].addr
		if !t.has(d, dwarf.AttrName) {
			continue
		}
		skip := false
		for _, p := range varSkipPrefixes {
			if strings.HasPrefix(name, p) {
				skip = true
			}
		}
		if skip {
			continue
		}
		if addr == 0 && !vc.objects.inSection(name, uint32(shndx)) {
			continue
		}
		if !btfNameValid(name) {
			if vc.force {
				vc.skipped(c, v, name, "invalid name (encode_force)")
				continue
			}
			return out, c.t.errorf(v, elffile.ErrUnsupported, "invalid variable name %q (use encode_force)", name)
		}
		typ := c.typeOf(d)
		if typ == 0 {
			if vc.force {
				vc.skipped(c, v, name, "void type (encode_force)")
				continue
			}
			return out, c.t.errorf(v, elffile.ErrUnsupported, "variable %q has void type", name)
		}
		size := c.size(t.ref(d, dwarf.AttrType), 0)
		if size == 0 || size > 0xffffffff || addr > 0xffffffff {
			vc.skipped(c, v, name, fmt.Sprintf("size %d at section offset 0x%x", size, addr))
			continue
		}
		linkage := uint32(btf.LinkageStatic)
		if t.flag(d, dwarf.AttrExternal) {
			linkage = btf.LinkageGlobal
		}
		id := c.out.Add(btf.Type{NameOff: strs.Append(name), Info: btf.MakeInfo(btf.KindVar, 0, false), SizeOrType: uint32(typ)}, linkage)
		if declTags {
			t.children(d, func(a int32) { c.declTag(a, id, -1, strs) })
		}
		out = append(out, VarEntry{Sec: uint32(shndx), Type: id, Offset: uint32(addr), Size: uint32(size)})
	}
	return out, nil
}

// skipped tells Config.Verbose, if set, that variable DIE v was left out:
// the reasons a user could want to know of (a name BTF cannot hold, no
// type, a size BTF cannot hold), not those of variables that are simply
// not encoded (declarations, sections not asked for). With -j > 1 the
// workers' lines may interleave in any order; the BTF does not depend on it.
func (vc *varCtx) skipped(c *cuConv, v int32, name, why string) {
	if vc.verbose == nil {
		return
	}
	vc.verbose(fmt.Sprintf("%s+0x%x: variable %q skipped: %s", c.t.cu.Section(), c.t.die(v).Offset(), name, why))
}
