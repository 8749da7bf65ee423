package merge

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/encode"
)

// TestStaleBatch forces what -j2 meets at random: a worker encodes a unit
// while the batch before it, still on its way to the merger, resolves a
// declaration. stale.o's units are A (struct foo and struct bar
// declared), B (struct foo defined), A again, and D (struct bar
// declared). A, B and X are merged in order, X encoded before B is
// added, as a worker ahead of the merger would: it skips closures with a
// declaration at the count before B. For X = A again, those closures
// reach struct foo: Stale must say so, Add must refuse the batch, and
// encoded again against the table as it is then (the pipeline's
// fallback) it gives the bytes of merging without skipping. For X = D,
// they reach no struct foo: Stale lets the batch through by name, with
// the same bytes.
func TestStaleBatch(t *testing.T) {
	for _, env := range []string{"BTFSTREAM_SKIP", "BTFSTREAM_SKIPDECL", "BTFSTREAM_SKIPNAMES", "BTFSTREAM_SKIPREACH", "BTFSTREAM_SKIPCHECK"} {
		t.Setenv(env, "")
	}
	f, err := dwarfread.Open("../testdata/encode/golden/amd64/stale.o", dwarfread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ur, err := f.NewUnitReader(dwarfread.UnitOptions{NoTypeUnits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ur.Close()
	var cus []*dwarfread.CU
	for {
		cu, err := ur.Next()
		if err != nil {
			t.Fatal(err)
		}
		if cu == nil {
			break
		}
		if err := cu.Decode(); err != nil {
			t.Fatal(err)
		}
		defer cu.Release()
		cus = append(cus, cu)
	}
	if len(cus) != 4 {
		t.Fatalf("stale.o: %d units, want 4", len(cus))
	}
	ef := f.ELF()
	syms, err := encode.ReadSymbols(ef, func(uint32) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	feat := encode.DefaultFeatures
	enc, err := encode.New(f, syms, encode.Config{Features: feat})
	if err != nil {
		t.Fatal(err)
	}
	secNames := make([]string, len(ef.Sections))
	for i := range ef.Sections {
		secNames[i] = ef.Sections[i].Name
	}
	// run merges A, B, X (unit x); with refuse, a stale batch is added as
	// it is, and Add must fail.
	run := func(x int, skip, wantStale, refuse bool) []byte {
		m, err := New(Config{Features: feat, Syms: syms, SectionNames: secNames})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		w, pp := enc.NewWorker(), m.NewPreparer()
		if skip {
			m.SkipDeclarations()
			w.SetClassTable(m.ClassTable())
			w.RecordImports()
		}
		encodeUnit := func(cu *dwarfread.CU) *encode.Batch {
			b, err := w.Encode(cu, nil)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		add := func(b *encode.Batch) {
			p, err := pp.Prepare(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Add(b, p); err != nil {
				t.Fatal(err)
			}
		}
		add(encodeUnit(cus[0]))
		ahead := encodeUnit(cus[x]) // before B is added
		add(encodeUnit(cus[1]))
		if m.resolutions() == 0 {
			t.Fatal("unit B resolved no declaration: the test tests nothing")
		}
		if skip && (ahead.DeclImports == 0 || ahead.DeclRes == m.resolutions()) {
			t.Fatalf("unit %d: %d closures with declarations skipped after %d resolutions, now %d: the test tests nothing",
				x, ahead.DeclImports, ahead.DeclRes, m.resolutions())
		}
		stale := m.Stale(ahead)
		if stale != (skip && wantStale) {
			t.Errorf("unit %d, skip %v: Stale %v", x, skip, stale)
		}
		if stale && refuse {
			p, err := pp.Prepare(ahead, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Add(ahead, p); err == nil {
				t.Error("Add took a stale batch")
			}
			return nil
		}
		if stale {
			// As the pipeline does: the same DIEs skipped but for the
			// closures with declarations (Restale drops them all).
			imps, res := m.Restale(ahead, append([]encode.NodeImport(nil), ahead.NodeImports...))
			for _, x := range imps {
				if x.Decl {
					t.Fatalf("Restale kept import %+v, with declarations", x)
				}
			}
			if len(imps) == len(ahead.NodeImports) {
				t.Fatal("Restale dropped no import")
			}
			again, err := enc.NewWorker().EncodeImports(cus[x], nil, imps, res)
			if err != nil {
				t.Fatal(err)
			}
			if again.DeclImports != 0 || m.Stale(again) {
				t.Errorf("encoded again: %d imports with declarations, stale %v", again.DeclImports, m.Stale(again))
			}
			ahead = again
		}
		add(ahead)
		if _, _, err := m.Funcs(); err != nil {
			t.Fatal(err)
		}
		out, err := m.Finish(binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		return out.Marshal()
	}
	for _, c := range []struct {
		x     int
		stale bool
	}{{2, true}, {3, false}} {
		want := run(c.x, false, c.stale, false)
		if got := run(c.x, true, c.stale, false); !bytes.Equal(got, want) {
			t.Errorf("unit %d ahead of B: %d bytes, without skipping %d, not the same", c.x, len(got), len(want))
		}
		if c.stale {
			run(c.x, true, true, true)
		}
	}
}

// TestSkipsAt: workers skip closures at any number of jobs by default;
// BTFSTREAM_SKIP=j1 keeps it to one job, =0 turns it off; a merger over a
// base (a module) never skips.
func TestSkipsAt(t *testing.T) {
	for _, c := range []struct {
		env      string
		base     bool
		at1, at2 bool
	}{
		{"", false, true, true},
		{"all", false, true, true},
		{"j1", false, true, false},
		{"0", false, false, false},
		{"", true, false, false},
	} {
		t.Setenv("BTFSTREAM_SKIP", c.env)
		cfg := Config{}
		if c.base {
			cfg.Base = &btf.Spec{}
		}
		var m Merger
		m.initSkip(cfg)
		if got1, got2 := m.SkipsAt(1), m.SkipsAt(2); got1 != c.at1 || got2 != c.at2 {
			t.Errorf("BTFSTREAM_SKIP=%q base %v: SkipsAt(1), (2) = %v, %v, want %v, %v", c.env, c.base, got1, got2, c.at1, c.at2)
		}
	}
}
