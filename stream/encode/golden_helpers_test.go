package encode

import (
	"testing"

	"github.com/btfstream/btfstream/stream/dwarfread"
)

// goldenWorker makes a worker for f as the pipeline does, with the
// default features and the symbols of the sections keep accepts.
func goldenWorker(t *testing.T, f *dwarfread.File, keep func(shndx uint32) bool) *Worker {
	t.Helper()
	syms, err := ReadSymbols(f.ELF(), keep)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := New(f, syms, Config{Features: DefaultFeatures})
	if err != nil {
		t.Fatal(err)
	}
	return enc.NewWorker()
}

// nextDecoded returns ur's next unit, decoded, or nil after the last.
func nextDecoded(t *testing.T, ur *dwarfread.UnitReader) *dwarfread.CU {
	t.Helper()
	cu, err := ur.Next()
	if err != nil {
		t.Fatal(err)
	}
	if cu != nil {
		if err := cu.Decode(); err != nil {
			t.Fatal(err)
		}
	}
	return cu
}
