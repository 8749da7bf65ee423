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

// EnableDecl makes workers skip closures with declarations too. Only for
// a pipeline whose worker runs between the merger's batches (one job).
func (t *ClassTable) EnableDecl() { t.decl = map[uint64]declClass{} }

// DeclEnabled reports whether EnableDecl was called.
func (t *ClassTable) DeclEnabled() bool { return t.decl != nil }

// InsertDecl records id as the class of the last copy of key, made by a
// batch added after res resolutions.
func (t *ClassTable) InsertDecl(key uint64, id btf.TypeID, res uint32) {
	t.decl[key] = declClass{id, res}
}

// SetResolutions records the merger's resolutions after a batch.
func (t *ClassTable) SetResolutions(n uint32) { t.resNow = n }

// markDecl decides for node i, whose closure (of key) has declarations.
func (w *Worker) markDecl(c *cuConv, b *Batch, i int32, key uint64) {
	tab := w.classes
	e, ok := tab.decl[key]
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
func (t *ClassTable) DeclLen() int { return len(t.decl) }

// ForgetDecl drops the keys with declarations (their memory too): none
// is usable once a declaration is resolved.
func (t *ClassTable) ForgetDecl() { t.decl = map[uint64]declClass{} }
