package encode

import (
	"debug/dwarf"
	"sync/atomic"

	"github.com/btfstream/btfstream/btf"
)

// Skipping repeated closures (issue 18): a vmlinux's units encode about
// 5M types for about 120k classes, most of them closures an earlier unit
// already put in the table. A Worker given a ClassTable (SetClassTable)
// computes the unit's ClosureKeys before it emits the types; a type DIE
// whose closure is free of declarations and whose key the table holds is
// not converted: the batch refers to the table's class instead, by an
// import id (ImportBit | table id), which dedup's Prepare treats as an
// already-canonical table type. The merger publishes, after each batch,
// the classes of the batch's keyed, declaration-free types the table did
// not hold yet (Batch.Keys).
//
// Why the output does not depend on what a worker saw: a closure without
// declarations deduplicates into one class, which no later batch
// changes (only declarations are resolved over time), so a batch type
// replaced by its class, or kept, ends up in the same class and every
// type that reaches it likewise (bench/skipmeasure checked this at the
// dedup level on the 7.2 and 6.12 vmlinux; BTFSTREAM_SKIPCHECK=1 checks
// it in the pipeline: the worker converts everything and the merger
// asserts each type it would have skipped went into the published class).
// Base types are never skipped (the first "int" may be the arrays' index
// type), nor anything in units with annotations (their TYPE_TAGs and
// DECL_TAGs hang off the types).

// ImportBit marks an import id in a batch: ImportBit|id names table type
// id (dedup.ImportBit is the same bit).
const ImportBit = 1 << 31

// KeyedType is a batch type with the closure key of its DIE: in
// Batch.Keys, a declaration-free closure the merger publishes; in
// Batch.Checks (BTFSTREAM_SKIPCHECK), a type that could have been skipped,
// with Class the table id the ClassTable gave (ID is the batch's).
type KeyedType struct {
	Key   uint64
	ID    btf.TypeID
	Class btf.TypeID
}

// ClassTable maps closure keys (ClosureKeys, declaration-free only) to
// table ids. One goroutine (the merger) inserts; any may look up. An
// open-addressing table of atomic words: a reader that sees a key sees
// its id (the id is stored first).
type ClassTable struct {
	cur atomic.Pointer[classSlots]
	n   int // keys inserted (the writer's)
	// Check makes workers convert every type anyway and list in
	// Batch.Checks the ones they would have skipped, for the merger to
	// assert their classes.
	Check bool
	// Closures with declarations (closureskip_decl.go), if enabled.
	decl   atomic.Pointer[declSlots]
	resNow atomic.Uint32 // the merger's resolutions after its last batch
}

type classSlots struct {
	keySlots
	ids []atomic.Uint32
}

// keySlots are the keys of an open-addressing table of atomic words
// (classSlots, declSlots): keys are never 0, the one writer stores a
// slot's value before its key, so a reader that sees a key sees a value.
type keySlots struct {
	keys []atomic.Uint64
	mask uint64
}

func newKeySlots(n int) keySlots {
	return keySlots{keys: make([]atomic.Uint64, n), mask: uint64(n - 1)}
}

// slot returns key's slot and true, or the empty slot where it would go
// and false.
func (s *keySlots) slot(key uint64) (uint64, bool) {
	for i := key & s.mask; ; i = (i + 1) & s.mask {
		switch s.keys[i].Load() {
		case key:
			return i, true
		case 0:
			return i, false
		}
	}
}

// NewClassTable returns an empty table.
func NewClassTable() *ClassTable {
	t := &ClassTable{}
	t.cur.Store(newClassSlots(1 << 12))
	return t
}

func newClassSlots(n int) *classSlots {
	return &classSlots{keySlots: newKeySlots(n), ids: make([]atomic.Uint32, n)}
}

// Find returns key's table id, 0 if the table does not hold it.
func (t *ClassTable) Find(key uint64) btf.TypeID {
	s := t.cur.Load()
	i, ok := s.slot(key)
	if !ok {
		return 0
	}
	return btf.TypeID(s.ids[i].Load())
}

// Insert records key's table id unless the table has one (keys are
// never 0). Only one goroutine may insert.
func (t *ClassTable) Insert(key uint64, id btf.TypeID) {
	s := t.cur.Load()
	if 2*(t.n+1) > len(s.keys) {
		g := newClassSlots(2 * len(s.keys))
		for i := range s.keys {
			if k := s.keys[i].Load(); k != 0 {
				g.put(k, s.ids[i].Load())
			}
		}
		t.cur.Store(g)
		s = g
	}
	if s.put(key, uint32(id)) {
		t.n++
	}
}

// put inserts key unless present and reports whether it did.
func (s *classSlots) put(key uint64, id uint32) bool {
	i, ok := s.slot(key)
	if !ok {
		s.ids[i].Store(id)
		s.keys[i].Store(key)
	}
	return !ok
}

// Len is how many keys the table holds.
func (t *ClassTable) Len() int { return t.n }

// SetClassTable makes the worker skip the closures t holds (nil: none).
func (w *Worker) SetClassTable(t *ClassTable) {
	w.classes = t
	if t != nil && w.keys == nil {
		w.keys = &ClosureKeys{}
	}
}

// markImports decides, after collect, which of the unit's types are
// imports: c.imp[node] is the table id of a skipped node. It lists in
// b.Keys (by node until emit numbers them; see keyIDs) the keyed
// declaration-free types that are converted.
func (w *Worker) markImports(c *cuConv, b *Batch) {
	keys, decl := w.keys.Unit(c.t.cu)
	c.keyed = w.keys // of this unit: emit finds types through its nodes
	c.imp = resize(c.imp, len(keys))
	tab := w.classes
	// The count first, then the table (SetResolutions).
	res := tab.resNow.Load()
	ds := tab.decl.Load()
	b.DeclRes = res
	for _, i := range c.order {
		if i < 0 || keys[i] == 0 || c.t.tag(i) == dwarf.TagBaseType {
			continue
		}
		if decl[i] {
			if ds != nil {
				w.markDecl(c, b, ds, res, i, keys[i])
			}
			continue
		}
		cls := tab.Find(keys[i])
		switch {
		case cls == 0:
			b.Keys = append(b.Keys, KeyedType{Key: keys[i], ID: btf.TypeID(i)})
		case tab.Check:
			b.Checks = append(b.Checks, KeyedType{Key: keys[i], ID: btf.TypeID(i), Class: cls})
		default:
			c.imp[i] = cls
			c.imports++
			if w.record {
				b.NodeImports = append(b.NodeImports, NodeImport{Node: i, Class: cls})
			}
		}
	}
}

// keysKeptDIEs is the most DIEs a worker above one job keeps its
// ClosureKeys' arrays sized for between units (ClosureKeys.Trim): 1.1 MB.
var keysKeptDIEs = 1 << 15 // a var for tests

// keyIDs turns the node indices markImports left in b.Keys and b.Checks
// into batch ids, once emit has numbered the types.
func (c *cuConv) keyIDs(b *Batch) {
	for i := range b.Keys {
		b.Keys[i].ID = c.idOf[b.Keys[i].ID]
	}
	for i := range b.Checks {
		b.Checks[i].ID = c.idOf[b.Checks[i].ID]
	}
	for i := range b.DeclKeys {
		b.DeclKeys[i].ID = c.idOf[b.DeclKeys[i].ID]
	}
	for i := range b.DeclChecks {
		b.DeclChecks[i].ID = c.idOf[b.DeclChecks[i].ID]
	}
}
