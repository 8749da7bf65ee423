package encode

import (
	"strings"

	"github.com/btfstream/btfstream/stream/elffile"
)

// Where pahole looks up a module's variables.
//
// In an ET_REL file (a .ko) every section starts at address 0. pahole
// reads it through libdwfl's offline mode, which first gives the file a
// layout: the SHF_ALLOC sections, in index order, each at the next
// address aligned to its sh_addralign, from 0x10000 (libdwfl's red zone
// for the first offline module, aligned to 0x100). It writes these
// addresses into its in-memory section headers and relocates .debug_info
// with them, so a variable's DW_OP_addr reads "its section's laid-out
// address + its offset". The sections that are not SHF_ALLOC (.comment,
// the .debug_* sections) keep address 0.
//
// pahole's get_elf_section then takes the first PROGBITS or NOBITS
// section, in index order, whose [sh_addr, sh_addr+sh_size) holds that
// address. A non-ALLOC section at 0 comes first whenever it is larger
// than the laid-out address: in a module whose .debug_info (or
// .debug_str, ...) is bigger than the ALLOC sections before
// .data..percpu, a per-CPU variable lands in .debug_info, which is not
// encoded, and is left out. So pahole 1.31 and 1.32 encode the per-CPU
// variables of small modules and drop them in larger ones: on Debian's
// 7.2 cloud kernel, nf_tables.ko's .data..percpu is laid out at 0x538e0
// and its .debug_info is 0x493832 bytes, so nft_pcpu_tun_ctx is left
// out. offlineLayout computes the layout, newVarCtx uses it for ET_REL
// files, and encodeVars looks the address up as pahole does.
//
// libdw decompresses the DWARF sections it reads (elf_compress), which
// rewrites their sh_size: a compressed .debug_* section counts with its
// uncompressed size. (Legacy .zdebug_* sections are not modelled.)

// relLayoutBase is where libdwfl lays out the first offline ET_REL file:
// its red zone (0x10000) aligned up to its minimum module alignment (0x100).
const relLayoutBase = 0x10000

// offlineLayout returns libdwfl's address for every section of an ET_REL
// file (index order; 0 for sections that are not SHF_ALLOC). Sections
// that already carry an address keep it; libdwfl then only tracks them.
func offlineLayout(secs []elffile.SectionHeader) []uint64 {
	addrs := make([]uint64, len(secs))
	base := uint64(relLayoutBase)
	end := base
	alignUp := func(x, a uint64) uint64 { return (x + a - 1) &^ (a - 1) }
	for i := 0; i < len(secs); i++ {
		s := &secs[i]
		if i == 0 || s.Flags&elffile.SHFAlloc == 0 {
			continue
		}
		if s.Addr != 0 {
			addrs[i] = s.Addr
			continue
		}
		align := max(s.Addralign, 1)
		next := alignUp(end, align)
		switch {
		case end == base:
			// The first section placed: its address is the module's base.
			base = next
		case base&(align-1) != 0:
			// A section more aligned than the base: libdwfl restarts the
			// layout from a base aligned to it (this section included).
			base = alignUp(base, align)
			end = base
			for j := 1; j <= i; j++ {
				p := &secs[j]
				if p.Flags&elffile.SHFAlloc == 0 || p.Addr != 0 {
					continue
				}
				addrs[j] = alignUp(end, max(p.Addralign, 1))
				end = addrs[j] + p.Size
			}
			continue
		}
		addrs[i] = next
		end = next + s.Size
	}
	return addrs
}

// libdwSize is a section's sh_size as pahole sees it after libdw opened
// the DWARF: compressed .debug_* sections have been decompressed in place.
func libdwSize(f *elffile.File, s *elffile.SectionHeader) uint64 {
	if s.Flags&elffile.SHFCompressed == 0 || !strings.HasPrefix(s.Name, ".debug_") {
		return s.Size
	}
	rc, n, err := f.OpenStream(s)
	if err != nil {
		return s.Size
	}
	rc.Close()
	return n
}
