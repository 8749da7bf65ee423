package merge

import (
	"slices"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/encode"
)

// funcMerge keeps the saved function states of finished units (ids
// remapped to table ids) and, after the last unit, merges them by name
// into FUNC_PROTO, FUNC and DECL_TAG types.
type funcMerge struct {
	syms  *encode.Symbols
	strs  *btf.Strings // names of saved states (the encoder's FuncStrings)
	store *funcStore   // nil: states stays in memory (tests)
	// states holds the states when there is no store.
	states []encode.FuncState
	// arenaAttrs: the attributes feature with decl_tag_kfuncs (arenaProto).
	arenaAttrs bool
	nameBuf    []byte // a function's name (Symbols.Func)
}

// add rewrites a unit's states from its batch's ids and strings (strs) to
// table ids (through table) and fm's strings, and keeps them.
func (fm *funcMerge) add(states []encode.FuncState, strs *btf.Strings, table func(btf.TypeID) btf.TypeID) error {
	str := func(off btf.StrOff) btf.StrOff {
		b, _ := strs.LookupBytes(off)
		return fm.strs.AddBytes(b)
	}
	for i := range states {
		s := &states[i]
		s.Ret = table(s.Ret)
		for j := range s.Params {
			s.Params[j].Type = table(s.Params[j].Type)
			s.Params[j].Name = str(s.Params[j].Name)
		}
		for j := range s.Annots {
			s.Annots[j].Value = str(s.Annots[j].Value)
		}
		if fm.store != nil {
			if err := fm.store.put(s); err != nil {
				return err
			}
		} else {
			fm.states = append(fm.states, *s)
		}
	}
	return nil
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
func (fc *funcMerge) emitFuncs(d typeSink, consistent, kfuncTags bool) (batch *btf.Spec, added, dropped int, err error) {
	batch = d.NewBatch()
	emit := func(st []encode.FuncState) error {
		var a, dr int
		a, dr, batch, err = fc.emitStates(st, d, batch, consistent, kfuncTags)
		added += a
		dropped += dr
		return err
	}
	if fc.store != nil {
		err = fc.store.windows(emit)
	} else {
		slices.SortStableFunc(fc.states, func(a, b encode.FuncState) int { return int(a.Elf) - int(b.Elf) })
		err = emit(fc.states)
	}
	fc.states = nil
	return batch, added, dropped, err
}

// emitStates handles states sorted by ELF name, all states of a name
// together, adding to out and handing it to d when it is full.
func (fc *funcMerge) emitStates(st []encode.FuncState, d typeSink, out *btf.Spec, consistent, kfuncTags bool) (added, dropped int, _ *btf.Spec, _ error) {
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
		unexpected, inconsistent, uncertain := st[i].Unexpected, false, st[i].Uncertain
		for ; j < len(st) && st[j].Elf == st[i].Elf; j++ {
			unexpected = unexpected || st[j].Unexpected
			uncertain = uncertain || st[j].Uncertain
			if !unexpected && !inconsistent && !funcsMatch(types, &st[i], &st[j]) {
				inconsistent = true
			}
		}
		s := &st[i]
		sym := fc.syms.Func(s.Elf, fc.nameBuf)
		fc.nameBuf = sym.Name
		keep := !consistent || (!unexpected && !inconsistent && !uncertain && !sym.Ambiguous)
		i = j
		if !keep {
			dropped++
			continue
		}
		ret, params := s.Ret, s.Params
		if fc.arenaAttrs && sym.Kfunc {
			var err error
			if ret, params, err = arenaProto(out, string(sym.Name), sym.KfuncFlags, ret, params); err != nil {
				return added, dropped, out, err
			}
		}
		words := make([]uint32, 0, 2*len(params))
		for _, p := range params {
			words = append(words, uint32(strs.Add(fc.strs.Name(p.Name))), uint32(p.Type))
		}
		proto := out.Add(btf.Type{Info: btf.MakeInfo(btf.KindFuncProto, uint32(len(params)), false), SizeOrType: uint32(ret)}, words...)
		fn := out.Add(btf.Type{NameOff: strs.AddBytes(sym.Name), Info: btf.MakeInfo(btf.KindFunc, btf.LinkageStatic, false), SizeOrType: uint32(proto)})
		added++
		if sym.Kfunc && kfuncTags {
			out.Add(btf.Type{NameOff: strs.Add(kfuncDeclTag), Info: btf.MakeInfo(btf.KindDeclTag, 0, false), SizeOrType: uint32(fn)}, ^uint32(0))
			if sym.KfuncFlags&kfFastcall != 0 {
				out.Add(btf.Type{NameOff: strs.Add(fastcallDeclTg), Info: btf.MakeInfo(btf.KindDeclTag, 0, false), SizeOrType: uint32(fn)}, ^uint32(0))
			}
		}
		for _, a := range s.Annots {
			out.Add(btf.Type{NameOff: strs.Add(fc.strs.Name(a.Value)), Info: btf.MakeInfo(btf.KindDeclTag, 0, false), SizeOrType: uint32(fn)}, uint32(a.Comp))
		}
	}
	return added, dropped, out, nil
}

// funcsMatch is pahole's funcs__match.
func funcsMatch(s *btf.Spec, a, b *encode.FuncState) bool {
	if len(a.Params) != len(b.Params) {
		return false
	}
	if !typesMatch(s, a.Ret, b.Ret) {
		return false
	}
	for i := range a.Params {
		if !typesMatch(s, a.Params[i].Type, b.Params[i].Type) {
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
