package elffile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"math/rand"
	"testing"
)

// relocFixture is an ET_REL file with a target section, a symbol table
// and relocations of it, and the target's bytes with every relocation
// applied (computed here, one entry at a time).
type relocFixture struct {
	file, want []byte
}

// makeRelocFixture builds n relocations, one in each 8-byte slot of the
// target, against syms symbols (more than the Relocator's cache holds;
// every tenth undefined, and so left alone), in ascending offset order or
// shuffled. 64-bit files use RELA (x86-64, or s390x big-endian), 32-bit
// ones REL (i386, or PowerPC big-endian).
func makeRelocFixture(is64, big, sorted bool, n, syms int, rng *rand.Rand) relocFixture {
	var bo binary.ByteOrder = binary.LittleEndian
	machine, abs32, abs64 := elf.EM_386, uint32(elf.R_386_32), uint32(0)
	switch {
	case is64 && big:
		bo, machine, abs32, abs64 = binary.BigEndian, elf.EM_S390, uint32(elf.R_390_32), uint32(elf.R_390_64)
	case is64:
		machine, abs32, abs64 = elf.EM_X86_64, uint32(elf.R_X86_64_32), uint32(elf.R_X86_64_64)
	case big:
		bo, machine, abs32 = binary.BigEndian, elf.EM_PPC, uint32(elf.R_PPC_ADDR32)
	}
	target := make([]byte, 8*n)
	rng.Read(target)
	want := bytes.Clone(target)
	symEnt, relEnt := 16, 8
	if is64 {
		symEnt, relEnt = 24, 24
	}
	symtab := make([]byte, symEnt*syms) // symbol 0 stays null
	value := func(i int) uint64 { return uint64(i)*0x1000 + 7 }
	for i := 1; i < syms; i++ {
		p := symtab[i*symEnt:]
		shndx := uint16(1)
		if i%10 == 0 {
			shndx = 0 // SHN_UNDEF
		}
		if is64 {
			p[4] = STTSection
			bo.PutUint16(p[6:], shndx)
			bo.PutUint64(p[8:], value(i))
		} else {
			bo.PutUint32(p[4:], uint32(value(i)))
			p[12] = STTSection
			bo.PutUint16(p[14:], shndx)
		}
	}
	order := rng.Perm(n)
	if sorted {
		for i := range order {
			order[i] = i
		}
	}
	rel := make([]byte, 0, relEnt*n)
	for _, slot := range order {
		off := uint64(slot * 8)
		sym := uint32(rng.Intn(syms))
		addend := uint64(rng.Intn(1 << 20))
		var e [24]byte
		wide := is64 && rng.Intn(2) == 0
		if is64 {
			typ := abs32
			if wide {
				typ = abs64
			}
			bo.PutUint64(e[0:], off)
			bo.PutUint64(e[8:], uint64(sym)<<32|uint64(typ))
			bo.PutUint64(e[16:], addend)
		} else {
			bo.PutUint32(e[0:], uint32(off))
			bo.PutUint32(e[4:], sym<<8|abs32)
			addend = uint64(bo.Uint32(target[off:])) // REL: in place
		}
		rel = append(rel, e[:relEnt]...)
		if sym == 0 || sym%10 == 0 {
			continue
		}
		if wide {
			bo.PutUint64(want[off:], value(int(sym))+addend)
		} else {
			bo.PutUint32(want[off:], uint32(value(int(sym))+addend))
		}
	}
	relType := uint32(elf.SHT_REL)
	if is64 {
		relType = uint32(elf.SHT_RELA)
	}
	file := makeELF(is64, bo, false,
		elfSec{name: ".debug_info", typ: uint32(elf.SHT_PROGBITS), data: target},
		elfSec{name: ".symtab", typ: uint32(elf.SHT_SYMTAB), data: symtab},
		elfSec{name: ".rela.debug_info", typ: relType, data: rel})
	// makeELF links nothing: the relocations apply to section 1 (sh_info)
	// through the symbols of section 2 (sh_link); set the machine.
	shoff, shent, link := int(bo.Uint32(file[32:])), 40, 24
	if is64 {
		shoff, shent, link = int(bo.Uint64(file[40:])), 64, 40
	}
	bo.PutUint16(file[18:], uint16(machine))
	h := file[shoff+3*shent:]
	bo.PutUint32(h[link:], 2)
	bo.PutUint32(h[link+4:], 1)
	return relocFixture{file, want}
}

// TestRelocatorApply applies relocations to a whole section and to
// ascending windows of it (as the unit reader does), sorted or not, over
// more entries than one chunk and more symbols than the cache holds.
func TestRelocatorApply(t *testing.T) {
	rng := rand.New(rand.NewSource(18))
	for _, tc := range []struct {
		name              string
		is64, big, sorted bool
		n, syms           int
	}{
		{"elf64-rela-sorted", true, false, true, 3*relChunk + 17, 700},
		{"elf64-rela-shuffled", true, false, false, 2*relChunk + 5, 300},
		{"elf64be-rela-sorted", true, true, true, relChunk + 3, 400},
		{"elf32-rel-sorted", false, false, true, relChunk + 1, 40},
		{"elf32-rel-shuffled", false, false, false, 1000, symCacheSize + 1},
		{"elf32be-rel-shuffled", false, true, false, 900, 30},
		{"one-entry", true, false, true, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := makeRelocFixture(tc.is64, tc.big, tc.sorted, tc.n, tc.syms, rng)
			f, err := New("reloc.o", bytes.NewReader(fx.file), int64(len(fx.file)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, ok := f.Section(".debug_info")
			if !ok {
				t.Fatal("no .debug_info")
			}
			whole, err := f.ReadSection(s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole, fx.want) {
				t.Fatal("ReadSection: relocated bytes differ")
			}
			rl, err := f.NewRelocator(s)
			if err != nil || rl == nil {
				t.Fatalf("NewRelocator: %v, %v", rl, err)
			}
			if rl.srcs[0].sorted != tc.sorted {
				t.Errorf("sorted = %v, want %v", rl.srcs[0].sorted, tc.sorted)
			}
			raw, err := f.ReadSectionRaw(s)
			if err != nil {
				t.Fatal(err)
			}
			windows := 0
			for base := 0; base < len(raw); windows++ {
				end := min(len(raw), base+8*(1+rng.Intn(600)))
				if err := rl.Apply(raw[base:end], uint64(base)); err != nil {
					t.Fatal(err)
				}
				base = end
			}
			if !bytes.Equal(raw, fx.want) {
				t.Fatalf("Apply over %d windows: relocated bytes differ", windows)
			}
		})
	}
}
