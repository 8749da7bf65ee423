package btf

import (
	"errors"
	"fmt"
	"strings"
)

// The second pass of the kernel's BTF verifier (btf_check_all_types): a
// depth-first walk over the types that refer to others, with an explicit
// stack of at most 32 entries, that finds loops and computes each type's
// resolved size. It is ported from kernel/bpf/btf.c closely, because what
// it accepts is subtle: a struct may reach itself through a pointer, but a
// chain of modifiers and pointers may not reach itself, nor may a struct or
// array contain itself by value.
//
// The resolve mode, set by the first type pushed, decides which types end
// the walk ("sinks"): below a pointer, anything but a modifier or pointer;
// below a struct or array, anything but a modifier, array or struct.

const (
	notVisited uint8 = iota
	visited
	resolvedState
)

type resolveMode uint8

const (
	modeTBD resolveMode = iota
	modePtr
	modeStructOrArray
)

// reachedType is a type's resolve state in a lazyMeta verifier.
type reachedType struct {
	visit uint8
	id    TypeID // resolved type id
	size  uint32 // resolved size
}

type vertex struct {
	id   TypeID
	next uint32 // next member or secinfo to look at
}

var (
	errLoop  = errors.New("loop")
	errDepth = errors.New("depth")
)

type verifier struct {
	s           *Spec
	base        *verifier
	ptrSize     uint32
	first, next TypeID

	visit   []uint8  // per local type
	resID   []TypeID // resolved type id (kernel resolved_ids)
	resSize []uint32 // resolved size of arrays (kernel resolved_sizes)
	identOK []uint64 // by string offset: a valid identifier (validIdentifier)

	// lazyMeta: checkMeta has not been run on every type up front
	// (trustedVerifier); push runs it on each type it pushes. The state
	// of the few types reached is kept in reached, not in visit, resID
	// and resSize (9 bytes for each of a vmlinux's 118k types).
	lazyMeta bool
	reached  map[TypeID]reachedType

	stack [maxResolveDeep]vertex
	top   int
	mode  resolveMode
	again TypeID // the type a loop led back to
}

func needsResolve(k Kind) bool {
	switch k {
	case KindTypedef, KindVolatile, KindConst, KindRestrict, KindTypeTag,
		KindPtr, KindStruct, KindUnion, KindArray, KindVar, KindFunc, KindDeclTag, KindDatasec:
		return true
	}
	return false
}

// sourceOnly kinds may not be referred to by other types' type ids.
func sourceOnly(k Kind) bool { return k == KindVar || k == KindDeclTag || k == KindDatasec }

// noSize kinds have no size (void is KindUnknown).
func noSize(k Kind) bool {
	return k == KindUnknown || k == KindFwd || k == KindFunc || k == KindFuncProto
}

func (v *verifier) exists(id TypeID) bool { return id < v.next }

func (v *verifier) kind(id TypeID) Kind { return v.s.Kind(id) }

func (v *verifier) resolved(id TypeID) bool {
	if id < v.first {
		return true
	}
	if v.lazyMeta {
		return v.reached[id].visit == resolvedState
	}
	return v.visit[id-v.first] == resolvedState
}

// resolvedID and resolvedSize are the kernel's btf_resolved_type_id/size.
func (v *verifier) resolvedID(id TypeID) TypeID {
	if id < v.first {
		if v.base == nil {
			return 0
		}
		return v.base.resolvedID(id)
	}
	if v.lazyMeta {
		return v.reached[id].id
	}
	return v.resID[id-v.first]
}

func (v *verifier) resolvedSize(id TypeID) uint32 {
	if id < v.first {
		if v.base == nil {
			return 0
		}
		return v.base.resolvedSize(id)
	}
	if v.lazyMeta {
		return v.reached[id].size
	}
	return v.resSize[id-v.first]
}

