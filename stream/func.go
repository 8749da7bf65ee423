package stream

import (
	"debug/dwarf"
	"slices"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
)

// funcParam is one saved parameter: a string offset and a type id.
type funcParam struct {
	name btf.StrOff
	typ  btf.TypeID
}

// funcAnnot is a saved btf_decl_tag of a function or one of its
// parameters (comp -1 for the function).
type funcAnnot struct {
	value btf.StrOff
	comp  int32
}

// funcState is what pahole keeps of a function between units (its
// btf_encoder_func_state): ids and string offsets only, so the unit's
// DIEs can be freed once it is converted.
type funcState struct {
	elf        uint32 // index into elfFuncs
	seq        uint32 // save order, for a stable merge
	ret        btf.TypeID
	params     []funcParam
	annots     []funcAnnot
	unexpected bool
	uncertain  bool
}

// funcCtx is the per-file state for functions.
type funcCtx struct {
	elfs     *elfFuncs
	locs     *locLists
	nRegs    int
	regs     [8]int
	v5       bool
	states   []funcState // saved from the unit being converted
	store    *funcStore  // saved from finished units, ids remapped
	declTags bool
	// arenaAttrs: the attributes feature with decl_tag_kfuncs (arenaProto).
	arenaAttrs bool
	// strs holds the names and annotation values of saved states: batch
	// string offsets do not survive deduplication.
	strs *btf.Strings
}

// remap rewrites the type ids of the states saved since state k0 from
// batch ids to table ids and moves them to the store.
func (fc *funcCtx) remap(k0 int, r dedup.Remap) error {
	for i := k0; i < len(fc.states); i++ {
		s := &fc.states[i]
		s.ret = r.Map(s.ret)
		for j := range s.params {
			s.params[j].typ = r.Map(s.params[j].typ)
		}
		if fc.store != nil {
			if err := fc.store.put(s); err != nil {
				return err
			}
		}
	}
	if fc.store != nil {
		clear(fc.states[k0:])
		fc.states = fc.states[:k0]
	}
	return nil
}

// paramInfo is pahole's per-parameter location verdict.
type paramInfo struct {
	hasLoc, optimized, unexpected bool
}

// saveFuncs records the functions of a converted unit that have an ELF
// symbol, as btf_encoder__encode_cu + btf_encoder__save_func do.
func (fc *funcCtx) saveFuncs(c *cuConv, cuNode int32) {
	t := c.t
	if fc.elfs == nil || fc.elfs.len() == 0 {
		return
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
	strs := fc.strs
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
		st := funcState{elf: uint32(e), seq: uint32(len(fc.states))}
		if t.has(f, dwarf.AttrType) {
			st.ret = c.typeOf(f)
		} else if o := t.ref(f, dwarf.AttrAbstractOrigin); o >= 0 {
			st.ret = c.typeOf(o)
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
			case tagLLVMAnnotation:
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
			st.params = append(st.params, funcParam{strs.Add(pn), typ})
			t.children(p, func(a int32) { fc.annot(t, a, idx, &st, strs) })
			idx++
		})
		if !ok {
			continue
		}
		if unspec {
			st.params = append(st.params, funcParam{})
		}
		st.unexpected = unexpected && !structParam
		st.uncertain = uncertainParamLoc(c, typeNodes, fc.nRegs)
		fc.states = append(fc.states, st)
	}
}

func (fc *funcCtx) annot(t *encTree, a int32, comp int32, st *funcState, strs *btf.Strings) {
	if !fc.declTags || t.tag(a) != tagLLVMAnnotation || t.str(a, dwarf.AttrName) != "btf_decl_tag" {
		return
	}
	st.annots = append(st.annots, funcAnnot{strs.Add(t.str(a, dwarf.AttrConstValue)), comp})
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
			o, ok := fc.locs.loclistsOffset(base, off)
			if !ok {
				pi.optimized = true
				return
			}
			off, v5 = o, true
		}
		each = func(fn func([]byte) bool) { fc.locs.exprs(off, v5, fn) }
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

// funcBatchTypes is how many types the function batches hold before they
// go to dedup: one batch for all functions would make the final AddBatch
// the peak of the run (its state grows with the batch).
const funcBatchTypes = 4096

// emitFuncs merges the saved states by name and appends FUNC_PROTO, FUNC
// and DECL_TAG types for the functions kept, in name order, as pahole's
// btf_encoder__add_saved_funcs, in batches of about funcBatchTypes types
// added to d. It returns how many FUNCs were added and how many names
// were dropped, and the last batch, still open (DATASECs follow).
func (fc *funcCtx) emitFuncs(d typeSink, consistent, kfuncTags bool) (batch *btf.Spec, added, dropped int, err error) {
	batch = d.NewBatch()
	emit := func(st []funcState) error {
		var a, dr int
		a, dr, batch, err = fc.emitStates(st, d, batch, consistent, kfuncTags)
		added += a
		dropped += dr
		return err
	}
	if fc.store != nil {
		err = fc.store.windows(emit)
	} else {
		slices.SortStableFunc(fc.states, func(a, b funcState) int { return int(a.elf) - int(b.elf) })
		err = emit(fc.states)
	}
	fc.states = nil
	return batch, added, dropped, err
}

