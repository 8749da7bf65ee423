package encode

import (
	"debug/dwarf"
	"strings"

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
// Params are already as pahole 1.32 saves them: reordered parameters
// without a location dropped, true_signature's changes made.
type FuncState struct {
	Elf     uint32 // index into the symbol table's functions
	Seq     uint32 // save order, for a stable merge
	Ret     btf.TypeID
	Params  []FuncParam
	Annots  []FuncAnnot
	Flags   FuncFlags
	TrueSym uint16 // true_signature: 1 + rank of the '.'-suffixed symbol at the function's address; 0: none
}

// FuncFlags are a saved function's verdicts.
type FuncFlags uint8

const (
	FuncUnexpected     FuncFlags = 1 << iota // a parameter in an unexpected register (and no struct parameter)
	FuncUncertain                            // a packed struct passed on the stack
	FuncReordered                            // parameters not in their abstract origin's order
	FuncOptimizedParms                       // a parameter optimized out or without location
	FuncSigChanged                           // clang marked it DW_CC_nocall: its ABI changed
	FuncOptimizedSym                         // a symbol at its address has an .isra/.constprop suffix
	FuncAtSymbol                             // its DW_AT_low_pc is the address of one of its name's symbols
	FuncHasAddr                              // it has a DW_AT_low_pc other than 0 (as pahole reads it)
)

// Has reports whether all of f are set.
func (fl FuncFlags) Has(f FuncFlags) bool { return fl&f == f }

// funcCtx is the per-file state for functions, read-only once made (the
// workers share it).
type funcCtx struct {
	elfs     *elfFuncs
	locs     *dwarfread.LocLists
	abi      abi
	v5       bool
	declTags bool
	trueSig  bool // true_signature
	rel      bool // an ET_REL file (atSymbol)
}

// unitParams holds a unit's parameter verdicts: per DIE node the index
// (+1) of its paramInfo, a worker's scratch reused from unit to unit.
type unitParams struct {
	at        []int32 // per node: 1 + index in infos; 0: none
	infos     []paramInfo
	reordered map[int32]bool // by function node
	ops       []exprOp
	ps        []*paramInfo
}

// reset readies up for a unit of n nodes.
func (up *unitParams) reset(n int) {
	up.at = resize(up.at, n)
	up.infos = up.infos[:0]
	clear(up.reordered)
}

// index returns p's paramInfo index, made if p has none.
func (up *unitParams) index(p int32) int32 {
	if k := up.at[p]; k > 0 {
		return k - 1
	}
	up.infos = append(up.infos, paramInfo{locReg: noReg, member: -1})
	up.at[p] = int32(len(up.infos))
	return int32(len(up.infos) - 1)
}

// get returns p's paramInfo (valid until the next index call that makes one).
func (up *unitParams) get(p int32) *paramInfo { return &up.infos[up.index(p)] }

// judgeParams computes every parameter's verdicts as pahole 1.32's
// dwarf_loader does: each parameter's location decoded, the locations of
// out-of-line copies shared with their abstract origin's parameters (in
// function table order), then each function's parameters judged against
// the ABI's registers.
func (fc *funcCtx) judgeParams(c *cuConv, clang bool) *unitParams {
	t := c.t
	up := &c.params
	up.reset(t.n)
	lim := fc.abi.addr
	if fc.abi.aggTwoRegs {
		lim *= 2
	}
	// Where a parameter is, beyond the argument registers, matters only
	// to true_signature and to clang's rule (which skips big aggregates
	// without counting them).
	decodeAll := fc.trueSig || clang
	tags := t.cu.Tags()
	for _, f := range c.funcs {
		idx := 0
		for id := tags[f].FirstChild; id != dwarfread.NoTag; id = tags[id].NextSibling {
			p := int32(id)
			if t.tag(p) != dwarf.TagFormalParameter {
				continue
			}
			pi := up.get(p)
			pi.idx = uint8(idx)
			idx++
			pi.typeSize = uint16(c.typeByteSize(p))
			pi.inMemory = int(pi.typeSize) > lim
			pi.hasConst = t.has(p, dwarf.AttrConstValue)
			if !decodeAll && idx > fc.abi.nRegs {
				// Past the registers (each parameter before it took
				// one slot at least): only whether it has a location
				// counts, here and in its abstract origin.
				pi.hasLoc = t.has(p, dwarf.AttrLocation)
				continue
			}
			fc.decodeParam(t, p, pi, up)
			c.finishPieces(pi, p, t.has(p, dwarf.AttrName))
		}
	}
	for _, f := range c.funcs {
		for id := tags[f].FirstChild; id != dwarfread.NoTag; id = tags[id].NextSibling {
			p := int32(id)
			if t.tag(p) != dwarf.TagFormalParameter || t.has(p, dwarf.AttrType) {
				continue
			}
			o := t.ref(p, dwarf.AttrAbstractOrigin)
			if o < 0 {
				continue
			}
			if up.at[o] == 0 {
				up.get(o).idx = 0xff // not a function's parameter
			}
			pi, oi := &up.infos[up.at[p]-1], &up.infos[up.at[o]-1]
			if pi.idx != oi.idx {
				if up.reordered == nil {
					up.reordered = make(map[int32]bool)
				}
				up.reordered[f] = true
			}
			oi.hasLoc = oi.hasLoc || pi.hasLoc
			oi.hasConst = oi.hasConst || pi.hasConst
			oi.locConst = oi.locConst || pi.locConst
			oi.locStack = oi.locStack || pi.locStack
			if pi.locReg != noReg {
				oi.locReg = pi.locReg
			}
			if pi.typeSize != 0 {
				oi.typeSize = pi.typeSize
			}
			oi.inMemory = oi.inMemory || pi.inMemory
			oi.first |= pi.first
			oi.second |= pi.second
			if pi.member >= 0 && oi.member < 0 {
				oi.member = pi.member
			}
		}
	}
	for _, f := range c.funcs {
		up.ps = up.ps[:0]
		for id := tags[f].FirstChild; id != dwarfread.NoTag; id = tags[id].NextSibling {
			if t.tag(int32(id)) == dwarf.TagFormalParameter {
				up.ps = append(up.ps, &up.infos[up.at[id]-1])
			}
		}
		sig := clang && sigChanged(t, f)
		analyzeParams(up.ps, &fc.abi, clang, sig, fc.trueSig && sig)
	}
	return up
}

// sigChanged is pahole's function__signature_changed: clang marks a
// function whose ABI it changed DW_CC_nocall (on the abstract origin of
// an out-of-line copy); an inline function's own DIE never counts.
func sigChanged(t *encTree, f int32) bool {
	if t.has(f, dwarf.AttrInline) && t.num(f, dwarf.AttrInline) != 0 {
		return false
	}
	if t.has(f, dwarf.AttrAbstractOrigin) {
		o := t.ref(f, dwarf.AttrAbstractOrigin)
		return o >= 0 && t.num(o, attrCallingConvention) == dwCCNocall
	}
	return t.num(f, attrCallingConvention) == dwCCNocall
}

// saveFuncs appends to states the functions of a converted unit that have
// an ELF symbol, as btf_encoder__encode_cu + btf_encoder__save_func do.
func (fc *funcCtx) saveFuncs(c *cuConv, cuNode int32, states []FuncState) []FuncState {
	t := c.t
	if fc.elfs == nil || fc.elfs.len() == 0 {
		return states
	}
	clang := strings.Contains(t.producer, "clang")
	up := fc.judgeParams(c, clang)
	strs := c.out.Strings()
	for _, f := range c.funcs {
		if t.flag(f, dwarf.AttrDeclaration) {
			continue
		}
		named := f
		if !t.has(f, dwarf.AttrName) {
			o := t.ref(f, dwarf.AttrAbstractOrigin)
			if o < 0 {
				o = t.ref(f, dwarf.AttrSpecification)
			}
			if o < 0 {
				continue
			}
			named = o
		}
		e := c.elfFunc(fc.elfs, named)
		if e < 0 {
			continue
		}
		st := FuncState{Elf: uint32(e), Seq: uint32(len(states))}
		if t.has(f, dwarf.AttrType) {
			st.Ret = c.typeOf(f)
		} else if o := t.ref(f, dwarf.AttrAbstractOrigin); o >= 0 {
			st.Ret = c.typeOf(o)
		}
		sig := clang && sigChanged(t, f)
		trueSig := fc.trueSig && sig
		reordered := up.reordered[f]
		ok := true
		unexpected, structParam, optimized := false, false, false
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
			pi := &up.infos[up.at[p]-1]
			if pi.unexpected {
				unexpected = true
			}
			if pi.optimized || !pi.hasLoc {
				optimized = true
			}
			typeNodes = append(typeNodes, typeNode)
			if isStructParam(t, typeNode) {
				structParam = true
			}
			keep := !(reordered && (!pi.hasLoc || pi.optimized)) && !(trueSig && pi.optimized)
			if keep {
				if trueSig && pi.member >= 0 && hasName {
					pn += "__" + t.str(pi.member, dwarf.AttrName)
				}
				if trueSig && pi.memberApplied {
					typ = c.typeOf(pi.member)
				}
				st.Params = append(st.Params, FuncParam{strs.Append(pn), typ})
			}
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
		if unexpected && !structParam {
			st.Flags |= FuncUnexpected
		}
		if uncertainParamLoc(c, typeNodes, fc.abi.nRegs) {
			st.Flags |= FuncUncertain
		}
		if reordered {
			st.Flags |= FuncReordered
		}
		if optimized {
			st.Flags |= FuncOptimizedParms
		}
		if sig {
			st.Flags |= FuncSigChanged
		}
		fc.atSymbol(t, f, &st)
		states = append(states, st)
	}
	return states
}

// atSymbol compares the function's DW_AT_low_pc (0 if none) with its
// name's symbols: one at that address makes it the definition the linker
// kept (FuncAtSymbol), an .isra/.constprop one says its ABI changed, and
// with true_signature the first '.'-suffixed one names it.
func (fc *funcCtx) atSymbol(t *encTree, f int32, st *FuncState) {
	var addr uint64
	if at, ok := t.attr(f, dwarf.AttrLowpc); ok {
		if fc.rel {
			// pahole reads an ET_REL file through libdwfl, which
			// places its sections from 0x10000 up: a DW_AT_low_pc
			// there is never 0 and never equals a symbol's section
			// offset.
			st.Flags |= FuncHasAddr
			return
		}
		if a, err := at.Address(); err == nil {
			addr = a
		}
	}
	if addr != 0 {
		st.Flags |= FuncHasAddr
	}
	rank := 0
	fc.elfs.syms.each(st.Elf, func(s funcSym) bool {
		rank++
		if s.addr != addr {
			return true
		}
		st.Flags |= FuncAtSymbol
		if addr != 0 && s.optimized() {
			st.Flags |= FuncOptimizedSym
		}
		if fc.trueSig && addr != 0 && st.TrueSym == 0 && s.suffix != "" {
			st.TrueSym = uint16(min(rank, 0xffff))
		}
		return true
	})
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
