package btf

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"
	"testing"
)

// Fuzz targets: the reader (raw BTF and ELF) and the validator. Seeds are
// the every-kind fixtures in both byte orders and header forms, an ELF
// wrapping one, and whatever crashers testdata/fuzz holds.

func addSeeds(f *testing.F) {
	le := allKinds()
	be := allKinds()
	be.ByteOrder = binary.BigEndian
	f.Add(le.Marshal())
	f.Add(be.Marshal())
	s2, _ := Parse(le.Marshal(), nil)
	s2.Header = Header{HdrLen: HeaderLenLayout, Layout: []byte{1, 2, 3, 4}}
	f.Add(s2.Marshal())
	f.Add(makeELF(false, binary.BigEndian, false, elfSec{name: ".BTF", typ: uint32(elf.SHT_PROGBITS), data: be.Marshal()}))
}

// FuzzRead feeds arbitrary bytes to Load (raw or ELF). Whatever it
// accepts must marshal back to the bytes it read, dump, and validate
// without panicking.
func FuzzRead(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := ReadRaw(bytes.NewReader(data))
		if err != nil {
			return
		}
		s, err := Parse(raw, nil)
		if err != nil {
			return
		}
		out := s.Marshal()
		s2, err := Parse(out, nil)
		if err != nil {
			t.Fatalf("re-reading our own output: %v", err)
		}
		if !bytes.Equal(s2.Marshal(), out) {
			t.Fatal("marshal is not stable")
		}
		if err := s.Dump(io.Discard); err != nil {
			t.Fatal(err)
		}
		_ = s.Validate()
	})
}

// FuzzValidate validates arbitrary BTF, alone and as split BTF on top of
// the every-kind base, and checks that an accepted Spec dumps and that
// validation is deterministic.
func FuzzValidate(f *testing.F) {
	addSeeds(f)
	base := allKinds()
	split := NewSplitSpec(base)
	split.Add(Type{NameOff: split.Strings().Add("node_ptr"), Info: MakeInfo(KindTypedef, 0, false), SizeOrType: 5})
	f.Add(split.Marshal())
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, b := range []*Spec{nil, base} {
			s, err := Parse(data, b)
			if err != nil {
				continue
			}
			err1 := s.Validate()
			err2 := s.ValidateWith(ValidateOptions{PtrSize: 4, ProgramBTF: true})
			_ = err2
			if again := s.Validate(); (again == nil) != (err1 == nil) || again != nil && again.Error() != err1.Error() {
				t.Fatalf("Validate not deterministic: %v then %v", err1, again)
			}
			if err1 == nil {
				if err := s.Dump(io.Discard); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