// emitStates handles states sorted by ELF name, all states of a name
// together, adding to out and handing it to d when it is full.
func (fc *funcCtx) emitStates(st []funcState, d typeSink, out *btf.Spec, consistent, kfuncTags bool) (added, dropped int, _ *btf.Spec, _ error) {
	types := d.Table()
	strs := out.Strings()
	for i := 0; i < len(st); {
		if out.Len() >= funcBatchTypes {
			if _, err := d.AddBatch(out); err != nil {
				return added, dropped, out, err
			}
			out = d.NewBatch()
			strs = out.Strings()
		}
		j := i + 1
		unexpected, inconsistent, uncertain := st[i].unexpected, false, st[i].uncertain
		for ; j < len(st) && st[j].elf == st[i].elf; j++ {
			unexpected = unexpected || st[j].unexpected
			uncertain = uncertain || st[j].uncertain
			if !unexpected && !inconsistent && !funcsMatch(types, &st[i], &st[j]) {
				inconsistent = true
			}
		}
		s := &st[i]
		ef := &fc.elfs.recs[s.elf]
		keep := !consistent || (!unexpected && !inconsistent && !uncertain && ef.flags&funcAmbiguous == 0)
		i = j
		if !keep {
			dropped++
			continue
		}
		ret, params := s.ret, s.params
		if fc.arenaAttrs && ef.flags&funcKfunc != 0 {
			var err error
			if ret, params, err = arenaProto(out, string(fc.elfs.nameBytes(int(s.elf))), ef.aux, ret, params); err != nil {
				return added, dropped, out, err
			}
		}
		words := make([]uint32, 0, 2*len(params))
		for _, p := range params {
			words = append(words, uint32(strs.Add(fc.strs.Name(p.name))), uint32(p.typ))
		}
		proto := out.Add(btf.Type{Info: btf.MakeInfo(btf.KindFuncProto, uint32(len(params)), false), SizeOrType: uint32(ret)}, words...)
		fn := out.Add(btf.Type{NameOff: strs.AddBytes(fc.elfs.nameBytes(int(s.elf))), Info: btf.MakeInfo(btf.KindFunc, btf.LinkageStatic, false), SizeOrType: uint32(proto)})
		added++
		if ef.flags&funcKfunc != 0 && kfuncTags {
			out.Add(btf.Type{NameOff: strs.Add(kfuncDeclTag), Info: btf.MakeInfo(btf.KindDeclTag, 0, false), SizeOrType: uint32(fn)}, ^uint32(0))
			if ef.aux&kfFastcall != 0 {
				out.Add(btf.Type{NameOff: strs.Add(fastcallDeclTg), Info: btf.MakeInfo(btf.KindDeclTag, 0, false), SizeOrType: uint32(fn)}, ^uint32(0))
			}
		}
		for _, a := range s.annots {
			out.Add(btf.Type{NameOff: strs.Add(fc.strs.Name(a.value)), Info: btf.MakeInfo(btf.KindDeclTag, 0, false), SizeOrType: uint32(fn)}, uint32(a.comp))
		}
	}
	return added, dropped, out, nil
}

// funcsMatch is pahole's funcs__match.
func funcsMatch(s *btf.Spec, a, b *funcState) bool {
	if len(a.params) != len(b.params) {
		return false
	}
	if !typesMatch(s, a.ret, b.ret) {
		return false
	}
	for i := range a.params {
		if !typesMatch(s, a.params[i].typ, b.params[i].typ) {
			return false
		}
	}
	return true
}

// fwdKind maps a FWD to the kind it declares.
func fwdKind(t btf.Type) btf.Kind {
	if t.Kind() == btf.KindFwd {
		if t.KindFlag() {
			return btf.KindUnion
		}
		return btf.KindStruct
	}
	return t.Kind()
}

// typesMatch is pahole's loose types__match: names for named types,
// structure for references, const ignored on either side.
func typesMatch(s *btf.Spec, id1, id2 btf.TypeID) bool {
	for n := 0; n < 1000; n++ {
		if id1 == id2 {
			return true
		}
		if id1 == 0 || id2 == 0 {
			return false
		}
		t1, t2 := s.Type(id1), s.Type(id2)
		k1, k2 := fwdKind(t1), fwdKind(t2)
		if k1 != k2 {
			if k1 == btf.KindConst {
				id1 = t1.Ref()
				continue
			}
			if k2 == btf.KindConst {
				id2 = t2.Ref()
				continue
			}
			return false
		}
		switch k1 {
		case btf.KindInt:
			if t1.Size() != t2.Size() || s.Extra(id1)[0] != s.Extra(id2)[0] {
				return false
			}
			return s.Name(id1) == s.Name(id2)
		case btf.KindFloat:
			return t1.Size() == t2.Size() && s.Name(id1) == s.Name(id2)
		case btf.KindTypedef, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64:
			return t1.NameOff == t2.NameOff || s.Name(id1) == s.Name(id2)
		case btf.KindPtr, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
			id1, id2 = t1.Ref(), t2.Ref()
		case btf.KindArray:
			a1, a2 := s.Array(id1), s.Array(id2)
			if a1.Nelems != a2.Nelems {
				return false
			}
			id1, id2 = a1.Type, a2.Type
		case btf.KindFuncProto:
			if t1.Vlen() != t2.Vlen() {
				return false
			}
			// pahole compares the return types once per parameter.
			return typesMatch(s, t1.Ref(), t2.Ref())
		default:
			return false
		}
	}
	return false
}
