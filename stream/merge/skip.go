package merge

import (
	"fmt"
	"os"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/stream/encode"
)

// Skipping repeated closures (encode's closureskip.go): the merger keeps
// the ClassTable its workers read, and publishes after each batch the
// classes of the batch's keyed, declaration-free types the table did not
// have. BTFSTREAM_SKIP=0 turns it off; BTFSTREAM_SKIPCHECK=1 makes the
// workers convert everything and the merger assert that each type they
// would have skipped went into the class the table gave.

// The batch's import ids are dedup's.
var _ [0]struct{} = [encode.ImportBit - dedup.ImportBit]struct{}{}

// newClassTable returns the table for a merger with cfg, or nil when
// closures are not skipped: with a base (a module's units are resolved
// by the merger alone) or without dedup.
func newClassTable(cfg Config) *encode.ClassTable {
	if cfg.Base != nil || cfg.NoDedup || os.Getenv("BTFSTREAM_SKIP") == "0" {
		return nil
	}
	t := encode.NewClassTable()
	t.Check = os.Getenv("BTFSTREAM_SKIPCHECK") == "1"
	return t
}

// ClassTable returns the table of classes workers that prepare with
// m.NewPreparer may skip (Worker.SetClassTable), nil if none.
func (m *Merger) ClassTable() *encode.ClassTable { return m.classes }

// withImports extends a batch-to-table map to the batch's import ids.
func withImports(table func(btf.TypeID) btf.TypeID) func(btf.TypeID) btf.TypeID {
	return func(id btf.TypeID) btf.TypeID {
		if id >= encode.ImportBit {
			return id &^ encode.ImportBit
		}
		return table(id)
	}
}

// publish records the classes of b's new keys, and checks b's Checks.
func (m *Merger) publish(b *encode.Batch, table func(btf.TypeID) btf.TypeID) error {
	if m.classes == nil {
		return nil
	}
	for _, k := range b.Keys {
		m.classes.Insert(k.Key, table(k.ID))
	}
	for _, k := range b.Checks {
		if got := table(k.ID); got != k.Class {
			return fmt.Errorf("unit %q: BTFSTREAM_SKIPCHECK: type %d of closure key %#x went into [%d], the class table says [%d]", b.Name, k.ID, k.Key, got, k.Class)
		}
	}
	m.imported += b.Imports
	return nil
}

// Imported reports how many batch types workers skipped as imports.
func (m *Merger) Imported() int { return m.imported }

// reportSkips prints, with BTFSTREAM_SKIPSTATS set, how many types the
// workers skipped and how many keys the table holds.
func (m *Merger) reportSkips() {
	if m.classes != nil && os.Getenv("BTFSTREAM_SKIPSTATS") != "" {
		fmt.Fprintf(os.Stderr, "skip: %d batch types imported, %d keys\n", m.imported, m.classes.Len())
	}
}
