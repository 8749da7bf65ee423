package btf

import (
	"testing"

	cbtf "github.com/cilium/ebpf/btf"
)

// TestValidateVsKernel loads each case of the validator's tables into the
// running kernel with BPF_BTF_LOAD (cilium/ebpf is only the syscall
// wrapper here) and checks that the kernel's verifier and Validate agree
// on accept or reject. Skips unless the process may load BTF (root or CAP_BPF) and
// the kernel knows every kind and kind_flag of the fixture (6.14 or later).
func TestValidateVsKernel(t *testing.T) {
	load := func(raw []byte) error {
		h, err := cbtf.NewHandleFromRawBTF(raw)
		if err == nil {
			h.Close()
		}
		return err
	}
	if err := load(allKinds().Marshal()); err != nil {
		t.Skipf("kernel does not load the every-kind fixture: %v", err)
	}
	opts := ValidateOptions{PtrSize: 8}
	check := func(t *testing.T, s *Spec, wantOK bool) {
		kerr := load(s.Marshal())
		verr := s.ValidateWith(opts)
		if (kerr == nil) != wantOK || (verr == nil) != wantOK {
			t.Errorf("want ok=%v; kernel: %v; Validate: %v\n%s", wantOK, kerr, verr, dumpString(t, s))
		}
	}
	for _, tc := range rejectCases {
		t.Run("reject/"+tc.name, func(t *testing.T) {
			b := newTB()
			tc.build(b)
			check(t, b.s, false)
		})
	}
	for _, tc := range acceptCases {
		t.Run("accept/"+tc.name, func(t *testing.T) {
			b := newTB()
			tc.build(b)
			check(t, b.s, true)
		})
	}
}
