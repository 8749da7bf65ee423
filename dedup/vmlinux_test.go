package dedup

import (
	"bytes"
	"os"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/e2e/testenv"
	"github.com/btfstream/btfstream/stream/elffile"
)

// vmlinuxBTF is a vmlinux's BTF: the raw file BTFSTREAM_VMLINUX_BTF, or
// else the .BTF section of BTFSTREAM_KERNEL (scripts/test.sh sets it);
// with neither the test skips, and fails under CI=true.
func vmlinuxBTF(t *testing.T) *btf.Spec {
	path := os.Getenv("BTFSTREAM_VMLINUX_BTF")
	if path == "" {
		path = os.Getenv("BTFSTREAM_KERNEL")
	}
	if path == "" {
		testenv.Missing(t, "no vmlinux BTF: set BTFSTREAM_VMLINUX_BTF (raw) or BTFSTREAM_KERNEL (ELF)")
	}
	s, err := elffile.LoadBTF(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// copies returns n copies of s without VAR, DATASEC and DECL_TAGs on them,
// ids shifted, sharing s's strings.
func copies(s *btf.Spec, n int) *btf.Spec {
	keep := make([]uint32, s.NextID())
	next := uint32(1)
	for id := btf.TypeID(1); id < s.NextID(); id++ {
		k := s.Kind(id)
		if k == btf.KindDeclTag {
			k = s.Kind(s.Type(id).Ref())
		}
		if k == btf.KindVar || k == btf.KindDatasec {
			continue
		}
		keep[id] = next
		next++
	}
	per := next - 1
	out := btf.NewSpec()
	out.SetStrings(s.Strings())
	for c := 0; c < n; c++ {
		for id := btf.TypeID(1); id < s.NextID(); id++ {
			if keep[id] == 0 {
				continue
			}
			t, w := s.Type(id), append([]uint32(nil), s.Extra(id)...)
			mapWords(&t, w, func(r uint32) uint32 {
				if r == 0 {
					return 0
				}
				return keep[r] + uint32(c)*per
			}, nil)
			out.Add(t, w...)
		}
	}
	return out
}

func TestVmlinuxCopies(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	orig := copies(vmlinuxBTF(t), 1)
	in := copies(vmlinuxBTF(t), 3)
	out, _, err := Dedup(in)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(out, orig)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Equal() || out.Len() != orig.Len() {
		a, b := c.Unmatched()
		t.Fatalf("3 copies dedup to %d types, original has %d; unmatched %d/%d", out.Len(), orig.Len(), len(a), len(b))
	}
	// Incremental, one copy per batch.
	d, _ := NewIncremental(nil)
	per := orig.Len()
	for k := 0; k < 3; k++ {
		b := d.NewBatch()
		b.SetStrings(in.Strings())
		first := btf.TypeID(1 + k*per)
		for id := first; id < first+btf.TypeID(per); id++ {
			t, w := in.Type(id), append([]uint32(nil), in.Extra(id)...)
			mapWords(&t, w, func(r uint32) uint32 {
				if r == 0 {
					return 0
				}
				return r - uint32(first) + uint32(b.FirstID())
			}, nil)
			b.Add(t, w...)
		}
		if _, err := d.AddBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	inc, _, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(inc.Marshal(), out.Marshal()) {
		t.Fatal("incremental differs from batch")
	}
	if err := out.Validate(); err != nil {
		t.Fatalf("output does not validate: %v", err)
	}
}
