package btf

import (
	"fmt"
	"math/bits"
	"strings"
	"testing"
)

// TestStringsNoMemo: a table without the memo interns exactly as one with
// it, and never allocates the memo.
func TestStringsNoMemo(t *testing.T) {
	a, b := NewStrings(nil), NewStrings(nil).NoMemo()
	names := []string{"int", "long", "int", "x", "long", "y", "int"}
	for _, n := range names {
		if oa, ob := a.Add(n), b.Add(n); oa != ob {
			t.Fatalf("Add(%q): %d with the memo, %d without", n, oa, ob)
		}
	}
	if a.memo == nil || b.memo != nil {
		t.Errorf("memo allocated: with %v, without %v", a.memo != nil, b.memo != nil)
	}
	if string(a.Bytes()) != string(b.Bytes()) {
		t.Errorf("sections differ: %q vs %q", a.Bytes(), b.Bytes())
	}
}

// TestStringsFromBytesNoMemo: a table read from BTF, and a table split
// over it, intern without allocating the memo, finding base strings.
func TestStringsFromBytesNoMemo(t *testing.T) {
	base := StringsFromBytes([]byte("\x00int\x00long\x00"), nil)
	split := NewStrings(base)
	for _, c := range []struct {
		s    *Strings
		name string
		want StrOff
	}{{base, "long", 5}, {split, "int", 1}, {split, "char", 10}, {split, "char", 10}} {
		if got := c.s.Add(c.name); got != c.want {
			t.Errorf("Add(%q) = %d, want %d", c.name, got, c.want)
		}
	}
	if base.memo != nil || split.memo != nil {
		t.Errorf("memo allocated: base %v, split %v", base.memo != nil, split.memo != nil)
	}
}

// TestStringsReset: a reset table interns from scratch, as a new one.
func TestStringsReset(t *testing.T) {
	s := NewStrings(nil)
	s.Add("alpha")
	s.Add("beta")
	s.Reset()
	fresh := NewStrings(nil)
	for _, n := range []string{"beta", "gamma", "beta"} {
		if got, want := s.Add(n), fresh.Add(n); got != want {
			t.Fatalf("Add(%q) after Reset = %d, want %d", n, got, want)
		}
	}
	if string(s.Bytes()) != string(fresh.Bytes()) {
		t.Errorf("after Reset: %q, want %q", s.Bytes(), fresh.Bytes())
	}
	sp := NewSpec()
	sp.Add(Type{Info: MakeInfo(KindPtr, 0, false)})
	sp.Reset()
	if sp.Len() != 0 || sp.NextID() != 1 {
		t.Errorf("Spec after Reset: %d types, next id %d", sp.Len(), sp.NextID())
	}
	base := NewSpec()
	base.Add(Type{Info: MakeInfo(KindPtr, 0, false)})
	split := NewSplitSpec(base)
	split.Add(Type{Info: MakeInfo(KindPtr, 0, false)})
	base.Add(Type{Info: MakeInfo(KindPtr, 0, false)})
	split.ResetSplit(base)
	if split.Len() != 0 || split.FirstID() != 3 || split.Base() != base {
		t.Errorf("split Spec after ResetSplit: %d types, first id %d", split.Len(), split.FirstID())
	}
}

// TestStringsAppend: Append keeps duplicates; a later Add finds the first.
func TestStringsAppend(t *testing.T) {
	s := NewStrings(nil)
	a := s.Append("foo")
	b := s.Append("foo")
	if a == b || s.Name(a) != "foo" || s.Name(b) != "foo" {
		t.Fatalf("Append: %d %d %q %q", a, b, s.Name(a), s.Name(b))
	}
	if c := s.Add("foo"); c != a {
		t.Errorf("Add after Append = %d, want the first, %d", c, a)
	}
	if s.Append("") != 0 {
		t.Error("Append of the empty string is not 0")
	}
}

