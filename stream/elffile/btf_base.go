package elffile

import (
	"github.com/btfstream/btfstream/btf"
)

// LoadDistilledBTF reads an out-of-tree module's distilled base (its
// .BTF.base section, see btf.Distill) and its .BTF as split BTF over it.
// The error wraps ErrNoSection when the file has no .BTF.base.
func LoadDistilledBTF(path string) (base, split *btf.Spec, err error) {
	raw, err := ReadNamedSection(path, btf.BaseSection)
	if err != nil {
		return nil, nil, err
	}
	if base, err = btf.Parse(raw, nil); err != nil {
		return nil, nil, &Error{File: path, Section: btf.BaseSection, Err: err}
	}
	if split, err = LoadBTF(path, base); err != nil {
		return nil, nil, err
	}
	return base, split, nil
}
