package stream

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsFlowOneWay checks the rules the packages' doc.go state: data
// flows elffile -> dwarfread -> encode -> merge -> stream, elfwrite writes
// bytes, and btf knows neither DWARF nor ELF.
func TestImportsFlowOneWay(t *testing.T) {
	const mod = "github.com/btfstream/btfstream/"
	forbidden := map[string][]string{
		"../btf":           {"stream", "dedup", "arena", "spill", "debug/dwarf", "debug/elf"},
		"../dedup":         {"stream", "arena", "spill"},
		"elffile":          {"stream/dwarfread", "stream/encode", "stream/merge", "stream/elfwrite", "dedup", "stream", "debug/elf"},
		"dwarfread":        {"btf", "dedup", "stream/encode", "stream/merge", "stream/elfwrite", "stream", "debug/elf"},
		"encode":           {"dedup", "spill", "stream/merge", "stream/elfwrite", "stream", "debug/elf"},
		"merge":            {"stream/dwarfread", "stream/elfwrite", "stream", "debug/dwarf", "debug/elf"},
		"elfwrite":         {"btf", "stream/dwarfread", "stream/encode", "stream/merge", "stream", "debug/elf", "debug/dwarf"},
		".":                {"debug/elf"},
		"internal/testkit": {"stream"},
		"outfile":          {"stream", "stream/elffile", "stream/elfwrite", "btf", "dedup", "arena", "spill"},
	}
	for dir, bad := range forbidden {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("%s: no Go files", dir)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				for _, b := range bad {
					if p == b || p == mod+b {
						t.Errorf("%s imports %s", file, p)
					}
				}
			}
		}
	}
}

// TestFileSizes keeps source files readable in one sitting.
func TestFileSizes(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob("*/*.go")
	for _, file := range append(files, more...) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > 620 {
			t.Errorf("%s: %d lines, more than about 600", file, n)
		}
	}
}
