package elffile

import "sync"

// pageTable is the page cache of a file no larger than the cache budget
// (a module): every page read is kept until the cache is dropped, which
// the budget allows, so no eviction policy is needed (pages are keyed by
// reader, and the readers of a section are made once per file: dwarfread's
// sections, the symbol table's names). It replaced a ristretto cache
// there (whose set buffer of 32768 pointers the collector scanned at each
// cycle: on tcp_bbr.ko about 2M instructions a cycle) before the bounded
// cache became spill.Cache, which would hold the same pages at the cost
// of a ring and an index. Safe for concurrent use; keys are Paged's
// (readerID<<40 | page number).
type pageTable struct {
	mu     sync.Mutex
	pages  map[uint64][]byte
	closed bool
}

func newPageTable() *pageTable { return &pageTable{pages: map[uint64][]byte{}} }

// get returns the page kept under key.
func (t *pageTable) get(key uint64) ([]byte, bool) {
	t.mu.Lock()
	b, ok := t.pages[key]
	t.mu.Unlock()
	return b, ok
}

// set keeps page b under key (not once the table is closed).
func (t *pageTable) set(key uint64, b []byte) {
	t.mu.Lock()
	if !t.closed {
		t.pages[key] = b
	}
	t.mu.Unlock()
}

// close drops every page; later gets miss and sets keep nothing, so
// readers made before keep working, reading pages from the file.
func (t *pageTable) close() {
	t.mu.Lock()
	t.pages, t.closed = nil, true
	t.mu.Unlock()
}
