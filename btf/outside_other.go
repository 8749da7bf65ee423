//go:build !unix

package btf

// mapAnon maps nothing here: outsideSlice falls back to the heap.
func mapAnon(size int) []byte { return nil }
