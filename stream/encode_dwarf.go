package stream

import (
	"debug/dwarf"
)

// encTree is the converter's view of one decoded unit: DIEs by index
// (TagID as int32, -1 for none) with the attribute helpers the pahole rules
// need. It wraps a *CU and copies nothing; it is valid until the CU is
// released.
type encTree struct {
	cu   *CU
	n    int
	lang int64
	name string
}

func newEncTree(cu *CU) *encTree {
	return &encTree{cu: cu, n: int(cu.Len()), lang: int64(cu.Language()), name: cu.Root().Name()}
}

func (t *encTree) die(i int32) DIE { return t.cu.DIE(TagID(i)) }

func (t *encTree) tag(i int32) dwarf.Tag { return t.die(i).Tag() }

func (t *encTree) attr(i int32, a dwarf.Attr) (Attr, bool) { return t.die(i).Attr(a) }

func (t *encTree) str(i int32, a dwarf.Attr) string {
	s, _ := t.die(i).AttrString(a)
	return s
}

func (t *encTree) has(i int32, a dwarf.Attr) bool {
	_, ok := t.attr(i, a)
	return ok
}

func (t *encTree) flag(i int32, a dwarf.Attr) bool {
	at, ok := t.attr(i, a)
	if !ok {
		return false
	}
	return at.Form == formFlagPresent || at.Val != 0
}

// udata returns a constant attribute as libdw's dwarf_formudata would: data
// forms zero-extended, sdata sign-extended. ok is false for absent or
// non-constant attributes.
func (t *encTree) udata(i int32, a dwarf.Attr) (uint64, bool) {
	at, ok := t.attr(i, a)
	if !ok {
		return 0, false
	}
	switch at.Class() {
	case dwarf.ClassConstant, dwarf.ClassFlag:
		if at.Form == formFlagPresent {
			return 1, true
		}
		return at.Val, true
	}
	return 0, false
}

func (t *encTree) num(i int32, a dwarf.Attr) uint64 {
	v, _ := t.udata(i, a)
	return v
}

// ref returns the DIE a reference attribute points to, -1 if absent or
// outside the unit.
func (t *encTree) ref(i int32, a dwarf.Attr) int32 {
	at, ok := t.attr(i, a)
	if !ok || at.Class() != dwarf.ClassReference {
		return -1
	}
	id, ok := t.cu.Lookup(at.Ref())
	if !ok {
		return -1
	}
	return int32(id)
}

func (t *encTree) hasChildren(i int32) bool { return t.die(i).FirstChild().ID() != NoTag }

// children calls fn for each child of i, in order.
func (t *encTree) children(i int32, fn func(c int32)) {
	for c := t.die(i).FirstChild(); c.ID() != NoTag; c = c.NextSibling() {
		fn(int32(c.ID()))
	}
}

// where formats a DIE position the way pahole users know it.
func (t *encTree) where(i int32) string { return t.die(i).String() }
