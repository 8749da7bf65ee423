package encode

import (
	"fmt"
	"strings"

	"github.com/btfstream/btfstream/stream/elffile"
)

// Kfunc markers of include/linux/btf_ids.h and include/linux/btf.h.
const (
	btfIDsSection = ".BTF_ids"
	btfIDSet8Pfx  = "__BTF_ID__set8__"
	btfIDFuncPfx  = "__BTF_ID__func__"
	btfSet8Kfuncs = 1 << 0
)

// kfuncName extracts vfs_close from __BTF_ID__func__vfs_close__1.
func kfuncName(sym string) (string, bool) {
	if !strings.HasPrefix(sym, btfIDFuncPfx) {
		return "", false
	}
	s := sym[len(btfIDFuncPfx):]
	if !strings.Contains(s, "__") {
		return "", false
	}
	i := strings.LastIndexByte(s, '_')
	if i < 1 || s[i-1] != '_' {
		return "", false
	}
	return s[:i-1], true
}

// MarkKfuncs flags the functions listed in BTF_SET8 sets marked
// BTF_SET8_KFUNCS, with the flags word of their (id, flags) pair, as
// pahole's btf_encoder__collect_kfuncs does. .BTF_ids is small (a few
// KiB) and read whole, unrelocated, as pahole (libelf) sees it. The
// .BTF_ids symbols are dropped afterwards.
func MarkKfuncs(f *elffile.File, es *Symbols) error {
	defer func() { es.btfIDs = nil }() // not needed after this
	sec, ok := f.Section(btfIDsSection)
	if !ok || !es.any {
		return nil
	}
	data, err := f.ReadSectionRaw(sec)
	if err != nil {
		return err
	}
	order := f.Order
	word := func(off uint64) (uint32, bool) {
		if off+4 > uint64(len(data)) || off+4 < off {
			return 0, false
		}
		return order.Uint32(data[off:]), true
	}
	type span struct{ lo, hi uint64 }
	var sets []span
	for _, s := range es.btfIDs {
		if !strings.HasPrefix(s.name, btfIDSet8Pfx) {
			continue
		}
		flags, ok := word(s.value - sec.Addr + 4)
		if ok && flags&btfSet8Kfuncs != 0 {
			sets = append(sets, span{s.value, s.value + s.siz})
		}
	}
	for _, s := range es.btfIDs {
		name, ok := kfuncName(s.name)
		if !ok {
			continue
		}
		for _, r := range sets {
			if r.lo <= s.value && s.value < r.hi {
				flags, ok := word(s.value - sec.Addr + 4)
				if !ok {
					return &elffile.Error{File: f.Name(), Section: btfIDsSection, Offset: s.value - sec.Addr + 4,
						Msg: fmt.Sprintf("flags of kfunc %q outside the section", name), Err: elffile.ErrFormat}
				}
				if i := es.funcs.find(name); i >= 0 {
					es.funcs.markKfunc(i, flags)
				}
				break
			}
		}
	}
	return nil
}
