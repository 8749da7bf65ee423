package dedup

import (
	"bytes"
	"slices"
	"testing"
)

// TestResolveAheadCases: every case without a base, fed one batch per CU
// with ResolveAhead called before the last batch, finishes to the same
// bytes as Dedup (the last batch mostly adds what the early pass read,
// so Finish runs it again).
func TestResolveAheadCases(t *testing.T) {
	n := 0
	for _, c := range dedupCases {
		if c.base != nil || len(c.cus) == 0 {
			continue
		}
		n++
		_, labels, in := buildCase(c)
		want, _, err := Dedup(in)
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewIncremental(nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range c.cus {
			if i == len(c.cus)-1 {
				d.ResolveAhead()
			}
			b := newBuilder(d.NewBatch(), labels)
			f(b)
			if _, err := d.AddBatch(b.done()); err != nil {
				t.Fatal(err)
			}
		}
		got, _, err := d.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Marshal(), want.Marshal()) {
			t.Errorf("%s: with ResolveAhead\n\t%v\nwant\n\t%v", c.name, dump(got), dump(want))
		}
	}
	if n == 0 {
		t.Fatal("no case without a base")
	}
}

// TestResolveAheadTaken: a FWD that Finish resolves by its unique name;
// ResolveAhead's result is taken when the batches after it add only
// function types (sized for the table as it is then, equal to what
// resolveFwds finds), and not when one adds a kind the pass reads.
func TestResolveAheadTaken(t *testing.T) {
	units := []cu{
		func(b *builder) { b.Int("i", "int", 4); b.Struct("foo", "foo", 4, "x:i@0") },
		barToFwd(false),
	}
	funcs := func(b *builder) { b.Proto("fp", "void"); b.Func("f", "f", "fp") }
	for _, c := range []struct {
		name  string
		after []cu
		taken bool
	}{
		{"functions", []cu{funcs, funcs}, true},
		{"nothing", nil, true},
		{"an INT", []cu{funcs, func(b *builder) { b.Int("l", "long", 8) }}, false},
		{"a struct", []cu{func(b *builder) { b.Struct("foo", "foo", 0) }}, false},
		{"a FWD", []cu{barToFwd(true)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(ahead bool) (*Incremental, []uint32, bool) {
				d, err := NewIncremental(nil)
				if err != nil {
					t.Fatal(err)
				}
				for i, f := range append(slices.Clone(units), c.after...) {
					if ahead && i == len(units) {
						d.ResolveAhead()
					}
					b := newBuilder(d.NewBatch(), nil)
					f(b)
					if _, err := d.AddBatch(b.done()); err != nil {
						t.Fatal(err)
					}
				}
				if ahead {
					d.ResolveAhead() // (nothing after the units; else a second call)
				}
				target, ok := d.aheadTarget()
				return d, target, ok
			}
			d, target, ok := run(true)
			if ok != c.taken {
				t.Fatalf("taken %v, want %v", ok, c.taken)
			}
			want := d.resolveFwds()
			if c.taken && !slices.ContainsFunc(want, func(v uint32) bool { return v != 0 }) {
				t.Fatal("the FWD does not resolve")
			}
			if ok && !slices.Equal(target, want) {
				t.Errorf("target %v, want %v", target, want)
			}
			plain, _, _ := run(false)
			a, _, err := d.Finish()
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := plain.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Marshal(), b.Marshal()) {
				t.Errorf("output\n\t%v\nwant\n\t%v", dump(a), dump(b))
			}
		})
	}
}
