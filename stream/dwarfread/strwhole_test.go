package dwarfread

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/stream/elffile"
)

// TestStrWhole: a .debug_str within the page cache's size is read whole and
// its names read in place, a larger one stays paged; a relocatable file
// has no string cache; a larger one within Options.StrOutside is read
// whole outside the heap in an executable only, and read paged again once
// DropCaches released it. Every way decodes the same names.
func TestStrWhole(t *testing.T) {
	order := binary.LittleEndian
	ab, in, str := sampleDWARF(order, 0x1d)
	secs := []tsec{
		{name: ".debug_abbrev", typ: 1, data: ab},
		{name: ".debug_info", typ: 1, data: in},
		{name: ".debug_str", typ: 1, flags: 0x30, data: str},
	}
	var want []string
	for _, c := range []struct {
		name       string
		etype      uint16
		cacheBytes int64
		strOutside uint64
		whole      bool
		strCache   bool
	}{
		{"exec default cache", 2, 0, 0, true, true},
		{"rel default cache", 1, 0, 0, true, false},
		{"rel cache the section's size", 1, int64(len(str)), 0, true, false},
		{"rel cache a byte smaller", 1, int64(len(str)) - 1, 0, false, false},
		{"exec cache a byte smaller", 2, int64(len(str)) - 1, 0, false, true},
		{"exec cache a byte smaller, outside", 2, int64(len(str)) - 1, uint64(len(str)), true, true},
		{"exec cache a byte smaller, outside a byte smaller", 2, int64(len(str)) - 1, uint64(len(str)) - 1, false, true},
		{"rel cache a byte smaller, outside", 1, int64(len(str)) - 1, uint64(len(str)), false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := openBytes(t, "sample", buildELF(true, order, c.etype, elffile.EMX86_64, secs))
			defer f.Close()
			f.sizeCaches(c.cacheBytes)
			f.strOutside = c.strOutside
			got := collect(t, f, UnitOptions{})
			if want == nil {
				want = got
				if !strings.Contains(strings.Join(got, "\n"), "Name=point") {
					t.Fatalf("no strp name decoded:\n%s", strings.Join(got, "\n"))
				}
			} else if !slices.Equal(got, want) {
				t.Errorf("decoded\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			r, err := f.sec(secStr)
			if err != nil {
				t.Fatal(err)
			}
			if r.InMemory() != c.whole {
				t.Errorf(".debug_str in memory %v, want %v", r.InMemory(), c.whole)
			}
			if (f.strs != nil) != c.strCache {
				t.Errorf("string cache %v, want %v", f.strs != nil, c.strCache)
			}
			b, err := f.stringBytes(secStr, 4)
			if err != nil || string(b) != "point" {
				t.Errorf("string at 4: %q, %v", b, err)
			}
			if _, err := f.stringBytes(secStr, uint64(len(str))); err == nil {
				t.Error("string past the section: no error")
			}
			if (f.strRelease != nil) != (c.strOutside > 0 && c.whole) {
				t.Errorf("read outside the heap %v, want %v", f.strRelease != nil, c.strOutside > 0 && c.whole)
			}
			f.DropCaches()
			if f.strRelease != nil {
				t.Error("DropCaches kept .debug_str outside the heap")
			}
			if r, err := f.sec(secStr); err != nil || c.strOutside > 0 && r.InMemory() {
				t.Errorf("after DropCaches: %v, in memory %v", err, err == nil && r.InMemory())
			}
			if b, err := f.stringBytes(secStr, 4); err != nil || string(b) != "point" {
				t.Errorf("after DropCaches, string at 4: %q, %v", b, err)
			}
		})
	}
}

// shrinkingReader serves the first n bytes of b once n is set: a file
// truncated after it was opened.
type shrinkingReader struct {
	b []byte
	n int64 // 0: all of b
}

func (r *shrinkingReader) ReadAt(p []byte, off int64) (int, error) {
	b := r.b
	if r.n > 0 {
		b = b[:r.n]
	}
	return bytes.NewReader(b).ReadAt(p, off)
}

// TestStrWholeShrunk: a file that shrinks before .debug_str is read whole
// gives an error naming the file, the section and the offset, no panic.
func TestStrWholeShrunk(t *testing.T) {
	order := binary.LittleEndian
	ab, in, str := sampleDWARF(order, 0x1d)
	img := buildELF(true, order, 1, elffile.EMX86_64, []tsec{
		{name: ".debug_abbrev", typ: 1, data: ab},
		{name: ".debug_info", typ: 1, data: in},
		{name: ".debug_str", typ: 1, flags: 0x30, data: str},
	})
	r := &shrinkingReader{b: img}
	f, err := newFile("mod.ko", r, int64(len(img)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, ok := f.elf.Section(".debug_str")
	if !ok {
		t.Fatal("no .debug_str")
	}
	r.n = int64(s.Offset) + 3
	_, err = f.stringBytes(secStr, 4)
	var e *elffile.Error
	if !errors.As(err, &e) || !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, elffile.ErrFormat) {
		t.Fatalf("error %v (%T), want an *elffile.Error", err, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "mod.ko") || !strings.Contains(msg, ".debug_str+0x3") {
		t.Errorf("error %q does not name the file, the section and the offset 0x3", msg)
	}
}
