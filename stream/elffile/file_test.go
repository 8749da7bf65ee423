package elffile

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// checkELF compares the section headers and the symbol table with
// debug/elf, the oracle.
func checkELF(t *testing.T, path string) {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	secs := f.Sections
	if len(secs) != len(ef.Sections) {
		t.Fatalf("%d sections, debug/elf has %d", len(secs), len(ef.Sections))
	}
	for i, s := range ef.Sections {
		g := secs[i]
		if g.Name != s.Name || g.Type != uint32(s.Type) || g.Flags != uint64(s.Flags) || g.Addr != s.Addr ||
			g.Offset != s.Offset || g.Size != s.FileSize || g.Link != s.Link || g.Info != s.Info ||
			(g.Addralign != s.Addralign && s.Flags&elf.SHF_COMPRESSED == 0) || g.Entsize != s.Entsize {
			t.Fatalf("section %d: got %+v, debug/elf %+v", i, g, s.SectionHeader)
		}
		if i > 0 {
			if h, ok := f.Section(s.Name); !ok || h.Name != s.Name {
				t.Fatalf("Section(%q) not found", s.Name)
			}
		}
	}
	want, err := ef.Symbols()
	if err != nil && err != elf.ErrNoSymbols {
		t.Fatal(err)
	}
	n := 0
	for s, err := range f.Symbols() {
		if err != nil {
			t.Fatal(err)
		}
		if n >= len(want) {
			t.Fatalf("more symbols than debug/elf's %d", len(want))
		}
		w := want[n]
		sec := uint32(w.Section)
		if s.Name != w.Name || s.Value != w.Value || s.Size != w.Size || s.Info != w.Info || s.Other != w.Other ||
			(sec != SHNXIndex && s.Section != sec) {
			t.Fatalf("symbol %d: got %v, debug/elf %+v", n+1, s, w)
		}
		n++
	}
	if n != len(want) {
		t.Fatalf("%d symbols, debug/elf has %d", n, len(want))
	}
	// SymbolsBorrowed yields the same symbols, each name valid until the
	// next: compared as it comes, the previous one must not be kept. The
	// names are read through the window (0) or whole, if small enough.
	for _, whole := range []uint64{0, 1, 1 << 30} {
		n = 0
		for s, err := range f.SymbolsBorrowed(whole) {
			if err != nil {
				t.Fatal(err)
			}
			if n >= len(want) || s.Name != want[n].Name || s.Value != want[n].Value || s.Info != want[n].Info {
				t.Fatalf("borrowed symbol %d (names whole up to %d): got %v", n+1, whole, s)
			}
			n++
		}
		if n != len(want) {
			t.Fatalf("%d borrowed symbols (names whole up to %d), debug/elf has %d", n, whole, len(want))
		}
	}
}

func TestELFFixtures(t *testing.T) {
	for _, fx := range testkit.Fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			checkELF(t, fx.Build(t))
		})
	}
}

func TestELFKernel(t *testing.T) {
	k := testkit.Files(t)
	checkELF(t, k.Vmlinux)
	checkELF(t, k.XFS)
}

// TestExtendedNumbering assembles an object with more than 65,535
// sections: e_shnum is 0, e_shstrndx is SHN_XINDEX, and symbols in high
// sections use SHT_SYMTAB_SHNDX.
func TestExtendedNumbering(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	as, err := exec.LookPath("as")
	if err != nil {
		t.Skip("as not installed")
	}
	dir := t.TempDir()
	var sb strings.Builder
	const n = 70000
	for i := range n {
		fmt.Fprintf(&sb, ".section .data.s%d,\"aw\"\n.globl sym%d\nsym%d: .byte %d\n", i, i, i, i&0x7f)
	}
	src := filepath.Join(dir, "many.s")
	if err := os.WriteFile(src, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "many.o")
	if msg, err := exec.Command(as, "-o", obj, src).CombinedOutput(); err != nil {
		t.Skipf("as: %v\n%s", err, msg)
	}
	checkELF(t, obj)
	f, err := Open(obj, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Sections) <= 0xff00 {
		t.Fatalf("only %d sections", len(f.Sections))
	}
	last := ""
	var lastSec uint32
	for s, err := range f.Symbols() {
		if err != nil {
			t.Fatal(err)
		}
		if s.Name == fmt.Sprintf("sym%d", n-1) {
			last, lastSec = s.Name, s.Section
		}
	}
	if last == "" || f.Sections[lastSec].Name != fmt.Sprintf(".data.s%d", n-1) {
		t.Fatalf("sym%d: section %d, want .data.s%d (SHN_XINDEX resolution)", n-1, lastSec, n-1)
	}
}

// TestELFKernelARM checks the 32-bit ARM (armmp) vmlinux and its modules
// (ELF32 ET_REL), when the cache has them.
func TestELFKernelARM(t *testing.T) {
	vmlinux, kos := testkit.ARMKernel(t)
	checkELF(t, vmlinux)
	for _, ko := range kos {
		checkELF(t, ko)
	}
}

// TestRawPagedIDs makes paged readers from several goroutines at once, as
// the unit producer, the decoders and the consumer do: every reader must
// get its own page-cache id (two readers with one id would read each
// other's pages).
func TestRawPagedIDs(t *testing.T) {
	f, err := Open(testkit.Named(t, "gcc-dwarf4").Build(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, ok := f.Section(".debug_str")
	if !ok {
		t.Fatal("no .debug_str")
	}
	const workers, each = 4, 500
	ids := make([][]uint64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ids[w] = append(ids[w], f.RawPaged(s).id)
			}
		}()
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for _, l := range ids {
		for _, id := range l {
			if seen[id] {
				t.Fatalf("page-cache id %d given to two readers", id)
			}
			seen[id] = true
		}
	}
}
