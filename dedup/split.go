package dedup

import (
	"fmt"

	"github.com/btfstream/btfstream/btf"
)

// SplitOnto deduplicates a module's standalone BTF (ids from 1, its own
// strings, already deduplicated) against base and returns split BTF over
// base: every module type equivalent to a base type is replaced by it, the
// rest continue after base's ids. The base is not changed.
//
// This is the order pahole follows for a .ko (encode the module, then one
// libbpf dedup with the base), and the one the encoder uses. Feeding the
// units straight against the base gives the same result (see the package
// documentation, "Modules"), but one pass over a deduplicated module (a
// few thousand types) costs milliseconds.
func SplitOnto(base, standalone *btf.Spec) (*btf.Spec, error) {
	if standalone.Base() != nil {
		return nil, fmt.Errorf("dedup: SplitOnto: input is already split BTF")
	}
	split := btf.NewSplitSpec(base)
	split.Grow(standalone.Len(), 0)
	shift := uint32(base.NextID() - 1)
	names := standalone.Strings()
	for id := standalone.FirstID(); id < standalone.NextID(); id++ {
		nid := split.Add(standalone.Type(id), standalone.Extra(id)...)
		split.ForEachStr(nid, func(off *uint32) {
			b, err := names.LookupBytes(btf.StrOff(*off))
			if err == nil {
				*off = uint32(split.Strings().AddBytes(b))
			}
		})
		split.ForEachRef(nid, func(ref *uint32) {
			if *ref != 0 {
				*ref += shift
			}
		})
	}
	out, _, err := Dedup(split)
	if err != nil {
		return nil, err
	}
	out.ByteOrder = standalone.ByteOrder
	return out, nil
}
