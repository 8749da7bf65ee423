package btf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
)

// loadMatchesParse fails t unless LoadRaw (through a type buffer of chunk
// bytes) gives what ReadRaw and Parse give for data: the same error
// text, or Specs that marshal alike.
func loadMatchesParse(t *testing.T, what string, data []byte, chunk int) {
	t.Helper()
	want, werr := func() (*Spec, error) {
		raw, err := ReadRaw(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return Parse(raw, nil)
	}()
	for _, outside := range []bool{false, true} {
		got, gerr := loadRaw(bytes.NewReader(data), nil, chunk, outside)
		switch {
		case (werr == nil) != (gerr == nil):
			t.Fatalf("%s (outside %v): Parse error %v, LoadRaw error %v", what, outside, werr, gerr)
		case werr != nil:
			if werr.Error() != gerr.Error() {
				t.Fatalf("%s (outside %v): Parse: %v\nLoadRaw: %v", what, outside, werr, gerr)
			}
		case !bytes.Equal(want.Marshal(), got.Marshal()):
			t.Fatalf("%s (outside %v): LoadRaw's Spec marshals differently from Parse's", what, outside)
		}
	}
}

// TestLoadMatchesParse: LoadRaw reads every-kind BTF in both byte orders
// and header forms, and every truncation and header corruption of it, as
// ReadRaw and Parse do, with type buffers that split records anywhere.
func TestLoadMatchesParse(t *testing.T) {
	le, be := allKinds(), allKinds()
	be.ByteOrder = binary.BigEndian
	var inputs [][]byte
	for _, s := range []*Spec{le, be} {
		inputs = append(inputs, s.Marshal())
		s2, err := Parse(s.Marshal(), nil)
		if err != nil {
			t.Fatal(err)
		}
		s2.SetLayout(KindLayout())
		inputs = append(inputs, s2.Marshal())
	}
	for i, data := range inputs {
		for _, chunk := range []int{12, 13, 16, 28, 64, typeStreamBuf} {
			loadMatchesParse(t, fmt.Sprintf("input %d, chunk %d", i, chunk), data, chunk)
		}
		for n := range len(data) {
			loadMatchesParse(t, fmt.Sprintf("input %d cut at %d", i, n), data[:n], 12)
		}
		for off := range HeaderLenLayout + 8 {
			for _, v := range []byte{0, 1, 0x80, 0xff} {
				bad := bytes.Clone(data)
				bad[off] = v
				loadMatchesParse(t, fmt.Sprintf("input %d byte %d = %#x", i, off, v), bad, 16)
			}
		}
	}
}
