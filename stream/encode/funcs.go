package encode

import (
	"debug/dwarf"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

// FuncParam is one saved parameter: a string offset and a type id.
type FuncParam struct {
	Name btf.StrOff
	Type btf.TypeID
}

// FuncAnnot is a saved btf_decl_tag of a function or one of its
// parameters (Comp -1 for the function).
type FuncAnnot struct {
	Value btf.StrOff
	Comp  int32
}

// FuncState is what pahole keeps of a function between units (its
// btf_encoder_func_state): ids and string offsets only, so the unit's
// DIEs can be freed once it is converted. In a Batch, type ids are the
// batch's and names offsets into its strings; the merger rewrites both.
type FuncState struct {
	Elf        uint32 // index into the symbol table's functions
	Seq        uint32 // save order, for a stable merge
	Ret        btf.TypeID
	Params     []FuncParam
	Annots     []FuncAnnot
	Unexpected bool
	Uncertain  bool
}

// funcCtx is the per-file state for functions, read-only once made (the
// workers share it).
type funcCtx struct {
	elfs     *elfFuncs
	locs     *dwarfread.LocLists
	nRegs    int
	regs     [8]int
	v5       bool
	declTags bool
}

// paramInfo is pahole's per-parameter location verdict.
type paramInfo struct {
	hasLoc, optimized, unexpected bool
}

// saveFuncs appends to states the functions of a converted unit that have
// an ELF symbol, as btf_encoder__encode_cu + btf_encoder__save_func do.
func (fc *funcCtx) saveFuncs(c *cuConv, cuNode int32, states []FuncState) []FuncState {
	t := c.t
	if fc.elfs == nil || fc.elfs.len() == 0 {
		return states
	}
	// Location verdicts per parameter node, with sharing to abstract
	// origins (ftype__recode_dwarf_types).
	info := make(map[int32]*paramInfo)
	get := func(p int32) *paramInfo {
		pi := info[p]
		if pi == nil {
			pi = &paramInfo{}
			info[p] = pi
		}
		return pi
	}
	for _, f := range c.funcs {
		idx := 0
		t.children(f, func(p int32) {
			if t.tag(p) != dwarf.TagFormalParameter {
				return
			}
			pi := get(p)
			if idx < fc.nRegs {
				fc.judgeParam(t, cuNode, p, fc.regs[idx], pi)
			}
			idx++
		})
	}
	for _, f := range c.funcs {
		t.children(f, func(p int32) {
			if t.tag(p) != dwarf.TagFormalParameter || t.has(p, dwarf.AttrType) {
				return
			}
			o := t.ref(p, dwarf.AttrAbstractOrigin)
			if o < 0 {
				return
			}
			pi, oi := get(p), get(o)
			if pi.hasLoc {
				oi.hasLoc = true
			}
			if pi.optimized {
				oi.optimized = true
			}
			if pi.unexpected {
				oi.unexpected = true
			}
		})
	}
	strs := c.out.Strings()
	for _, f := range c.funcs {
		if t.flag(f, dwarf.AttrDeclaration) {
			continue
		}
		name := t.str(f, dwarf.AttrName)
		if !t.has(f, dwarf.AttrName) {
			o := t.ref(f, dwarf.AttrAbstractOrigin)
			if o < 0 {
				o = t.ref(f, dwarf.AttrSpecification)
			}
			if o < 0 {
				continue
			}
			name = t.str(o, dwarf.AttrName)
		}
		if name == "" {
			continue
		}
		e := fc.elfs.find(name)
		if e < 0 {
			continue
		}
		st := FuncState{Elf: uint32(e), Seq: uint32(len(states))}
		if t.has(f, dwarf.AttrType) {
			st.Ret = c.typeOf(f)
		} else if o := t.ref(f, dwarf.AttrAbstractOrigin); o >= 0 {
			st.Ret = c.typeOf(o)
		}
		ok := true
		unexpected, structParam := false, false
		idx := int32(0)
		unspec := false
		var typeNodes []int32
		t.children(f, func(p int32) {
			switch t.tag(p) {
			case dwarf.TagUnspecifiedParameters:
				unspec = true
				return
			case tagLLVMAnnotation, tagGNUAnnotation:
				fc.annot(t, p, -1, &st, strs)
				return
			case dwarf.TagFormalParameter:
			default:
				return
			}
			pn, hasName := t.str(p, dwarf.AttrName), t.has(p, dwarf.AttrName)
			typ := c.typeOf(p)
			typeNode := t.ref(p, dwarf.AttrType)
			if !t.has(p, dwarf.AttrType) {
				if o := t.ref(p, dwarf.AttrAbstractOrigin); o >= 0 {
					pn, hasName = t.str(o, dwarf.AttrName), t.has(o, dwarf.AttrName)
					typ = c.typeOf(o)
					typeNode = t.ref(o, dwarf.AttrType)
				}
			}
			if !hasName {
				ok = false
			}
			if pi := info[p]; pi != nil && pi.unexpected {
				unexpected = true
			}
			typeNodes = append(typeNodes, typeNode)
			if isStructParam(t, typeNode) {
				structParam = true
			}
			st.Params = append(st.Params, FuncParam{strs.Append(pn), typ})
			t.children(p, func(a int32) { fc.annot(t, a, idx, &st, strs) })
			t.annotChain(p, func(a int32) bool { fc.annot(t, a, idx, &st, strs); return true })
			idx++
		})
		t.annotChain(f, func(a int32) bool { fc.annot(t, a, -1, &st, strs); return true })
		if !ok {
			continue
		}
		if unspec {
			st.Params = append(st.Params, FuncParam{})
		}
		st.Unexpected = unexpected && !structParam
		st.Uncertain = uncertainParamLoc(c, typeNodes, fc.nRegs)
		states = append(states, st)
	}
	return states
}

func (fc *funcCtx) annot(t *encTree, a int32, comp int32, st *FuncState, strs *btf.Strings) {
	if !fc.declTags || !isAnnotation(t.tag(a)) || t.str(a, dwarf.AttrName) != "btf_decl_tag" {
		return
	}
	st.Annots = append(st.Annots, FuncAnnot{strs.Append(t.str(a, dwarf.AttrConstValue)), comp})
}

// isStructParam is pahole's param__is_struct: a struct, possibly behind
// const and typedefs.
func isStructParam(t *encTree, j int32) bool {
	for n := 0; j >= 0 && n < 64; n++ {
		switch t.tag(j) {
		case dwarf.TagStructType:
			return true
		case dwarf.TagConstType, dwarf.TagTypedef:
			j = t.ref(j, dwarf.AttrType)
		default:
			return false
		}
	}
	return false
}

// judgeParam is pahole's parameter__new location check.
func (fc *funcCtx) judgeParam(t *encTree, cuNode, p int32, expected int, pi *paramInfo) {
	f, ok := t.attr(p, dwarf.AttrLocation)
	if !ok {
		if t.has(p, dwarf.AttrConstValue) {
			pi.optimized = true
		}
		return
	}
	pi.hasLoc = true
	var each func(fn func([]byte) bool)
	switch f.Class() {
	case dwarf.ClassExprLoc, dwarf.ClassBlock:
		v := f.Block()
		each = func(fn func([]byte) bool) { fn(v) }
	case dwarf.ClassLocListPtr, dwarf.ClassLocList:
		off := f.Val
		v5 := t.cu.Version() >= 5
		if f.Class() == dwarf.ClassLocList {
			base := t.cu.LoclistsBase()
			if base == 0 {
				base = 12
			}
			o, ok := fc.locs.LoclistsOffset(base, off)
			if !ok {
				pi.optimized = true
				return
			}
			off, v5 = o, true
		}
		each = func(fn func([]byte) bool) { fc.locs.Exprs(&t.locPages, off, v5, fn) }
	default:
		pi.optimized = true
		return
	}
	actual := paramReg(each, expected)
	if actual < 0 {
		pi.optimized = true
	} else if expected >= 0 && expected != actual {
		pi.unexpected = true
	}
}
