package btf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// manyInts returns a base of n INTs named int_0 ... int_{n-1}, each with
// its word, so types, words and strings all grow with n.
func manyInts(n int) *Spec {
	s := NewSpec()
	for i := range n {
		s.Add(Type{NameOff: s.Strings().Add(fmt.Sprintf("int_%d", i)), Info: MakeInfo(KindInt, 0, false), SizeOrType: 4}, MakeIntInfo(IntSigned, 0, 32))
	}
	return s
}

// heapAllocated returns how many bytes fn allocated on the Go heap.
func heapAllocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLoadForProcessOutsideHeap: a base loaded for the process reads as
// LoadRaw's does (types, strings, lookups by name), and neither its types
// and strings nor its string index are allocated on the Go heap.
func TestLoadForProcessOutsideHeap(t *testing.T) {
	if mapAnon(4096) == nil {
		t.Skip("no anonymous mappings on this host: LoadAtForProcess uses the heap")
	}
	n := 60000
	if testing.Short() {
		n = 20000
	}
	data := manyInts(n).Marshal()
	var inHeap, outside *Spec
	onHeap := heapAllocated(func() {
		var err error
		if inHeap, err = LoadRaw(bytes.NewReader(data), nil); err != nil {
			t.Fatal(err)
		}
		inHeap.Strings().Unique()
	})
	off := heapAllocated(func() {
		var err error
		if outside, err = LoadRawForProcess(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		outside.Strings().Unique()
	})
	// In the heap: types, words, offsets, strings and index, more than
	// the raw bytes. Outside: the type stream's buffer and small objects.
	if onHeap < uint64(len(data)) {
		t.Errorf("LoadRaw allocated %d bytes for %d bytes of BTF: the comparison measures nothing", onHeap, len(data))
	}
	if off > typeStreamBuf+64<<10 {
		t.Errorf("LoadRawForProcess allocated %d bytes on the heap (LoadRaw: %d) for %d bytes of BTF", off, onHeap, len(data))
	}
	if !outside.ForProcess() || inHeap.ForProcess() {
		t.Errorf("ForProcess: %v for LoadRawForProcess, %v for LoadRaw", outside.ForProcess(), inHeap.ForProcess())
	}
	if !bytes.Equal(outside.Marshal(), data) {
		t.Fatal("the Spec loaded for the process marshals differently")
	}
	if !outside.Strings().Unique() {
		t.Error("distinct names reported not unique")
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		name := fmt.Sprintf("int_%d", i)
		got, ok := outside.Strings().Find([]byte(name))
		want, _ := inHeap.Strings().Find([]byte(name))
		if !ok || got != want || outside.Name(TypeID(i+1)) != name {
			t.Errorf("%s: Find %d %v (want %d), type %d named %q", name, got, ok, want, i+1, outside.Name(TypeID(i+1)))
		}
	}
	if _, ok := outside.Strings().Find([]byte("int_x")); ok {
		t.Error("a name the base lacks was found")
	}
}

// shrinkingFile reads a file that is truncated to cut bytes (as by
// another process) just before read number after.
type shrinkingFile struct {
	f     *os.File
	after int
	cut   int64
	reads int
}

func (s *shrinkingFile) ReadAt(p []byte, off int64) (int, error) {
	if s.reads == s.after {
		if err := s.f.Truncate(s.cut); err != nil {
			return 0, err
		}
	}
	s.reads++
	return s.f.ReadAt(p, off)
}

// TestLoadForProcessShrinkingFile: a base file that shrinks while it is
// read (its bytes are read into memory, the file is never mapped, so
// there is no SIGBUS) fails with an error, a truncation FormatError at an
// offset once the header has been read, whatever read the cut comes
// before; reads the cut does not reach load as before.
func TestLoadForProcessShrinkingFile(t *testing.T) {
	data := manyInts(3000).Marshal()
	path := filepath.Join(t.TempDir(), "vmlinux.btf")
	for after := 0; after < 8; after++ {
		for _, cut := range []int64{0, 10, HeaderLen + 100, int64(len(data)) / 2, int64(len(data)) - 1} {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			r := &shrinkingFile{f: f, after: after, cut: cut}
			s, err := LoadRawForProcess(r)
			f.Close()
			what := fmt.Sprintf("cut to %d bytes before read %d", cut, after)
			var fe *FormatError
			switch {
			case err == nil:
				// The cut reached none of the bytes read after it.
				if !bytes.Equal(s.Marshal(), data) {
					t.Errorf("%s: loaded, and marshals differently", what)
				}
				if r.reads > after && cut < int64(len(data))/2 {
					t.Errorf("%s: loaded from half a file", what)
				}
			case r.reads <= after:
				t.Errorf("%s (%d reads in all): %v", what, r.reads, err)
			case after == 0:
				// The header: "reading header: EOF".
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrTruncated) {
					t.Errorf("%s: %v", what, err)
				}
			case !errors.As(err, &fe) || !errors.Is(err, ErrTruncated) || fe.Off < 0:
				t.Errorf("%s: got %v, want a truncation FormatError at an offset", what, err)
			case after == 2 && cut == HeaderLen+100:
				t.Logf("%s: %v", what, err)
			}
		}
	}
}
