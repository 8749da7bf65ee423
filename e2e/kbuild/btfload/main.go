//go:build linux

// Command btfload hands BTF to the running kernel's full BTF verifier
// (bpf(BPF_BTF_LOAD)) and reports the verdict. scripts/kbuild-check.sh
// builds it static (CGO_ENABLED=0) into the initramfs of the kernel it
// built with PAHOLE=btfstream, because the kernel publishes
// /sys/kernel/btf/vmlinux without verifying it and checks module BTF only
// shallowly (headers, strings, each type's own fields) when a module loads.
//
//	btfload [-base FILE] FILE...          each FILE must be accepted
//	btfload -base FILE -corrupt FILE...   each FILE, corrupted, must be rejected
//
// With -base, each FILE is split BTF over that base (a module's
// /sys/kernel/btf/NAME over /sys/kernel/btf/vmlinux). Linux 6.12's
// BPF_BTF_LOAD has no way to name a base, so the two are merged into one
// BTF first: split ids and string offsets already continue after the
// base's, so merging is concatenating the type and string sections.
//
// A vmlinux BTF with Linux 7.2's layout section (hdr_len 32) is loaded as
// it is, and its line says "layout section of N bytes"; merged with a
// module it loses the section (merge writes a 24-byte header).
//
// -corrupt is the negative control: it breaks each FILE in a way only the
// full verifier notices (a TYPEDEF made to point at itself, a loop; or,
// without a TYPEDEF, a STRUCT member moved past the struct's end), loads
// it, and requires the kernel to refuse it.
//
// Output: one line per FILE, "btfload: NAME: accepted (...)" or
// "btfload: NAME: rejected: ERR: last verifier log line"; exit 1 if any
// verdict is not the expected one, 2 on bad input.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/btfstream/btfstream/btf"
)

func main() {
	base := flag.String("base", "", "base BTF of every FILE (split BTF is merged with it before loading)")
	corrupt := flag.Bool("corrupt", false, "corrupt each FILE first and require BPF_BTF_LOAD to reject it")
	flag.Parse()
	if flag.NArg() == 0 || (*corrupt && *base == "") {
		fmt.Fprintln(os.Stderr, "usage: btfload [-base FILE] FILE...\n       btfload -base FILE -corrupt FILE...")
		os.Exit(2)
	}
	var baseRaw []byte
	if *base != "" {
		var err error
		if baseRaw, err = os.ReadFile(*base); err != nil {
			fmt.Fprintln(os.Stderr, "btfload:", err)
			os.Exit(2)
		}
	}
	status := 0
	for _, path := range flag.Args() {
		name := filepath.Base(path)
		raw, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "btfload:", err)
			os.Exit(2)
		}
		what := ""
		if *corrupt {
			if what, err = corruptSplit(raw, baseRaw); err != nil {
				fmt.Printf("btfload: %s: cannot corrupt: %v\n", name, err)
				status = 1
				continue
			}
		}
		if baseRaw != nil {
			if raw, err = merge(baseRaw, raw); err != nil {
				fmt.Printf("btfload: %s: %v\n", name, err)
				status = 1
				continue
			}
		}
		n, _ := countTypes(raw)
		res := load(raw)
		switch {
		case !*corrupt && res.err == nil:
			fmt.Printf("btfload: %s: accepted (%d bytes, %d types%s%s)\n", name, len(raw), n, merged(baseRaw), layoutNote(raw))
		case !*corrupt:
			fmt.Printf("btfload: %s: REJECTED: %v: %s\n", name, res.err, res.lastLog)
			status = 1
		case res.err != nil:
			fmt.Printf("btfload: %s (%s): rejected as it must be: %v: %s\n", name, what, res.err, res.lastLog)
		default:
			fmt.Printf("btfload: %s (%s): ACCEPTED, but it is corrupt\n", name, what)
			status = 1
		}
	}
	os.Exit(status)
}

// layoutNote says whether raw carries a layout section (Linux 7.2's
// struct btf_header: hdr_len 32, layout_off and layout_len after str_len).
// Merged BTF never does: merge writes a 24-byte header.
func layoutNote(raw []byte) string {
	h, err := parseHeader(raw)
	if err != nil || h.hdrLen < btf.HeaderLenLayout || le.Uint32(raw[28:]) == 0 {
		return ""
	}
	return fmt.Sprintf(", layout section of %d bytes", le.Uint32(raw[28:]))
}

func merged(base []byte) string {
	if base == nil {
		return ""
	}
	return ", merged with its base"
}
