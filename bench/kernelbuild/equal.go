package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/stream/elffile"
)

// comparer checks outputs against pahole's as type graphs, in process,
// with the code `btfstream diff` runs (dedup.Compare: exit 0 there is
// Equal here).
//
// A module encoded over its own tool's vmlinux BTF is split BTF over a
// base with other ids than pahole's, and Compare needs one base. So the
// module is distilled (btf.Distill: named STRUCT, UNION, ENUM, INT, FLOAT
// and FWD base types it refers to become name-and-size stubs; anonymous
// and reference types it refers to are copied into it whole) and relocated
// onto pahole's vmlinux BTF (btf.Relocate, as the kernel loads an
// out-of-tree module into another vmlinux), then compared with pahole's
// module over pahole's base, where a type identical to a base type counts
// as that type on both sides (pahole 1.32 leaves such copies, btfstream
// folds them). Named base types are thus matched by name and size only:
// that the bases themselves are equal is the vmlinux check's to show.
type comparer struct {
	mu    sync.Mutex           // Specs are shared by the module workers
	ref   *btf.Spec            // pahole's vmlinux BTF
	bases map[string]*btf.Spec // by tool name: the base its modules are split over
	spent time.Duration        // in equalModule, in all
}

func loadSpec(path string, base *btf.Spec) (*btf.Spec, error) {
	return elffile.LoadSoundBTF(path, base)
}

// result renders a comparison: "equal", or "differ: A a, B b unmatched".
func result(a, b *btf.Spec) (equal bool, status string, err error) {
	c, err := dedup.Compare(a, b)
	if err != nil {
		return false, "", err
	}
	if c.Equal() {
		return true, "equal", nil
	}
	onlyA, onlyB := c.Unmatched()
	return false, fmt.Sprintf("differ: %d of pahole's and %d of ours unmatched", len(onlyA), len(onlyB)), nil
}

// equalFiles compares two base BTF files (vmlinux outputs).
func equalFiles(pahole, ours string) (bool, string, error) {
	a, err := loadSpec(pahole, nil)
	if err != nil {
		return false, "", err
	}
	b, err := loadSpec(ours, nil)
	if err != nil {
		return false, "", err
	}
	return result(a, b)
}

// equalModule compares tool's module output (split over its base) with
// pahole's (split over c.ref).
func (c *comparer) equalModule(pahole, toolName, ours string) (bool, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func(start time.Time) { c.spent += time.Since(start) }(time.Now())
	a, err := loadSpec(pahole, c.ref)
	if err != nil {
		return false, "", err
	}
	base := c.bases[toolName]
	b, err := loadSpec(ours, base)
	if err != nil {
		return false, "", err
	}
	if base != c.ref {
		_, distilled, err := btf.Distill(b)
		if err != nil {
			return false, "", fmt.Errorf("%s: distill: %w", ours, err)
		}
		if b, err = btf.Relocate(distilled, c.ref); err != nil {
			return false, "", fmt.Errorf("%s: relocate onto pahole's base: %w", ours, err)
		}
	}
	return result(a, b)
}
