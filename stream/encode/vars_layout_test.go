package encode

import (
	"slices"
	"testing"

	"github.com/btfstream/btfstream/stream/elffile"
)

func TestOfflineLayout(t *testing.T) {
	const alloc = elffile.SHFAlloc
	sec := func(flags, align, size uint64) elffile.SectionHeader {
		return elffile.SectionHeader{Type: elffile.SHTProgbits, Flags: flags, Addralign: align, Size: size}
	}
	tests := []struct {
		name string
		secs []elffile.SectionHeader
		want []uint64
	}{
		{"aligned in index order, non-alloc at 0",
			[]elffile.SectionHeader{{}, sec(alloc, 8, 0x1bc), sec(alloc, 1, 0x25), sec(0, 1, 0x1000), sec(alloc, 16, 0x18)},
			[]uint64{0, 0x10000, 0x101bc, 0, 0x101f0}},
		{"zero-sized first section",
			[]elffile.SectionHeader{{}, sec(alloc, 1, 0), sec(alloc, 64, 0x10)},
			[]uint64{0, 0x10000, 0x10000}},
		{"a section more aligned than the base restarts the layout",
			[]elffile.SectionHeader{{}, sec(alloc, 8, 0x10), sec(alloc, 0x20000, 0x8), sec(alloc, 4, 4)},
			[]uint64{0, 0x20000, 0x40000, 0x40008}}, // libdwfl relays every section from the new base
	}
	for _, tc := range tests {
		if got := offlineLayout(tc.secs); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %#x, want %#x", tc.name, got, tc.want)
		}
	}
}

// TestRelVarSection is pahole's lookup of a module's variable: the first
// PROGBITS/NOBITS section holding the laid-out address, which is a debug
// section at 0 when that is larger than the address (nf_tables.ko's
// nft_pcpu_tun_ctx on Debian's 7.2), the variable's own section otherwise.
func TestRelVarSection(t *testing.T) {
	const alloc = elffile.SHFAlloc
	for _, tc := range []struct {
		name     string
		infoSize uint64
		want     int
	}{
		{"debug_info smaller than the layout: the variable's section", 0x100, 3},
		{"debug_info covers the laid-out address: debug_info", 0x493832, 2},
	} {
		secs := []elffile.SectionHeader{{},
			{Type: elffile.SHTProgbits, Flags: alloc, Addralign: 64, Size: 0x43aaf},
			{Type: elffile.SHTProgbits, Size: tc.infoSize},
			{Type: elffile.SHTProgbits, Flags: alloc, Addralign: 16, Size: 0x18}}
		layout := offlineLayout(secs)
		vc := &varCtx{rel: true}
		for i, s := range secs {
			vc.secs = append(vc.secs, varSection{addr: layout[i], size: s.Size, typ: s.Type})
		}
		if got := vc.section(layout[3]); got != tc.want {
			t.Errorf("%s: section of %#x = %d, want %d", tc.name, layout[3], got, tc.want)
		}
	}
}
