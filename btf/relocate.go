package btf

import "fmt"

// Relocate re-bases split BTF made over a distilled base (an out-of-tree
// module's .BTF over its .BTF.base, see Distill) onto the full base BTF it
// was distilled from, as the kernel's btf_relocate does when the module
// loads: each distilled base type stands for the full base's first type of
// the same kind, name and size (an INT also of the same encoding; an ENUM
// for an ENUM or ENUM64 of that name and size; a FWD for a FWD of that name
// and kind flag), and the split's types follow the full base with their
// references and strings mapped. It is how `btfstream diff --base VMLINUX`
// compares two out-of-tree modules whose distilled bases differ.
//
// A distilled base type with no counterpart in full is an error naming it.
func Relocate(split, full *Spec) (*Spec, error) {
	dbase := split.Base()
	if dbase == nil {
		return nil, fmt.Errorf("btf: relocate: not split BTF")
	}
	if dbase.Base() != nil {
		return nil, fmt.Errorf("btf: relocate: the base is itself split")
	}
	// The full base's candidates by kind and name (anonymous types are
	// never in a distilled base).
	type key struct {
		kind Kind
		name string
	}
	byName := map[key][]TypeID{}
	for id := TypeID(1); id < full.NextID(); id++ {
		t := full.Type(id)
		if t.NameOff == 0 {
			continue
		}
		k := t.Kind()
		if k == KindEnum64 {
			k = KindEnum
		}
		kn := key{k, full.Name(id)}
		byName[kn] = append(byName[kn], id)
	}
	newID := make([]TypeID, split.NextID())
	for id := TypeID(1); id < dbase.NextID(); id++ {
		t := dbase.Type(id)
		k := t.Kind()
		if k == KindEnum64 {
			k = KindEnum
		}
		for _, c := range byName[key{k, dbase.Name(id)}] {
			ct := full.Type(c)
			switch k {
			case KindFwd:
				if ct.KindFlag() != t.KindFlag() {
					continue
				}
			case KindInt:
				if ct.Size() != t.Size() || full.Extra(c)[0] != dbase.Extra(id)[0] {
					continue
				}
			default:
				if ct.Size() != t.Size() {
					continue
				}
			}
			newID[id] = c
			break
		}
		if newID[id] == 0 {
			return nil, fmt.Errorf("btf: relocate: distilled base type [%d] %s '%s' size %d has no counterpart in the full base", id, t.Kind(), dbase.Name(id), t.Size())
		}
	}
	out := NewSplitSpec(full)
	out.Grow(split.Len(), 0)
	for id := split.FirstID(); id < split.NextID(); id++ {
		newID[id] = out.NextID() + (id - split.FirstID())
	}
	for id := split.FirstID(); id < split.NextID(); id++ {
		nid := out.Add(split.Type(id), split.Extra(id)...)
		out.ForEachRef(nid, func(ref *uint32) {
			if *ref != 0 && *ref < uint32(len(newID)) {
				*ref = uint32(newID[*ref])
			}
		})
		out.ForEachStr(nid, func(off *uint32) { *off = uint32(copyString(out, split, StrOff(*off))) })
	}
	return out, nil
}
