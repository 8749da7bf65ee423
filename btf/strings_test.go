package btf

import "testing"

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
