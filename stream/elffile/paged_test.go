package elffile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/spill"
)

// TestCStringVia reads every string of a section spanning pages through a
// page memo and through the cache alone: the same bytes, including the
// strings that cross a page boundary.
func TestCStringVia(t *testing.T) {
	var data []byte
	var offs []uint64
	for i := 0; len(data) < 3*PageSize; i++ {
		offs = append(offs, uint64(len(data)))
		data = append(data, strings.Repeat(string(rune('a'+i%26)), 1+i*7%300)...)
		data = append(data, 0)
	}
	p := newPaged(bytes.NewReader(data), uint64(len(data)), spill.NewCache(1<<20))
	var memo PageMemo
	crossing := 0
	for _, off := range offs {
		want := data[off : off+uint64(bytes.IndexByte(data[off:], 0))]
		if off/PageSize != (off+uint64(len(want)))/PageSize {
			crossing++
		}
		for _, m := range []*PageMemo{&memo, nil} {
			got, err := p.CStringVia(m, off)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("CStringVia(%v, %d) = %q, %v; want %q", m != nil, off, got, err, want)
			}
		}
	}
	if crossing == 0 {
		t.Fatal("no string crosses a page: the test checks nothing of the page walk")
	}
	if _, err := p.CStringVia(&memo, uint64(len(data))); err == nil {
		t.Error("CStringVia past the end: no error")
	}
}
