package main

import (
	"fmt"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elfwrite"
)

// writeDistilled writes a module's split BTF as pahole 1.31 does with
// --btf_features=distilled_base (kbuild asks for it in every M= build):
// the split BTF is re-based onto a distilled base (btf.Distill), which
// goes into .BTF.base beside it, so the kernel can relocate the module's
// BTF onto the vmlinux it is loaded into. Both sections are written in one
// replacement of the file. It returns the size of the new .BTF.
func writeDistilled(in string, spec *btf.Spec) (int, error) {
	base, split, err := btf.Distill(spec)
	if err != nil {
		return 0, fmt.Errorf("%s: distilled base: %w", in, err)
	}
	if err := split.Validate(); err != nil {
		return 0, fmt.Errorf("%s: BTF over the distilled base is invalid, nothing written: %w", in, err)
	}
	raw := split.Marshal()
	return len(raw), elfwrite.WriteSections(in,
		elfwrite.Section{Name: ".BTF", Data: raw},
		elfwrite.Section{Name: btf.BaseSection, Data: base.Marshal()})
}
