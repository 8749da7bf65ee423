package dwarfread

import (
	"path/filepath"
	"testing"

	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// TestOracleKernelARM compares the 32-bit ARM (armmp) vmlinux with
// debug/dwarf, when the cache has it; its modules are ELF32 ET_REL with
// SHT_REL (implicit addend) R_ARM_ABS32.
func TestOracleKernelARM(t *testing.T) {
	vmlinux, kos := testkit.ARMKernel(t)
	st := compareOracle(t, vmlinux, 2, false)
	t.Logf("%s: %d units, %d DIEs, %d attributes equal to debug/dwarf", vmlinux, st.units, st.dies, st.attrs)
	for _, ko := range kos {
		st := compareOracle(t, ko, 1, false)
		t.Logf("%s: %d units, %d DIEs, %d attributes equal to debug/dwarf", filepath.Base(ko), st.units, st.dies, st.attrs)
	}
}