func (v *verifier) isSink(id TypeID) bool {
	k := v.kind(id)
	switch v.mode {
	case modePtr:
		return !k.IsModifier() && k != KindPtr
	case modeStructOrArray:
		return !k.IsModifier() && k != KindArray && k != KindStruct && k != KindUnion
	}
	return !needsResolve(k)
}

func (v *verifier) push(id TypeID) error {
	if v.top == maxResolveDeep {
		return errDepth
	}
	if v.lazyMeta {
		if v.reached[id].visit != notVisited {
			v.again = id
			return errLoop
		}
		if err := v.checkMeta(id); err != nil {
			return err
		}
		v.reached[id] = reachedType{visit: visited}
	} else {
		if v.visit[id-v.first] != notVisited {
			v.again = id
			return errLoop
		}
		v.visit[id-v.first] = visited
	}
	v.stack[v.top] = vertex{id: id}
	v.top++
	if v.mode == modeTBD {
		switch v.kind(id) {
		case KindPtr:
			v.mode = modePtr
		case KindStruct, KindUnion, KindArray:
			v.mode = modeStructOrArray
		}
	}
	return nil
}

func (v *verifier) popResolved(resID TypeID, size uint32) {
	v.top--
	if v.lazyMeta {
		v.reached[v.stack[v.top].id] = reachedType{resolvedState, resID, size}
		return
	}
	id := v.stack[v.top].id - v.first
	v.visit[id] = resolvedState
	v.resID[id] = resID
	v.resSize[id] = size
}

// idSize is btf_type_id_size: the type id that gives id its size (id
// itself, or what a modifier or var resolves to) and that size.
func (v *verifier) idSize(id TypeID) (TypeID, uint32, bool) {
	sized := func(id TypeID) (TypeID, uint32, bool) {
		if !v.exists(id) {
			return 0, 0, false
		}
		t := v.s.Type(id)
		k := t.Kind()
		switch {
		case noSize(k):
			return 0, 0, false
		case k.HasSize():
			return id, t.Size(), true
		case k == KindArray:
			return id, v.resolvedSize(id), true
		case k == KindPtr:
			return id, v.ptrSize, true
		}
		return 0, 0, false
	}
	if r, n, ok := sized(id); ok || !v.exists(id) || noSize(v.kind(id)) {
		return r, n, ok
	}
	if k := v.kind(id); !k.IsModifier() && k != KindVar {
		return 0, 0, false
	}
	return sized(v.resolvedID(id))
}

// resolve is btf_resolve for one top-level type.
func (v *verifier) resolve(id TypeID) error {
	v.mode = modeTBD
	v.top = 0
	if err := v.push(id); err == errLoop || err == errDepth {
		return v.errAt(id, "resolving: %v", err)
	} else if err != nil {
		return err
	}
	for v.top > 0 {
		vx := &v.stack[v.top-1]
		err := v.resolveOne(vx)
		switch {
		case err == errLoop:
			return v.errAt(id, "loop detected: %s -> [%d]", v.path(), v.again)
		case err == errDepth:
			return v.errAt(id, "exceeded max resolving depth %d: %s", maxResolveDeep, v.path())
		case err != nil:
			return err
		}
	}
	return nil
}

// path prints the resolve stack, for loop and depth errors.
func (v *verifier) path() string {
	var b strings.Builder
	for i := 0; i < v.top; i++ {
		if i > 0 {
			b.WriteString(" -> ")
		}
		id := v.stack[i].id
		fmt.Fprintf(&b, "[%d] %s", id, v.kind(id))
	}
	return b.String()
}

func (v *verifier) resolveOne(vx *vertex) error {
	switch k := v.kind(vx.id); {
	case k.IsModifier():
		return v.resolveRef(vx.id, false)
	case k == KindPtr:
		return v.resolveRef(vx.id, true)
	case k == KindVar:
		return v.resolveVar(vx.id)
	case k == KindArray:
		return v.resolveArray(vx.id)
	case k == KindStruct || k == KindUnion:
		return v.resolveStruct(vx)
	case k == KindDatasec:
		return v.resolveDatasec(vx)
	case k == KindFunc:
		if err := v.checkFunc(vx.id); err != nil {
			return err
		}
		v.popResolved(v.s.Type(vx.id).Ref(), 0)
		return nil
	case k == KindDeclTag:
		return v.resolveDeclTag(vx.id)
	}
	return v.errAt(vx.id, "cannot resolve kind %s", v.kind(vx.id))
}

