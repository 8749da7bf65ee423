package dedup

import (
	"bytes"
	"math/rand"
	"testing"
)

// cstrEqSlow is cstrEq byte by byte: the string at the start of a slice
// ends at its first NUL or at the slice's end.
func cstrEqSlow(a, b []byte) bool {
	cut := func(s []byte) []byte {
		if i := bytes.IndexByte(s, 0); i >= 0 {
			return s[:i]
		}
		return s
	}
	return bytes.Equal(cut(a), cut(b))
}

// TestCstrEq compares the word-at-a-time cstrEq with a byte-by-byte
// reference on strings that differ, or end, at every position of the
// first words, followed by more bytes or not.
func TestCstrEq(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alpha := []byte{0, 1, 'a', 'b', 0x80, 0xff}
	for trial := 0; trial < 200000; trial++ {
		n := rng.Intn(20)
		a := make([]byte, n)
		for i := range a {
			a[i] = alpha[rng.Intn(len(alpha))]
		}
		b := append([]byte(nil), a...)
		switch rng.Intn(4) {
		case 0: // one byte changed
			if n > 0 {
				b[rng.Intn(n)] = alpha[rng.Intn(len(alpha))]
			}
		case 1: // cut
			b = b[:rng.Intn(n+1)]
		case 2: // longer
			b = append(b, alpha[rng.Intn(len(alpha))])
		}
		if got, want := cstrEq(a, b), cstrEqSlow(a, b); got != want {
			t.Fatalf("cstrEq(%q, %q) = %v, want %v", a, b, got, want)
		}
		if got, want := cstrEq(b, a), cstrEqSlow(b, a); got != want {
			t.Fatalf("cstrEq(%q, %q) = %v, want %v", b, a, got, want)
		}
	}
}
