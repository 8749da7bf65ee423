//go:build unix

package btf

import "syscall"

// mapAnon maps size bytes of zeroed anonymous memory, or returns nil.
func mapAnon(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	noHugePages(b)
	return b
}