// pushTarget pushes next if the walk must go on through it; it reports
// whether it did.
func (v *verifier) pushTarget(next TypeID) (bool, error) {
	if v.isSink(next) || v.resolved(next) {
		return false, nil
	}
	return true, v.push(next)
}

// resolveRef is btf_modifier_resolve (ptr false) and btf_ptr_resolve.
func (v *verifier) resolveRef(id TypeID, ptr bool) error {
	next := v.s.Type(id).Ref()
	if !v.exists(next) || sourceOnly(v.kind(next)) {
		return v.errAt(id, "invalid type_id %d%s", next, v.refDesc(next))
	}
	if pushed, err := v.pushTarget(next); pushed || err != nil {
		return err
	}
	if ptr && v.kind(next).IsModifier() {
		// Go on from the pointer the modifier chain resolved to, so that
		// it cannot lead back to this pointer.
		r := v.resolvedID(next)
		if v.kind(r) == KindPtr {
			if pushed, err := v.pushTarget(r); pushed || err != nil {
				return err
			}
		}
	}
	r, _, ok := v.idSize(next)
	if !ok {
		r = next
		if v.resolved(next) {
			r = v.resolvedID(next)
		}
		switch v.kind(r) {
		case KindUnknown, KindFwd, KindFuncProto:
		default:
			return v.errAt(id, "invalid type_id %d%s: %s has no size", next, v.refDesc(next), v.kind(r))
		}
	}
	v.popResolved(r, 0)
	return nil
}

func (v *verifier) refDesc(id TypeID) string {
	if !v.exists(id) {
		return fmt.Sprintf(" (out of range, last id %d)", v.next-1)
	}
	if id == 0 {
		return " (void)"
	}
	return fmt.Sprintf(" (%s)", v.kind(id))
}

func (v *verifier) resolveVar(id TypeID) error {
	next := v.s.Type(id).Ref()
	if !v.exists(next) || sourceOnly(v.kind(next)) {
		return v.errAt(id, "invalid type_id %d%s", next, v.refDesc(next))
	}
	if pushed, err := v.pushTarget(next); pushed || err != nil {
		return err
	}
	if v.kind(next).IsModifier() {
		r := v.resolvedID(next)
		if v.kind(r) == KindPtr {
			if pushed, err := v.pushTarget(r); pushed || err != nil {
				return err
			}
		}
	}
	r, _, ok := v.idSize(next)
	if !ok {
		return v.errAt(id, "invalid type_id %d%s: a variable needs a type with a size", next, v.refDesc(next))
	}
	v.popResolved(r, 0)
	return nil
}

func (v *verifier) resolveDeclTag(id TypeID) error {
	t := v.s.Type(id)
	next := t.Ref()
	if !v.exists(next) {
		return v.errAt(id, "invalid type_id %d%s", next, v.refDesc(next))
	}
	switch v.kind(next) {
	case KindFunc, KindStruct, KindUnion, KindVar, KindTypedef:
	default:
		return v.errAt(id, "type_id %d%s cannot carry a DECL_TAG", next, v.refDesc(next))
	}
	if pushed, err := v.pushTarget(next); pushed || err != nil {
		return err
	}
	if c := int32(v.s.Extra(id)[0]); c != -1 {
		nt := v.s.Type(next)
		var vlen uint32
		switch nt.Kind() {
		case KindVar, KindTypedef:
			return v.errAt(id, "component_idx %d on a %s (must be -1)", c, nt.Kind())
		case KindStruct, KindUnion:
			vlen = nt.Vlen()
		default:
			vlen = v.s.Type(nt.Ref()).Vlen()
		}
		if uint32(c) >= vlen {
			return v.errAt(id, "component_idx %d beyond the %d members/params of [%d]", c, vlen, next)
		}
	}
	v.popResolved(next, 0)
	return nil
}

