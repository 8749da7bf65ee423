package stream

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
)

// This file is the encoder's interim DIE source: it reads units with the
// standard library's debug/dwarf and hands the converter one unit at a
// time as a small tree (encTree). It holds the whole .debug_info in memory,
// so it is correct but not frugal; the converter only depends on encTree,
// so moving to this package's streaming unit decoder replaces this file.

// encNode is one DIE of a unit: the decoded entry and tree links (indices
// into encTree.nodes, -1 for none).
type encNode struct {
	e          *dwarf.Entry
	child, sib int32
}

// encTree is one unit's DIEs in file order; nodes[0] is the unit DIE.
type encTree struct {
	nodes []encNode
	byOff map[dwarf.Offset]int32
	lang  int64
	ver   int // DWARF version of the unit (0 if unknown)
	name  string
}

// encSource iterates the units of a file through debug/dwarf.
type encSource struct {
	d *dwarf.Data
	r *dwarf.Reader
}

func newEncSource(f *elf.File) (*encSource, error) {
	d, err := f.DWARF()
	if err != nil {
		return nil, err
	}
	return &encSource{d: d, r: d.Reader()}, nil
}

// next returns the next unit, or nil at the end.
func (s *encSource) next() (*encTree, error) {
	for {
		e, err := s.r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			return nil, nil
		}
		if e.Tag != dwarf.TagCompileUnit && e.Tag != dwarf.TagPartialUnit {
			// type units etc.: skip
			s.r.SkipChildren()
			continue
		}
		t := &encTree{byOff: make(map[dwarf.Offset]int32)}
		if v, ok := e.Val(dwarf.AttrLanguage).(int64); ok {
			t.lang = v
		}
		t.name, _ = e.Val(dwarf.AttrName).(string)
		t.add(e)
		if !e.Children {
			return t, nil
		}
		// stack of (node index, last child index)
		type frame struct{ parent, last int32 }
		stack := []frame{{0, -1}}
		for len(stack) > 0 {
			c, err := s.r.Next()
			if err != nil {
				return nil, err
			}
			if c == nil {
				return nil, fmt.Errorf("unexpected end of .debug_info in unit %q", t.name)
			}
			top := &stack[len(stack)-1]
			if c.Tag == 0 {
				stack = stack[:len(stack)-1]
				continue
			}
			i := t.add(c)
			if top.last < 0 {
				t.nodes[top.parent].child = i
			} else {
				t.nodes[top.last].sib = i
			}
			top.last = i
			if c.Children {
				stack = append(stack, frame{i, -1})
			}
		}
		return t, nil
	}
}

func (t *encTree) add(e *dwarf.Entry) int32 {
	i := int32(len(t.nodes))
	t.nodes = append(t.nodes, encNode{e: e, child: -1, sib: -1})
	t.byOff[e.Offset] = i
	return i
}

// Attribute helpers on a node.

func (t *encTree) tag(i int32) dwarf.Tag { return t.nodes[i].e.Tag }

func (t *encTree) str(i int32, a dwarf.Attr) string {
	s, _ := t.nodes[i].e.Val(a).(string)
	return s
}

func (t *encTree) has(i int32, a dwarf.Attr) bool { return t.nodes[i].e.AttrField(a) != nil }

func (t *encTree) flag(i int32, a dwarf.Attr) bool {
	f := t.nodes[i].e.AttrField(a)
	if f == nil {
		return false
	}
	if b, ok := f.Val.(bool); ok {
		return b
	}
	return true
}

// udata returns a constant attribute as libdw's dwarf_formudata would: data
// forms zero-extended, sdata sign-extended. ok is false for absent or
// non-constant attributes.
func (t *encTree) udata(i int32, a dwarf.Attr) (uint64, bool) {
	f := t.nodes[i].e.AttrField(a)
	if f == nil {
		return 0, false
	}
	switch v := f.Val.(type) {
	case int64:
		return uint64(v), true
	case uint64:
		return v, true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func (t *encTree) num(i int32, a dwarf.Attr) uint64 {
	v, _ := t.udata(i, a)
	return v
}

// ref returns the node a reference attribute points to, -1 if absent or
// outside the unit.
func (t *encTree) ref(i int32, a dwarf.Attr) int32 {
	off, ok := t.nodes[i].e.Val(a).(dwarf.Offset)
	if !ok {
		return -1
	}
	if j, ok := t.byOff[off]; ok {
		return j
	}
	return -1
}

// children calls fn for each child of i, in order.
func (t *encTree) children(i int32, fn func(c int32)) {
	for c := t.nodes[i].child; c >= 0; c = t.nodes[c].sib {
		fn(c)
	}
}

// where formats a DIE position the way pahole users know it.
func (t *encTree) where(i int32) string {
	return fmt.Sprintf("%s @ <%#x>", t.nodes[i].e.Tag, uint64(t.nodes[i].e.Offset))
}
