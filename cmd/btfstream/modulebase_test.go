package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream"
)

// TestLoadModuleBase: a module encode's base is kept outside the Go heap
// unless a memory limit below outsideBaseLimit is in force (--mem-limit,
// or the host's default budget), and loads the same either way.
func TestLoadModuleBase(t *testing.T) {
	s := btf.NewSpec()
	s.Add(btf.Type{NameOff: s.Strings().Add("int"), Info: btf.MakeInfo(btf.KindInt, 0, false), SizeOrType: 4}, btf.MakeIntInfo(btf.IntSigned, 0, 32))
	raw := s.Marshal()
	path := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		memLimit int64
		outside  bool
	}{
		{-1, true}, // --mem-limit 0: none
		{0, stream.DefaultMemLimit() <= 0 || stream.DefaultMemLimit() >= outsideBaseLimit},
		{64 << 20, false},
		{outsideBaseLimit - 1, false},
		{outsideBaseLimit, true},
		{4 << 30, true},
	} {
		base, err := loadModuleBase(path, tc.memLimit)
		if err != nil {
			t.Fatal(err)
		}
		if base.ForProcess() != tc.outside {
			t.Errorf("memory limit %d: outside the heap %v, want %v", tc.memLimit, base.ForProcess(), tc.outside)
		}
		if string(base.Marshal()) != string(raw) || base.Name(1) != "int" {
			t.Errorf("memory limit %d: the base loads differently", tc.memLimit)
		}
	}
	if _, err := loadModuleBase(filepath.Join(t.TempDir(), "none"), -1); err == nil {
		t.Error("a missing base loaded")
	}
}
