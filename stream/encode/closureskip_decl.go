package encode

import (
	"sync/atomic"

	"github.com/btfstream/btfstream/btf"
)

// Closures with declarations (issue 18): dedup may put two equal closures
// holding a declaration into different classes, because declarations are
// resolved over time; but while none is resolved, a repeated closure goes
// where its last copy went (bench/skipmeasure: the same table on the 7.2
// and 6.12 vmlinux). So the table keeps, per key, the class of the last
// copy and how many declarations the merger had resolved before the batch
// that holds it (every entry is dropped when a batch resolves one), and a
// worker imports the class only when that count is the merger's count as
// the worker reads it. A worker running ahead of the merger (more than
// one job) may have read a count the batches in flight then raise: its
// batch is stale, and the merger must not add it (Merger.Stale; the
// pipeline has the unit encoded again against the table as it is then,
// as the one worker of -j1 always sees it).

// declSlots maps keys to their last copy's class: open addressing, values
// overwritten in place. One goroutine (the merger) writes; any may read.
// A value packs the class (high 32 bits) and the resolutions (low 32), so
// a reader sees one put whole; it sees a key only after its value.
type declSlots struct {
	keySlots
	vals []atomic.Uint64
	n    int // keys put (the writer's)
}

func newDeclSlots(n int) *declSlots {
	return &declSlots{keySlots: newKeySlots(n), vals: make([]atomic.Uint64, n)}
}

// find returns key's class and the resolutions before its batch.
func (d *declSlots) find(key uint64) (class btf.TypeID, res uint32, ok bool) {
	i, ok := d.slot(key)
	if !ok {
		return 0, 0, false
	}
	v := d.vals[i].Load()
	return btf.TypeID(v >> 32), uint32(v), true
}

// put records v for key, overwriting; it reports whether key is new.
func (d *declSlots) put(key, v uint64) bool {
	i, ok := d.slot(key)
	d.vals[i].Store(v)
	if !ok {
		d.keys[i].Store(key)
		d.n++
	}
	return !ok
}

// EnableDecl makes workers skip closures with declarations too. Their
// batches must then go through Merger.Stale (the pipeline does that).
// It may be called more than once, from any goroutine.
func (t *ClassTable) EnableDecl() { t.decl.CompareAndSwap(nil, newDeclSlots(1<<12)) }

// DeclEnabled reports whether EnableDecl was called.
func (t *ClassTable) DeclEnabled() bool { return t.decl.Load() != nil }

// InsertDecl records id as the class of the last copy of key, made by a
// batch added after res resolutions. Only the merger's goroutine may call
// it.
func (t *ClassTable) InsertDecl(key uint64, id btf.TypeID, res uint32) {
	d := t.decl.Load()
	if 2*(d.n+1) > len(d.keys) {
		g := newDeclSlots(2 * len(d.keys))
		for i := range d.keys {
			if k := d.keys[i].Load(); k != 0 {
				g.put(k, d.vals[i].Load())
			}
		}
		t.decl.Store(g)
		d = g
	}
	d.put(key, uint64(id)<<32|uint64(res))
}

// SetResolutions records the merger's resolutions after a batch. After
// ForgetDecl: a worker reads the count first, then the table, so a worker
// that reads the new count finds only entries made under it.
func (t *ClassTable) SetResolutions(n uint32) { t.resNow.Store(n) }

// markDecl decides for node i, whose closure (of key) has declarations,
// against d read after res (the merger's resolutions then).
func (w *Worker) markDecl(c *cuConv, b *Batch, d *declSlots, res uint32, i int32, key uint64) {
	cls, r, ok := d.find(key)
	switch {
	case !ok || r != res:
		b.DeclKeys = append(b.DeclKeys, KeyedType{Key: key, ID: btf.TypeID(i)})
	case w.classes.Check:
		b.DeclChecks = append(b.DeclChecks, KeyedType{Key: key, ID: btf.TypeID(i), Class: cls})
		b.DeclKeys = append(b.DeclKeys, KeyedType{Key: key, ID: btf.TypeID(i)})
	default:
		c.imp[i] = cls
		c.imports++
		b.DeclImports++
		b.DeclClasses = append(b.DeclClasses, cls)
		if w.record {
			b.NodeImports = append(b.NodeImports, NodeImport{Node: i, Class: cls, Decl: true})
		}
	}
}

// DeclLen is how many keys with declarations the table holds.
func (t *ClassTable) DeclLen() int {
	if d := t.decl.Load(); d != nil {
		return d.n
	}
	return 0
}

// ForgetDecl drops the keys with declarations: none is usable once a
// declaration is resolved. Workers may still read the old table (their
// batches are then stale), so it is replaced, not cleared.
func (t *ClassTable) ForgetDecl() { t.decl.Store(newDeclSlots(1 << 12)) }
