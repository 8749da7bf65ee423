package dwarfread

import "testing"

func TestOffBucketMark(t *testing.T) {
	var b offBucket
	for _, rel := range []uint32{64, 65, 64 + 31, 64 + 32, 64 + 63} {
		markOff(&b, rel)
	}
	if b != (offBucket{0, 1<<0 | 1<<1 | 1<<31, 1<<0 | 1<<31}) {
		t.Fatalf("bucket %#x", b)
	}
}
