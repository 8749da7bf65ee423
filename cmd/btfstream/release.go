package main

import (
	"bytes"
	"fmt"

	"github.com/btfstream/btfstream/stream/elffile"
)

// baseReleaseWarning compares the kernel release a module was built for
// (the vermagic in its .modinfo) with the one its --btf_base names (the
// "Linux version R " banner in vmlinux's .rodata) and returns a warning
// when both are known and differ: split BTF over another kernel's BTF
// does not load. Either file not ELF, or either release not found: "".
func baseReleaseWarning(module, base string) string {
	mod := moduleRelease(module)
	if mod == "" {
		return ""
	}
	if rel := vmlinuxRelease(base); rel != "" && rel != mod {
		return fmt.Sprintf("%s was built for kernel %s (vermagic), but --btf_base %s is kernel %s: its split BTF will not load on that kernel",
			module, mod, base, rel)
	}
	return ""
}

// moduleRelease is the first word of the module's vermagic= in .modinfo.
func moduleRelease(path string) string {
	info, err := elffile.ReadNamedSection(path, ".modinfo")
	if err != nil {
		return ""
	}
	for _, kv := range bytes.Split(info, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("vermagic=")); ok {
			if f := bytes.Fields(v); len(f) > 0 {
				return string(f[0])
			}
		}
	}
	return ""
}

// vmlinuxRelease finds "Linux version R " (linux_banner) in the .rodata
// of an ELF vmlinux, reading it in 1 MiB windows.
func vmlinuxRelease(path string) string {
	f, err := elffile.Open(path, elffile.Options{CacheBytes: -1})
	if err != nil {
		return ""
	}
	defer f.Close()
	s, ok := f.Section(".rodata")
	if !ok || s.Type == elffile.SHTNobits || s.Compressed() {
		return ""
	}
	const window, keep = 1 << 20, 256
	r := f.SectionReader(s)
	buf := make([]byte, window+keep)
	prefix := []byte("Linux version ")
	for off := int64(0); off < int64(s.Size); off += window {
		n, _ := r.ReadAt(buf, off)
		b := buf[:n]
		for len(b) > 0 {
			i := bytes.Index(b, prefix)
			if i < 0 {
				break
			}
			rest := b[i+len(prefix):]
			if end := bytes.IndexAny(rest, " \x00"); end > 0 && rest[0] >= '0' && rest[0] <= '9' {
				return string(rest[:end])
			}
			b = rest
		}
	}
	return ""
}
