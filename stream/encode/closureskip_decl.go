package encode

import "github.com/btfstream/btfstream/btf"

// Closures with declarations (issue 18, step 2): dedup may put two equal
// closures holding a declaration into different classes, because
// declarations are resolved over time; but while none is resolved, a
// repeated closure goes where its last copy went (bench/skipmeasure: the
// same table on the 7.2 and 6.12 vmlinux). So the table keeps, per key,
// the class of the last copy and how many declarations the merger had
// resolved before the batch that holds it; a worker imports the class
// only when that count is the merger's count now. That needs the worker
// to see the merger's table as it is, which only one job guarantees (the
// worker encodes a unit after the merger added the one before): the
// pipeline enables it then (EnableDecl), and the merger refuses a batch
// whose count is no longer its own.

// declClass is the last copy's class of a key with declarations, and the
// resolutions before the batch that made it.
type declClass struct {
	class btf.TypeID
	res   uint32
}

// declTable maps keys to their last copy's class: open addressing,
// overwritten in place (one goroutine: the pipeline enables it at one job).
type declTable struct {
	keys []uint64
	vals []declClass
	n    int
}

func newDeclTable(n int) *declTable {
	return &declTable{keys: make([]uint64, n), vals: make([]declClass, n)}
}

func (d *declTable) find(key uint64) (declClass, bool) {
	mask := uint64(len(d.keys) - 1)
	for i := key & mask; ; i = (i + 1) & mask {
		switch d.keys[i] {
		case key:
			return d.vals[i], true
		case 0:
			return declClass{}, false
		}
	}
}

func (d *declTable) put(key uint64, v declClass) {
	if 2*(d.n+1) > len(d.keys) {
		g := newDeclTable(2 * len(d.keys))
		for i, k := range d.keys {
			if k != 0 {
				g.put(k, d.vals[i])
			}
		}
		*d = *g
	}
	mask := uint64(len(d.keys) - 1)
	for i := key & mask; ; i = (i + 1) & mask {
		switch d.keys[i] {
		case key:
			d.vals[i] = v
			return
		case 0:
			d.keys[i], d.vals[i] = key, v
			d.n++
			return
		}
	}
}

// EnableDecl makes workers skip closures with declarations too. Only for
// a pipeline whose worker runs between the merger's batches (one job).
func (t *ClassTable) EnableDecl() { t.decl = newDeclTable(1 << 12) }

// DeclEnabled reports whether EnableDecl was called.
func (t *ClassTable) DeclEnabled() bool { return t.decl != nil }

// InsertDecl records id as the class of the last copy of key, made by a
// batch added after res resolutions.
func (t *ClassTable) InsertDecl(key uint64, id btf.TypeID, res uint32) {
	t.decl.put(key, declClass{id, res})
}

// SetResolutions records the merger's resolutions after a batch.
func (t *ClassTable) SetResolutions(n uint32) { t.resNow = n }

// markDecl decides for node i, whose closure (of key) has declarations.
func (w *Worker) markDecl(c *cuConv, b *Batch, i int32, key uint64) {
	tab := w.classes
	e, ok := tab.decl.find(key)
	switch {
	case !ok || e.res != tab.resNow:
		b.DeclKeys = append(b.DeclKeys, KeyedType{Key: key, ID: btf.TypeID(i)})
	case tab.Check:
		b.Checks = append(b.Checks, KeyedType{Key: key, ID: btf.TypeID(i), Class: e.class})
		b.DeclKeys = append(b.DeclKeys, KeyedType{Key: key, ID: btf.TypeID(i)})
	default:
		c.imp[i] = e.class
		c.imports++
		b.DeclImports++
	}
}

// DeclLen is how many keys with declarations the table holds.
func (t *ClassTable) DeclLen() int {
	if t.decl == nil {
		return 0
	}
	return t.decl.n
}

// ForgetDecl drops the keys with declarations (a large table's memory
// too): none is usable once a declaration is resolved.
func (t *ClassTable) ForgetDecl() {
	if len(t.decl.keys) > 1<<16 {
		t.decl = newDeclTable(1 << 12)
		return
	}
	clear(t.decl.keys)
	t.decl.n = 0
}
