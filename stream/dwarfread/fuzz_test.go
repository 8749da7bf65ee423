package dwarfread

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// exercise runs everything a consumer would on f, with bounds so a fuzz
// iteration stays short. Every error must be an *Error naming the file.
func exercise(t *testing.T, f *File) {
	check := func(err error) {
		if err == nil {
			return
		}
		var se *elffile.Error
		if !errors.As(err, &se) || se.File == "" {
			t.Fatalf("error without location: %T %v", err, err)
		}
	}
	// The unit-header scan (memory floor, progress) agrees with itself.
	largest, err := f.LargestUnit()
	check(err)
	starts, err := f.UnitStarts()
	check(err)
	if err == nil && largest == 0 && len(starts) > 0 {
		t.Fatalf("%d units, largest 0", len(starts))
	}
	for i := 1; i < len(starts); i++ {
		if starts[i] <= starts[i-1] {
			t.Fatalf("unit starts not increasing: %v", starts)
		}
	}
	n := 0
	for _, err := range f.ELF().Symbols() {
		check(err)
		if n++; n > 10000 {
			break
		}
	}
	for _, s := range f.ELF().Sections {
		if s.Size < 1<<16 {
			f.ELF().ReadSection(&s)
		}
	}
	units := 0
	for cu, err := range f.Units(UnitOptions{Jobs: 1 + units%2}) {
		check(err)
		if err != nil {
			break
		}
		cu.Producer()
		for id := range min(cu.Len(), 20000) {
			d := cu.DIE(TagID(id))
			for a := range d.Attrs() {
				a.Class()
				a.Block()
				a.Address()
				a.String()
				if a.Form == formRnglistx {
					cu.RnglistOffset(a.Val)
				}
			}
			for range d.Children() {
			}
		}
		cu.Release()
		if units++; units > 200 {
			break
		}
	}
}

func fuzzSeeds(f *testing.F) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		ab, in, str := sampleDWARF(order, 0x1d)
		f.Add(dwarfELF(order, ab, in, str))
	}
	// Small real objects: relocations, symbols, compressed sections.
	for _, fx := range testkit.Fixtures {
		switch fx.Name {
		case "gcc-dwarf4", "gcc-gz-zlib", "gcc-zstd", "clang-dwarf5", "gcc-s390x":
		default:
			continue
		}
		if _, err := exec.LookPath(fx.CC); err != nil {
			continue
		}
		p := fx.BuildSeed()
		if b, err := os.ReadFile(p); p != "" && err == nil {
			f.Add(b)
		}
	}
}

// FuzzELF feeds whole files: ELF headers, section headers, compression
// headers, relocations, symbols and DWARF.
func FuzzELF(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := newFile("fuzz", bytes.NewReader(data), int64(len(data)), Options{CacheBytes: 1 << 16})
		if err != nil {
			var se *elffile.Error
			if !errors.As(err, &se) {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		defer file.Close()
		exercise(t, file)
	})
}

// FuzzDIE feeds .debug_abbrev and .debug_info contents wrapped in a valid
// ELF file, so the fuzzer spends its time in the DWARF decoder.
func FuzzDIE(f *testing.F) {
	for _, big := range []bool{false, true} {
		var order binary.ByteOrder = binary.LittleEndian
		if big {
			order = binary.BigEndian
		}
		ab, in, _ := sampleDWARF(order, 0x1d)
		f.Add(big, ab, in)
	}
	f.Fuzz(func(t *testing.T, big bool, abbrev, info []byte) {
		var order binary.ByteOrder = binary.LittleEndian
		if big {
			order = binary.BigEndian
		}
		_, _, str := sampleDWARF(order, 0)
		data := dwarfELF(order, abbrev, info, str)
		file, err := newFile("fuzz", bytes.NewReader(data), int64(len(data)), Options{CacheBytes: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		exercise(t, file)
	})
}
