package merge

import (
	"bytes"
	"errors"
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
	// aside: the states are read and chosen on a goroutine of their own
	// (emitAside).
	aside   bool
	nameBuf []byte // a function's name (Symbols.Func)
	cum     []encode.FuncFlags
	part    []encode.FuncState // scratch of addrFirst
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

// funcOpts are the features the function merge follows.
type funcOpts struct {
	consistent bool // consistent_func: drop names whose prototypes differ
	kfuncTags  bool // decl_tag_kfuncs (with decl_tag)
	trueSig    bool // true_signature
}

// emitFuncs merges the saved states by name and appends FUNC_PROTO, FUNC
// and DECL_TAG types for the functions kept, in name order, as pahole's
// btf_encoder__add_saved_funcs, in batches of about funcBatchTypes types
// added to d. It returns how many FUNCs were added and how many names
// were dropped, and the last batch, still open (DATASECs follow).
func (fc *funcMerge) emitFuncs(d typeSink, o funcOpts) (batch *btf.Spec, added, dropped int, err error) {
	batch = d.NewBatch()
	emit := func(st []encode.FuncState) error {
		var a, dr int
		a, dr, batch, err = fc.emitStates(st, d, batch, o)
		added += a
		dropped += dr
		return err
	}
	if fc.store != nil && fc.aside {
		return fc.emitAside(d, batch, o)
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

// asideChunk is how many choices emitAside's reader hands over at once.
const asideChunk = 256

// emitAside is emitFuncs with the store's states read and chosen (choose,
// against a view of the table as it is before the first FUNC) on a
// goroutine of its own, while this one adds the choices' types and hands
// the batches to d: the two halves of the merge overlap. The choices and
// batches are the same as emitFuncs makes on one goroutine.
func (fc *funcMerge) emitAside(d typeSink, batch *btf.Spec, o funcOpts) (_ *btf.Spec, added, dropped int, err error) {
	types := d.Table().View()
	chunks := make(chan []funcChoice, 2)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(chunks)
		var buf []funcChoice
		send := func() bool {
			select {
			case chunks <- buf:
				buf = nil
				return true
			case <-stop:
				return false
			}
		}
		readErr = fc.store.windows(func(st []encode.FuncState) error {
			return fc.choose(types, st, o, func(c funcChoice) error {
				buf = append(buf, c.clone())
				if len(buf) == asideChunk && !send() {
					return errAsideStopped
				}
				return nil
			})
		})
		if readErr == nil && len(buf) > 0 {
			send()
		}
	}()
	for chunk := range chunks {
		for _, c := range chunk {
			var a int
			if a, batch, err = fc.addChoice(c, d, batch, o); err != nil {
				close(stop)
				for range chunks {
				}
				return batch, added, dropped, err
			}
			added += a
			if c.drop {
				dropped++
			}
		}
	}
	return batch, added, dropped, readErr
}

// errAsideStopped ends emitAside's reader when the adding side failed.
var errAsideStopped = errors.New("function merge stopped")

// clone returns c with its state and name copied out of the buffers
// choose reuses.
func (c funcChoice) clone() funcChoice {
	c.sym.Name = bytes.Clone(c.sym.Name)
	if c.s != nil {
		s := *c.s
		s.Params = slices.Clone(s.Params)
		s.Annots = slices.Clone(s.Annots)
		c.s = &s
	}
	return c
}

// skipOptimized is pahole 1.32's rule for functions with optimized-out
// parameters: they are kept (callers still pass every argument) unless
// the compiler changed the ABI (clang's DW_CC_nocall, or an .isra or
// .constprop symbol at the function's address), which BTF cannot say
// without true_signature.
func skipOptimized(s *encode.FuncState, o funcOpts) bool {
	return !o.trueSig && s.Flags.Has(encode.FuncOptimizedParms) &&
		(s.Flags.Has(encode.FuncSigChanged) || s.Flags.Has(encode.FuncOptimizedSym))
}

// groupVerdict merges the states of one name as pahole 1.32's
// saved_functions_combine does, in save order: the verdicts of the first
// k+1 states accumulate in state k (all of them in state 0), and a
// prototype that differs from the first state's makes the name
// inconsistent unless an unexpected register or reordered parameters
// already explain it. With true_signature, when the first state has an
// address (addrFirst), states without one (abstract instances, inlined
// copies) are not compared: read from pahole 1.32's output and -V log on
// the 7.2 vmlinux, where 25 names whose other copies differ (bq_enqueue,
// memchr, native_save_fl, ...) are kept only with true_signature, while
// names with no out-of-line copy at all are still compared. It returns
// the accumulated flags per state in cum (reused) and whether the name
// is inconsistent.
func groupVerdict(types *btf.Spec, g []encode.FuncState, cum []encode.FuncFlags, trueSig bool) ([]encode.FuncFlags, bool) {
	const acc = encode.FuncUnexpected | encode.FuncUncertain | encode.FuncReordered
	cum = cum[:0]
	all := g[0].Flags & acc
	inconsistent := false
	cum = append(cum, 0)
	for k := 1; k < len(g); k++ {
		all |= g[k].Flags & acc
		cum = append(cum, all)
		if trueSig && g[0].Flags.Has(encode.FuncHasAddr) && !g[k].Flags.Has(encode.FuncHasAddr) {
			continue
		}
		if all&(encode.FuncUnexpected|encode.FuncReordered) == 0 && !inconsistent && !funcsMatch(types, &g[0], &g[k]) {
			inconsistent = true
		}
	}
	cum[0] = all
	return cum, inconsistent
}

// canonical is pahole 1.32's btf_encoder__select_canonical_state: of the
// states at one of the name's symbol addresses (the definition the
// linker kept, not a weak one it dropped), the first whose optimized
// parameters do not drop it, else the first of them, else the first.
func canonical(g []encode.FuncState, o funcOpts) int {
	if len(g) == 1 {
		return 0
	}
	first := -1
	for k := range g {
		if !g[k].Flags.Has(encode.FuncAtSymbol) {
			continue
		}
		if first < 0 {
			first = k
		}
		if !skipOptimized(&g[k], o) {
			return k
		}
	}
	return max(first, 0)
}

// addrFirst puts the states of one name that have an address (out-of-line
// code, DW_AT_low_pc) before those that do not (abstract instances of
// inline functions), each in save order, as pahole 1.32 orders a name's
// saved states (16309722: the first state of a name has a non-zero
// address). Read from 1.32's output with true_signature on the 7.2
// vmlinux: __refcount_add.constprop.0 is io_uring.c's copy, which only
// this order lets through (an earlier abstract instance with an
// unexpected register would spoil it).
func (fc *funcMerge) addrFirst(g []encode.FuncState) {
	n := 0
	for k := range g {
		if g[k].Flags.Has(encode.FuncHasAddr) {
			n++
		}
	}
	if n == 0 || n == len(g) {
		return
	}
	fc.part = append(fc.part[:0], g...)
	a, b := 0, n
	for k := range fc.part {
		if fc.part[k].Flags.Has(encode.FuncHasAddr) {
			g[a] = fc.part[k]
			a++
		} else {
			g[b] = fc.part[k]
			b++
		}
	}
}

// pick decides which of a name's states (in save order) becomes its
// FUNC, as pahole 1.32's btf_encoder__add_saved_funcs: with
// true_signature, the first state at a '.'-suffixed symbol whose
// registers can be trusted, under that symbol's name (trueSig), whatever
// else is wrong with the name; otherwise the canonical state, unless an
// unexpected register, a packed struct on the stack, reordered
// parameters, optimized parameters of a changed ABI, differing
// prototypes (consistent_func) or symbols at different addresses
// (ambiguous) drop the name (k -1). cum is scratch, returned for reuse.
func pick(types *btf.Spec, g []encode.FuncState, cum []encode.FuncFlags, ambiguous bool, o funcOpts) (k int, trueSig bool, _ []encode.FuncFlags) {
	cum, inconsistent := groupVerdict(types, g, cum, o.trueSig)
	if o.trueSig {
		for k := range g {
			if g[k].TrueSym != 0 && cum[k]&(encode.FuncUnexpected|encode.FuncUncertain) == 0 {
				return k, true, cum
			}
		}
	}
	c := canonical(g, o)
	if cum[0]&(encode.FuncUnexpected|encode.FuncUncertain|encode.FuncReordered) != 0 ||
		(o.consistent && inconsistent) || skipOptimized(&g[c], o) || ambiguous {
		return -1, false, cum
	}
	return c, false, cum
}

// funcChoice is what pick made of one name's states: the state whose
// FUNC is added, under sym.Name (the suffixed symbol's name if trueSig),
// or drop.
type funcChoice struct {
	s       *encode.FuncState
	sym     encode.FuncSym
	trueSig bool
	drop    bool
}

// choose runs pick over states sorted by ELF name, all states of a name
// together, reading their types in types, and calls emit with each name's
// choice in order; a choice's slices are valid only during the call.
func (fc *funcMerge) choose(types *btf.Spec, st []encode.FuncState, o funcOpts, emit func(funcChoice) error) error {
	for i := 0; i < len(st); {
		j := i + 1
		for j < len(st) && st[j].Elf == st[i].Elf {
			j++
		}
		g := st[i:j]
		i = j
		fc.addrFirst(g)
		sym := fc.syms.Func(g[0].Elf, fc.nameBuf)
		fc.nameBuf = sym.Name
		var k int
		var trueSig bool
		k, trueSig, fc.cum = pick(types, g, fc.cum, sym.Ambiguous, o)
		c := funcChoice{sym: sym, trueSig: trueSig, drop: k < 0}
		if k >= 0 {
			c.s = &g[k]
		}
		if trueSig {
			fc.nameBuf = fc.syms.TrueName(g[k].Elf, int(g[k].TrueSym)-1, fc.nameBuf)
			c.sym.Name = fc.nameBuf
		}
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

// emitStates adds the FUNCs the names of states sorted by ELF name make
// (choose, addChoice), reading their types in d's table.
func (fc *funcMerge) emitStates(st []encode.FuncState, d typeSink, out *btf.Spec, o funcOpts) (added, dropped int, _ *btf.Spec, _ error) {
	err := fc.choose(d.Table(), st, o, func(c funcChoice) error {
		var err error
		var a int
		a, out, err = fc.addChoice(c, d, out, o)
		added += a
		if c.drop {
			dropped++
		}
		return err
	})
	return added, dropped, out, err
}

// addChoice appends one name's FUNC (nothing if c.drop) with its
// FUNC_PROTO and DECL_TAGs to out, after handing out to d if it is full,
// and returns how many FUNCs it added and the batch now open.
func (fc *funcMerge) addChoice(c funcChoice, d typeSink, out *btf.Spec, o funcOpts) (int, *btf.Spec, error) {
	if out.Len() >= funcBatchTypes {
		if _, err := d.AddBatch(out); err != nil {
			return 0, out, err
		}
		out = d.NewBatch()
	}
	if c.drop {
		return 0, out, nil
	}
	s, sym := c.s, c.sym
	if c.trueSig {
		_, err := fc.addFunc(out, s, sym.Name, s.Ret, s.Params)
		return 1, out, err
	}
	ret, params := s.Ret, s.Params
	if fc.arenaAttrs && sym.Kfunc {
		var err error
		if ret, params, err = arenaProto(out, string(sym.Name), sym.KfuncFlags, ret, params); err != nil {
			return 0, out, err
		}
	}
	fn, err := fc.addFunc(out, s, sym.Name, ret, params)
	if err != nil {
		return 0, out, err
	}
	if sym.Kfunc && o.kfuncTags {
		strs := out.Strings()
		out.Add(btf.Type{NameOff: strs.Add(kfuncDeclTag), Info: btf.MakeInfo(btf.KindDeclTag, 0, false), SizeOrType: uint32(fn)}, ^uint32(0))
		if sym.KfuncFlags&kfFastcall != 0 {
			out.Add(btf.Type{NameOff: strs.Add(fastcallDeclTg), Info: btf.MakeInfo(btf.KindDeclTag, 0, false), SizeOrType: uint32(fn)}, ^uint32(0))
		}
	}
	return 1, out, nil
}

// addFunc appends s's FUNC_PROTO (ret, params), its FUNC named name and
// the DECL_TAGs of its annotations, and returns the FUNC's id.
func (fc *funcMerge) addFunc(out *btf.Spec, s *encode.FuncState, name []byte, ret btf.TypeID, params []encode.FuncParam) (btf.TypeID, error) {
	strs := out.Strings()
	words := make([]uint32, 0, 2*len(params))
	for _, p := range params {
		words = append(words, uint32(strs.Add(fc.strs.Name(p.Name))), uint32(p.Type))
	}
	proto := out.Add(btf.Type{Info: btf.MakeInfo(btf.KindFuncProto, uint32(len(params)), false), SizeOrType: uint32(ret)}, words...)
	fn := out.Add(btf.Type{NameOff: strs.AddBytes(name), Info: btf.MakeInfo(btf.KindFunc, btf.LinkageStatic, false), SizeOrType: uint32(proto)})
	for _, a := range s.Annots {
		out.Add(btf.Type{NameOff: strs.Add(fc.strs.Name(a.Value)), Info: btf.MakeInfo(btf.KindDeclTag, 0, false), SizeOrType: uint32(fn)}, uint32(a.Comp))
	}
	return fn, nil
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
			if !typesMatch(s, t1.Ref(), t2.Ref()) {
				return false
			}
			for i := range int(t1.Vlen()) {
				if !typesMatch(s, s.Param(id1, i).Type, s.Param(id2, i).Type) {
					return false
				}
			}
			return true
		default:
			return false
		}
	}
	return false
}