// TestStringsIndexGrows: interning stays exact while the table grows far
// past the offsets its slots first had room for (the slots widen their
// offsets and hash the strings again), for a table built by Add and for
// one read from bytes with duplicates (the first of equal strings wins).
func TestStringsIndexGrows(t *testing.T) {
	s := NewStrings(nil).NoMemo()
	first := map[string]StrOff{}
	name := func(i int) string { return fmt.Sprintf("name_%d_%s", i%50000, strings.Repeat("x", i%23)) }
	for i := 0; i < 100000; i++ {
		n := name(i)
		off := s.Add(n)
		if f, ok := first[n]; ok && f != off {
			t.Fatalf("Add(%q) = %d, first added at %d", n, off, f)
		} else if !ok {
			first[n] = off
		}
		if s.Name(off) != n {
			t.Fatalf("Name(%d) = %q, want %q", off, s.Name(off), n)
		}
	}
	if s.Len() < 1<<20 {
		t.Fatalf("only %d bytes: the test does not grow the offsets", s.Len())
	}
	// The same bytes, twice, read as a section: the first copy wins.
	raw := append(append([]byte(nil), s.Bytes()...), s.Bytes()[1:]...)
	r := StringsFromBytes(raw, nil)
	for n, off := range first {
		if got := r.AddBytes([]byte(n)); got != off {
			t.Fatalf("read table: AddBytes(%q) = %d, want %d", n, got, off)
		}
		if got, ok := r.Find([]byte(n)); !ok || got != off {
			t.Fatalf("read table: Find(%q) = %d %v, want %d", n, got, ok, off)
		}
	}
	if _, ok := r.Find([]byte("absent")); ok {
		t.Error("Find of an absent string succeeded")
	}
	split := NewStrings(r)
	if got := split.AddBytes([]byte(name(5))); got != first[name(5)] {
		t.Errorf("split: AddBytes of a base string = %d, want %d", got, first[name(5)])
	}
	if got := split.AddBytes([]byte("new")); uint32(got) != r.Len() {
		t.Errorf("split: AddBytes of a new string = %d, want %d", got, r.Len())
	}
}

// TestStringsUnique: Unique is false exactly when two string starts hold
// equal strings (or an empty string is not the table's first).
func TestStringsUnique(t *testing.T) {
	base := StringsFromBytes([]byte("\x00int\x00long\x00"), nil)
	for _, tc := range []struct {
		name string
		data string
		base *Strings
		want bool
	}{
		{"distinct", "\x00int\x00long\x00char\x00", nil, true},
		{"repeat", "\x00int\x00long\x00int\x00", nil, false},
		{"tail is no start", "\x00xint\x00int\x00", nil, true},
		{"second empty", "\x00int\x00\x00long\x00", nil, false},
		{"split distinct", "char\x00short\x00", base, true},
		{"split repeats local", "char\x00char\x00", base, false},
		{"split empty", "char\x00\x00", base, false},
	} {
		s := StringsFromBytes([]byte(tc.data), tc.base)
		if got := s.Unique(); got != tc.want {
			t.Errorf("%s: Unique() = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Appended duplicates are seen once indexed; DropIndex forgets them
	// only until the strings are indexed again.
	s := NewStrings(nil)
	s.Add("a")
	if !s.Unique() {
		t.Fatal("one string: not unique")
	}
	s.Append("a")
	if s.Unique() {
		t.Fatal("appended duplicate: unique")
	}
	s.DropIndex()
	if s.Unique() {
		t.Fatal("duplicate after DropIndex and indexing again: unique")
	}
}

// TestStringsDense: a table read from BTF sizes its lookup set for its
// strings at up to 3/4 load in a size that need not be a power of two,
// and finds every string at its first occurrence (duplicates included),
// misses absent ones, and keeps doing so as strings are added over it,
// directly and through a split table.
func TestStringsDense(t *testing.T) {
	for _, n := range []int{10, 1000, 5000, 20000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := []byte{0}
			first := map[string]StrOff{}
			for i := range n {
				str := fmt.Sprintf("s%d", i%(n-n/10)) // the last tenth repeats
				if _, ok := first[str]; !ok {
					first[str] = StrOff(len(data))
				}
				data = append(append(data, str...), 0)
			}
			base := StringsFromBytes(data, nil)
			split := NewStrings(base)
			if off, ok := split.Find([]byte("s1")); !ok || off != first["s1"] {
				t.Fatalf("Find(s1) through the split = %d, %v; want %d", off, ok, first["s1"])
			}
			if len(data) >= 4096 {
				if half := 1 << bits.Len(uint(2*n)); len(base.slots) >= half || 4*base.used >= 3*len(base.slots) {
					t.Errorf("%d strings in %d slots: want fewer than %d (half load) and at most 3/4 load", base.used, len(base.slots), half)
				}
			}
			check := func(what string) {
				for str, want := range first {
					if got, ok := base.Find([]byte(str)); !ok || got != want {
						t.Fatalf("%s: Find(%q) = %d, %v; want %d", what, str, got, ok, want)
					}
				}
				if _, ok := base.Find([]byte("absent")); ok {
					t.Fatalf("%s: Find(absent) found it", what)
				}
			}
			check("indexed")
			for i := range n / 2 {
				str := fmt.Sprintf("new%d", i)
				off := base.Add(str)
				first[str] = off
				if got := split.Add(str); got != off {
					t.Fatalf("split Add(%q) = %d, want the base's %d", str, got, off)
				}
			}
			check("after adds")
		})
	}
}
