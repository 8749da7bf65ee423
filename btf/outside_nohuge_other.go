//go:build unix && !linux

package btf

// noHugePages does nothing where there is no transparent huge page advice.
func noHugePages(b []byte) {}