// checkFunc is btf_func_check: a FUNC's type is a FUNC_PROTO whose
// parameters all have names.
func (v *verifier) checkFunc(id TypeID) error {
	p := v.s.Type(id).Ref()
	if !v.exists(p) || v.kind(p) != KindFuncProto {
		return v.errAt(id, "type_id %d%s is not a FUNC_PROTO", p, v.refDesc(p))
	}
	pt := v.s.Type(p)
	for i := 0; i < int(pt.Vlen()); i++ {
		if prm := v.s.Param(p, i); prm.NameOff == 0 && prm.Type != 0 {
			return v.errAt(id, "arg#%d of FUNC_PROTO [%d] has no name", i+1, p)
		}
	}
	return nil
}

// checkFuncProto is btf_func_proto_check.
func (v *verifier) checkFuncProto(id TypeID) error {
	t := v.s.Type(id)
	// arg is the parameter number from 1, 0 for the return type.
	check := func(ref TypeID, arg int) error {
		what := func() string {
			if arg == 0 {
				return "return type"
			}
			return fmt.Sprintf("arg#%d", arg)
		}
		if !v.exists(ref) || sourceOnly(v.kind(ref)) {
			return v.errAt(id, "invalid %s: type_id %d%s", what(), ref, v.refDesc(ref))
		}
		if needsResolve(v.kind(ref)) && !v.resolved(ref) {
			if err := v.resolve(ref); err != nil {
				return err
			}
		}
		if _, _, ok := v.idSize(ref); !ok {
			return v.errAt(id, "invalid %s: type_id %d%s has no size", what(), ref, v.refDesc(ref))
		}
		return nil
	}
	if t.Ref() != 0 {
		if err := check(t.Ref(), 0); err != nil {
			return err
		}
	}
	n := int(t.Vlen())
	if n == 0 {
		return nil
	}
	if last := v.s.Param(id, n-1); last.Type == 0 {
		if last.NameOff != 0 {
			return v.errAt(id, "arg#%d: vararg with a name", n)
		}
		n--
	}
	for i := 0; i < n; i++ {
		prm := v.s.Param(id, i)
		if prm.NameOff != 0 && (!v.nameOK(prm.NameOff) || !v.validIdentifier(prm.NameOff)) {
			return v.errAt(id, "arg#%d: invalid name", i+1)
		}
		if err := check(prm.Type, i+1); err != nil {
			return err
		}
	}
	return nil
}

// checkTypeTags is btf_check_type_tags: in a chain of modifiers, TYPE_TAGs
// come first. The kernel applies it to every BTF it loads (checked against
// Linux 6.18 by TestValidateVsKernel).
func (v *verifier) checkTypeTags() error {
	good := v.first - 1
	for i := v.first; i < v.next; i++ {
		t := v.s.Type(i)
		if !t.Kind().IsModifier() {
			continue
		}
		inTags := t.Kind() == KindTypeTag
		cur := i
		for limit := 32; t.Kind().IsModifier(); limit-- {
			if limit == 0 {
				return v.errAt(i, "modifier chain longer than 32 or a cycle")
			}
			if t.Kind() == KindTypeTag {
				if !inTags {
					return v.errAt(i, "TYPE_TAG [%d] after a non-tag modifier: type tags must precede modifiers", cur)
				}
			} else {
				inTags = false
			}
			if cur <= good {
				break
			}
			cur = t.Ref()
			if !v.exists(cur) {
				return v.errAt(i, "invalid type_id %d%s", cur, v.refDesc(cur))
			}
			t = v.s.Type(cur)
		}
		good = i
	}
	return nil
}
