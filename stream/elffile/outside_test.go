package elffile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// cutReader serves the first n bytes of b once n is set: a file that
// shrinks after it was opened.
type cutReader struct {
	b []byte
	n int
}

func (r *cutReader) ReadAt(p []byte, off int64) (int, error) {
	b := r.b
	if r.n > 0 {
		b = b[:r.n]
	}
	return bytes.NewReader(b).ReadAt(p, off)
}

// TestReadSectionOutside: a section of an executable read outside the heap
// holds what ReadSection reads (as does a relocatable file's, read on the
// heap); a file cut short gives an *Error naming the file and section.
func TestReadSectionOutside(t *testing.T) {
	str := []byte(strings.Repeat("name\x00", 3000))
	for _, etype := range []uint16{1, 2} {
		img := makeELF(true, binary.LittleEndian, false, elfSec{name: ".debug_str", typ: 1, flags: 0x30, data: str})
		binary.LittleEndian.PutUint16(img[16:], etype)
		r := &cutReader{b: img}
		f, err := New("vmlinux", r, int64(len(img)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, ok := f.Section(".debug_str")
		if !ok {
			t.Fatal("no .debug_str")
		}
		b, release, err := f.ReadSectionOutside(s)
		if err != nil || !bytes.Equal(b, str) {
			t.Fatalf("e_type %d: %d bytes, %v; want %d bytes", etype, len(b), err, len(str))
		}
		release()
		r.n = int(s.Offset) + 100
		b, _, err = f.ReadSectionOutside(s)
		var e *Error
		if !errors.As(err, &e) || b != nil || !strings.Contains(err.Error(), "vmlinux") || !strings.Contains(err.Error(), ".debug_str") {
			t.Errorf("e_type %d, file cut short: %d bytes, %v; want an *Error naming vmlinux and .debug_str", etype, len(b), err)
		}
	}
}
