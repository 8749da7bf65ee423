package encode

import (
	"sync"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// TestClassTable: keys inserted by one goroutine are found with their
// ids by others while the table grows; a key is never found with another
// id, and an absent key is not found.
func TestClassTable(t *testing.T) {
	tab := NewClassTable()
	const n = 50000
	key := func(i int) uint64 { return mixKey(0x5eed, uint64(i)) | 1 }
	var wg sync.WaitGroup
	done := make(chan struct{})
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := r; ; i = (i + 7) % n {
				select {
				case <-done:
					return
				default:
				}
				if got := tab.Find(key(i)); got != 0 && got != btf.TypeID(i+1) {
					t.Errorf("key %d found as %d", i, got)
					return
				}
			}
		}()
	}
	for i := range n {
		tab.Insert(key(i), btf.TypeID(i+1))
		tab.Insert(key(i), btf.TypeID(i+2)) // the first id stays
	}
	close(done)
	wg.Wait()
	if tab.Len() != n {
		t.Errorf("Len %d, want %d", tab.Len(), n)
	}
	for i := range n {
		if got := tab.Find(key(i)); got != btf.TypeID(i+1) {
			t.Fatalf("key %d: %d, want %d", i, got, i+1)
		}
	}
	if got := tab.Find(key(n)); got != 0 {
		t.Errorf("absent key found as %d", got)
	}
}

// TestDeclTable: the last class put for a key is found, through growth;
// ForgetDecl empties the table.
func TestDeclTable(t *testing.T) {
	tab := NewClassTable()
	tab.EnableDecl()
	key := func(i int) uint64 { return mixKey(0xdec1, uint64(i)) | 1 }
	const n = 20000
	for round := range 2 {
		for i := range n {
			tab.InsertDecl(key(i), btf.TypeID(i+round), uint32(round))
		}
	}
	if tab.DeclLen() != n {
		t.Errorf("DeclLen %d, want %d", tab.DeclLen(), n)
	}
	for i := range n {
		if cls, res, ok := tab.decl.Load().find(key(i)); !ok || cls != btf.TypeID(i+1) || res != 1 {
			t.Fatalf("key %d: %d %d %v, want the second put", i, cls, res, ok)
		}
	}
	tab.ForgetDecl()
	if _, _, ok := tab.decl.Load().find(key(1)); ok || tab.DeclLen() != 0 {
		t.Error("ForgetDecl left keys")
	}
}

// TestDeclTableConcurrent: readers on other goroutines, while the merger's
// goroutine puts, grows and forgets, find a key only with a class and
// count that were put for it together.
func TestDeclTableConcurrent(t *testing.T) {
	tab := NewClassTable()
	tab.EnableDecl()
	key := func(i int) uint64 { return mixKey(0xdec2, uint64(i)) | 1 }
	const n = 20000
	var wg sync.WaitGroup
	done := make(chan struct{})
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := r; ; i = (i + 3) % n {
				select {
				case <-done:
					return
				default:
				}
				if cls, res, ok := tab.decl.Load().find(key(i)); ok && cls != btf.TypeID(i+int(res)) {
					t.Errorf("key %d found as %d after %d resolutions", i, cls, res)
					return
				}
			}
		}()
	}
	for res := range uint32(4) {
		for i := range n {
			tab.InsertDecl(key(i), btf.TypeID(i+int(res)), res)
		}
		tab.ForgetDecl()
		tab.SetResolutions(res + 1)
	}
	close(done)
	wg.Wait()
}
