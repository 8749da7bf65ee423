package stream

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// encodeBytes encodes path with kbuild's options at the given -j and
// memory limit and returns the marshaled BTF.
func encodeBytes(t *testing.T, path string, base *btf.Spec, jobs int, memLimit int64) []byte {
	t.Helper()
	opts := DefaultEncodeOptions()
	opts.Jobs, opts.MemLimit, opts.Base = jobs, memLimit, base
	s, _, err := EncodeFile(path, opts)
	if err != nil {
		t.Fatalf("-j%d --mem-limit %d: %v", jobs, memLimit, err)
	}
	return s.Marshal()
}

// TestJobsByteIdenticalFixtures encodes the C reader fixtures (small
// objects from several compilers and targets) at -j1, -j2, -j3 and -j8:
// the bytes must not depend on -j.
func TestJobsByteIdenticalFixtures(t *testing.T) {
	for _, fx := range testkit.Fixtures {
		if fx.Src != "fixture.c" {
			continue // C++: reference types, which BTF cannot express
		}
		t.Run(fx.Name, func(t *testing.T) {
			p := fx.Build(t)
			want := encodeBytes(t, p, nil, 1, -1)
			for _, j := range []int{2, 3, 8} {
				if got := encodeBytes(t, p, nil, j, -1); !bytes.Equal(got, want) {
					t.Errorf("-j%d: %d bytes differ from -j1's %d", j, len(got), len(want))
				}
			}
		})
	}
}

// TestJobsByteIdenticalKernel encodes the cloud vmlinux and xfs.ko at
// -j1, -j2, -j3 and -j8 with no memory limit, and the vmlinux at -j4 with
// --mem-limit 64M: every output must be byte-identical to -j1's.
func TestJobsByteIdenticalKernel(t *testing.T) {
	k := testkit.Files(t)
	var base *btf.Spec
	t.Run("vmlinux", func(t *testing.T) {
		want := encodeBytes(t, k.Vmlinux, nil, 1, -1)
		for _, c := range []struct {
			jobs  int
			limit int64
		}{{2, -1}, {3, -1}, {8, -1}, {4, 64 << 20}} {
			t.Run(fmt.Sprintf("j%d-limit%d", c.jobs, c.limit), func(t *testing.T) {
				if got := encodeBytes(t, k.Vmlinux, nil, c.jobs, c.limit); !bytes.Equal(got, want) {
					t.Errorf("%d bytes differ from -j1's %d", len(got), len(want))
				}
			})
		}
		var err error
		if base, err = btf.Parse(want, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("xfs.ko", func(t *testing.T) {
		if base == nil {
			b, err := elffile.LoadBTF(k.Vmlinux, nil)
			if err != nil {
				t.Skip("no base BTF")
			}
			base = b
		}
		want := encodeBytes(t, k.XFS, base, 1, -1)
		for _, j := range []int{2, 3, 8} {
			if got := encodeBytes(t, k.XFS, base, j, -1); !bytes.Equal(got, want) {
				t.Errorf("-j%d: %d bytes differ from -j1's %d", j, len(got), len(want))
			}
		}
	})
}

// More jobs than compile units would only wait: the plan runs one job per
// unit at most (issue 19: -j 100000 on xfs.ko took 75 s).
func TestJobsCappedAtUnits(t *testing.T) {
	fx := testkit.Fixtures[0]
	p := fx.Build(t)
	f, err := dwarfread.Open(p, dwarfread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	starts, err := f.UnitStarts()
	f.Close()
	if err != nil || len(starts) == 0 {
		t.Fatalf("%s: %d units, %v", fx.Name, len(starts), err)
	}
	opts := DefaultEncodeOptions()
	opts.Jobs, opts.MemLimit = len(starts)+100, -1
	_, stats, err := EncodeFile(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Jobs != len(starts) {
		t.Errorf("-j%d on %d units: %d jobs ran", opts.Jobs, len(starts), stats.Jobs)
	}
}
