package btf

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"

	cbtf "github.com/cilium/ebpf/btf"
)

// Fuzz targets: the reader of raw BTF and the validator. Seeds are the
// every-kind fixtures in both byte orders and header forms, and whatever
// crashers testdata/fuzz holds. (BTF inside ELF: stream/elffile.)

func addSeeds(f *testing.F) {
	le := allKinds()
	be := allKinds()
	be.ByteOrder = binary.BigEndian
	f.Add(le.Marshal())
	f.Add(be.Marshal())
	for _, s := range []*Spec{le, be} {
		s2, _ := Parse(s.Marshal(), nil)
		s2.SetLayout(KindLayout())
		f.Add(s2.Marshal())
	}
}

// FuzzRead feeds arbitrary bytes to ReadRaw and Parse, and to LoadRaw,
// which must agree with them. Whatever they accept must marshal back to
// the bytes read, dump, and validate without panicking.
func FuzzRead(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		loadMatchesParse(t, "input", data, 16)
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
			err2 := s.ValidateWith(ValidateOptions{PtrSize: 4})
			_ = err2
			if b == nil && s.CheckStructure() == nil {
				// Any sound base may be trusted: a split that points at
				// each of its types has them checked and resolved lazily.
				split := NewSplitSpec(s)
				for id := TypeID(1); id < s.NextID() && id < 256; id++ {
					split.Add(Type{Info: MakeInfo(KindPtr, 0, false), SizeOrType: uint32(id)})
				}
				_ = split.ValidateWith(ValidateOptions{TrustBase: true})
			}
			if b != nil {
				// Trusting a sound base accepts what a full check does.
				if trusted := s.ValidateWith(ValidateOptions{TrustBase: true}); err1 == nil && trusted != nil {
					t.Fatalf("TrustBase refuses what Validate accepts: %v", trusted)
				}
			}
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

// FuzzValidateGraph builds type graphs from the fuzz input, so that the
// validator's resolve walk (loops, depth, sizes, members) is reached far
// more often than from raw bytes: every 4 input bytes pick a kind, vlen,
// kind_flag, name and small type ids and payload words. The Spec must
// validate without panicking, identically after a marshal round trip.
//
// With BTFSTREAM_FUZZ_KERNEL=1 (root, a 6.14+ kernel) every graph is also
// loaded with BPF_BTF_LOAD and the kernel's verdict must match Validate's.
func FuzzValidateGraph(f *testing.F) {
	kernelOracle = os.Getenv("BTFSTREAM_FUZZ_KERNEL") == "1"
	f.Add([]byte{1, 0, 0, 4, 2, 0, 0, 1, 4, 1, 0, 2})
	f.Add([]byte{10, 0, 0, 2, 9, 0, 0, 1, 2, 0, 0, 1})
	f.Add([]byte{4, 2, 1, 3, 3, 0, 0, 1, 13, 1, 0, 0, 12, 0, 0, 3, 17, 0, 0, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := graphFromBytes(data)
		err := s.Validate()
		if kernelOracle {
			// Differential mode: the running kernel's verifier must agree.
			h, kerr := cbtf.NewHandleFromRawBTF(s.Marshal())
			if kerr == nil {
				h.Close()
			}
			if (kerr == nil) != (err == nil) {
				t.Fatalf("kernel: %v\nValidate: %v\n%s", kerr, err, dumpString(t, s))
			}
		}
		s2, perr := Parse(s.Marshal(), nil)
		if perr != nil {
			t.Fatalf("our own output does not parse: %v", perr)
		}
		err2 := s2.Validate()
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("Validate differs after a round trip: %v / %v", err, err2)
		}
		if err := s.Dump(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

// graphFromBytes builds a Spec of up to 64 types from fuzz input: every 4
// bytes pick a kind, vlen, kind_flag, name and a small type id or size;
// payload words come from the following bytes (small ids and bit offsets,
// and a few special values).
func graphFromBytes(data []byte) *Spec {
	names := []string{"", "a", "b_c", "x.isra.0", ".data..percpu", "bad name", "9x", "int", "tag(1)"}
	s := NewSpec()
	offs := make([]StrOff, len(names))
	for i, n := range names {
		offs[i] = s.Strings().Add(n)
	}
	for len(data) >= 4 && s.Len() < 64 {
		k := Kind(data[0]%19 + 1)
		vlen := uint32(data[1] % 4)
		flag := data[1]&0x80 != 0
		name := offs[int(data[2])%len(offs)]
		if data[2] < 0xc0 {
			// Mostly a name the kind allows, to reach the resolve walk.
			switch k {
			case KindPtr, KindConst, KindVolatile, KindRestrict, KindArray, KindFuncProto:
				name = 0
			case KindDatasec:
				name = offs[4]
			default:
				name = offs[1+int(data[2])%3]
			}
		}
		// Mostly ids that exist (0 is void).
		ref := uint32(data[3]) % (uint32(s.NextID()) + 2)
		data = data[4:]
		switch k {
		case KindPtr, KindTypedef, KindVolatile, KindConst, KindRestrict, KindFunc,
			KindFwd, KindInt, KindVar, KindDeclTag, KindTypeTag, KindFloat, KindArray:
			vlen = 0
			if k == KindFunc {
				vlen = uint32(data0(data)) % 3
			}
		}
		n := k.ExtraWords(vlen)
		extra := make([]uint32, n)
		for i := range extra {
			b := data0(data)
			if len(data) > 0 {
				data = data[1:]
			}
			// Small values, ids, offsets in bits; a few special ones.
			switch b {
			case 0xff:
				extra[i] = 0xffffffff
			case 0xfe:
				extra[i] = 1 << 31
			default:
				extra[i] = uint32(b % 40)
				if b&0x40 != 0 {
					extra[i] *= 8
				} else if b&0x80 != 0 {
					extra[i] = uint32(b) % uint32(s.NextID()+1)
				}
			}
		}
		if k == KindInt {
			extra[0] = MakeIntInfo(uint32(ref%3), 0, []uint32{8, 16, 32, 64, 7}[ref%5])
			ref = []uint32{1, 2, 4, 8, 16}[ref%5]
		}
		s.Add(Type{NameOff: name, Info: MakeInfo(k, vlen, flag), SizeOrType: ref}, extra...)
	}
	return s
}

var kernelOracle bool

func data0(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// FuzzSectionRules checks checkSections (the 7.2 kernel's section rules,
// the layout section included) against a model written differently: the
// non-empty sections cover every byte up to the last end exactly once,
// an empty section sits where another section starts or ends (or at 0),
// and a header shorter than 32 bytes ends the data with the strings.
func FuzzSectionRules(f *testing.F) {
	f.Add(true, uint16(0), uint16(8), uint16(88), uint16(5), uint16(8), uint16(80))
	f.Add(false, uint16(0), uint16(8), uint16(8), uint16(5), uint16(13), uint16(0))
	f.Add(true, uint16(80), uint16(8), uint16(88), uint16(5), uint16(0), uint16(80))
	f.Fuzz(func(t *testing.T, long bool, typeOff, typeLen, strOff, strLen, layoutOff, layoutLen uint16) {
		h := Header{HdrLen: HeaderLen, TypeOff: uint32(typeOff), TypeLen: uint32(typeLen),
			StrOff: uint32(strOff), StrLen: uint32(strLen), LayoutOff: uint32(layoutOff), LayoutLen: uint32(layoutLen)}
		type sec struct{ off, end int }
		secs := []sec{{int(typeOff), int(typeOff) + int(typeLen)}, {int(strOff), int(strOff) + int(strLen)}}
		if long {
			h.HdrLen = HeaderLenLayout
			if layoutLen > 0 {
				secs = append(secs, sec{int(layoutOff), int(layoutOff) + int(layoutLen)})
			}
		}
		last := 0
		for _, s := range secs {
			last = max(last, s.end)
		}
		cover := make([]uint8, last)
		bounds := map[int]bool{0: true}
		for _, s := range secs {
			if s.end > s.off {
				bounds[s.off], bounds[s.end] = true, true
			}
			for i := s.off; i < s.end; i++ {
				cover[i]++
			}
		}
		ok := true
		for _, c := range cover {
			ok = ok && c == 1
		}
		for _, s := range secs {
			ok = ok && (s.end > s.off || bounds[s.off])
		}
		if !long {
			ok = ok && int(strOff)+int(strLen) == last
		}
		if err := checkSections(h); (err == nil) != ok {
			t.Fatalf("%+v: checkSections says %v, the model says ok=%v", h, err, ok)
		}
	})
}
