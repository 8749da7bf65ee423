package elffile

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestPageTable reads a section twice through a File within the cache
// budget (a page table: the second read comes from it), through one
// larger than the budget (a bounded spill.Cache, which holds this section)
// and through one without a cache, then again after DropCache: the same
// bytes every time, and file reads only where no cache holds the page.
func TestPageTable(t *testing.T) {
	data := bytes.Repeat([]byte("strtab\x00"), 3*PageSize/7+5)
	file := makeELF(true, binary.LittleEndian, false, elfSec{name: ".strtab", typ: 3, data: data})
	for _, c := range []struct {
		name    string
		cache   int64
		table   bool
		rereads bool // the second pass reads the file again
		bounded bool
	}{
		{"within budget", int64(len(file)), true, false, false},
		{"over budget", int64(len(file)) - 1, false, false, true},
		{"no cache", -1, false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cr := &countingReader{r: bytes.NewReader(file)}
			f, err := New("t.o", cr, int64(len(file)), Options{CacheBytes: c.cache})
			if err != nil {
				t.Fatal(err)
			}
			if (f.table != nil) != c.table || (f.cache != nil) != c.bounded {
				t.Fatalf("page table %v, bounded cache %v; want %v, %v", f.table != nil, f.cache != nil, c.table, c.bounded)
			}
			s, _ := f.Section(".strtab")
			p := f.RawPaged(s)
			pass := func() int {
				before := cr.n
				got := make([]byte, len(data))
				if err := p.ReadFull(got, 0); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("ReadFull: %v, equal %v", err, bytes.Equal(got, data))
				}
				return cr.n - before
			}
			if n := pass(); n != len(data) {
				t.Fatalf("first pass read %d bytes of the file, want %d", n, len(data))
			}
			if n := pass(); (n > 0) != c.rereads {
				t.Errorf("second pass read %d bytes of the file; want rereads %v", n, c.rereads)
			}
			f.DropCache()
			if n := pass(); n != len(data) {
				t.Errorf("after DropCache: read %d bytes of the file, want %d", n, len(data))
			}
		})
	}
}
