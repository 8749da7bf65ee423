//go:build !unix

package elffile

// mapAnon maps nothing here: ReadSectionOutside reads onto the heap.
func mapAnon(size int) []byte { return nil }

func unmapAnon(b []byte) {}
