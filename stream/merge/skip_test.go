package merge

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/encode"
)

// TestStaleBatch forces what -j2 meets at random: a worker encodes a unit
// while the batch before it, still on its way to the merger, resolves a
// declaration. stale.o's units A (struct foo declared), B (defined) and
// A again are merged in order, the second A encoded before B is added, as
// a worker ahead of the merger would: it skips closures with
// the declaration at the count before B, so Stale must say so; encoded
// again against the table as it is then (the pipeline's fallback), the
// output is byte for byte that of merging without skipping.
func TestStaleBatch(t *testing.T) {
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
	if len(cus) != 3 {
		t.Fatalf("stale.o: %d units, want 3", len(cus))
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
	// run merges A, B, A; with refuse, a stale batch is added as it is,
	// and Add must fail.
	run := func(skip, refuse bool) []byte {
		m, err := New(Config{Features: feat, Syms: syms, SectionNames: secNames})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		w, pp := enc.NewWorker(), m.NewPreparer()
		if skip {
			m.SkipDeclarations()
			w.SetClassTable(m.ClassTable())
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
		ahead := encodeUnit(cus[2]) // before B is added
		add(encodeUnit(cus[1]))
		if m.resolutions() == 0 {
			t.Fatal("unit B resolved no declaration: the test tests nothing")
		}
		stale := m.Stale(ahead)
		if skip != stale {
			t.Errorf("skip %v: Stale %v (%d closures with declarations skipped after %d resolutions, now %d)",
				skip, stale, ahead.DeclImports, ahead.DeclRes, m.resolutions())
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
			ahead = encodeUnit(cus[2])
			if m.Stale(ahead) {
				t.Error("encoded again, still stale")
			}
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
	want := run(false, false)
	if got := run(true, false); !bytes.Equal(got, want) {
		t.Errorf("stale batch encoded again: %d bytes, without skipping %d, not the same", len(got), len(want))
	}
	run(true, true)
}
