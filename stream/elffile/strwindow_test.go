package elffile

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestStrWindow: strWindow.cstring finds each string of a table in any
// order, strings longer than a window and ones crossing a window's end
// included, and fails past the table or where no NUL ends a string;
// read through the window or whole (readWhole) alike.
func TestStrWindow(t *testing.T) {
	for _, whole := range []bool{false, true} {
		testStrWindow(t, whole)
	}
}

func testStrWindow(t *testing.T, whole bool) {
	long := strings.Repeat("x", 3*strWindowSize+5)
	names := []string{"", "a", "sym_one", long, "after_long"}
	var table []byte
	var offs []uint64
	table = append(table, "junk-before"...) // the table starts inside the file
	start := len(table)
	for i := 0; len(table)-start < 2*strWindowSize; i++ {
		n := names[i%len(names)]
		offs = append(offs, uint64(len(table)-start))
		table = append(append(table, n...), 0)
	}
	table = append(table, "unterminated"...)
	size := uint64(len(table) - start)
	w := strWindow{r: bytes.NewReader(table), off: uint64(start), size: size}
	if whole {
		if err := w.readWhole(); err != nil || uint64(len(w.buf)) != size {
			t.Fatalf("readWhole: %d bytes, %v; want %d", len(w.buf), err, size)
		}
	}
	order := make([]int, 0, 2*len(offs))
	for i := range offs {
		order = append(order, i)
	}
	for i := len(offs) - 1; i >= 0; i -= 3 {
		order = append(order, i) // backwards too
	}
	for _, i := range order {
		got, err := w.cstring(offs[i])
		if want := names[i%len(names)]; err != nil || string(got) != want {
			t.Fatalf("whole %v: string %d at %d: %d bytes, %v; want %d bytes", whole, i, offs[i], len(got), err, len(want))
		}
	}
	for _, off := range []uint64{size - 3, size, size + 100} {
		if _, err := w.cstring(off); !errors.Is(err, ErrFormat) {
			t.Fatalf("whole %v: cstring(%d) of a %d-byte table: %v, want ErrFormat", whole, off, size, err)
		}
	}
	var empty strWindow
	if _, err := empty.cstring(0); !errors.Is(err, ErrFormat) {
		t.Fatalf("empty table: %v", err)
	}
}

// TestStrWindowWholeShort: a table the file cuts short fails readWhole
// with an error naming the section.
func TestStrWindowWholeShort(t *testing.T) {
	w := strWindow{r: bytes.NewReader([]byte("abc\x00de")), off: 2, size: 100}
	var e *Error
	if err := w.readWhole(); !errors.As(err, &e) || e.Section != ".strtab" {
		t.Fatalf("readWhole of a short file: %v, want an *Error for .strtab", err)
	}
}
