package stream

import (
	"debug/elf"
	"fmt"
	"strings"
)

// Kfunc markers of include/linux/btf_ids.h and include/linux/btf.h.
const (
	btfIDsSection  = ".BTF_ids"
	btfIDSet8Pfx   = "__BTF_ID__set8__"
	btfIDFuncPfx   = "__BTF_ID__func__"
	btfSet8Kfuncs  = 1 << 0
	kfFastcall     = 1 << 12
	kfuncDeclTag   = "bpf_kfunc"
	fastcallDeclTg = "bpf_fastcall"
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

// markKfuncs flags the functions listed in BTF_SET8 sets marked
// BTF_SET8_KFUNCS, with the flags word of their (id, flags) pair, as
// pahole's btf_encoder__collect_kfuncs does.
func markKfuncs(f *elf.File, syms []elf.Symbol, funcs elfFuncs) error {
	var sec *elf.Section
	idx := -1
	for i, s := range f.Sections {
		if s.Name == btfIDsSection {
			sec, idx = s, i
		}
	}
	if sec == nil || syms == nil {
		return nil
	}
	data, err := sec.Data()
	if err != nil {
		return fmt.Errorf("%s: %w", btfIDsSection, err)
	}
	word := func(off uint64) (uint32, bool) {
		if off+4 > uint64(len(data)) {
			return 0, false
		}
		return f.ByteOrder.Uint32(data[off:]), true
	}
	type span struct{ lo, hi uint64 }
	var sets []span
	for _, s := range syms {
		if int(s.Section) != idx || !strings.HasPrefix(s.Name, btfIDSet8Pfx) {
			continue
		}
		flags, ok := word(s.Value - sec.Addr + 4)
		if ok && flags&btfSet8Kfuncs != 0 {
			sets = append(sets, span{s.Value, s.Value + s.Size})
		}
	}
	for _, s := range syms {
		if int(s.Section) != idx {
			continue
		}
		name, ok := kfuncName(s.Name)
		if !ok {
			continue
		}
		for _, r := range sets {
			if r.lo <= s.Value && s.Value < r.hi {
				flags, ok := word(s.Value - sec.Addr + 4)
				if !ok {
					return fmt.Errorf("kfunc %q offset outside section %s", name, btfIDsSection)
				}
				if i := funcs.find(name); i >= 0 {
					funcs[i].kfunc, funcs[i].kflags = true, flags
				}
				break
			}
		}
	}
	return nil
}
