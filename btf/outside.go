package btf

import "unsafe"

// Memory outside the Go heap, for a base Spec that is read once and kept
// until the process exits (LoadRawForProcess, LoadAtForProcess): the
// `--btf_base` of a module encode.
//
// A vmlinux base is about 6 MB of types, strings and string index, live
// for the whole encode. On the Go heap it counts toward the collector's
// goal: at a module encode's GOGC of 50 the heap may grow to 1.5 times the
// live bytes before a collection, so the base alone let a small module's
// heap hold about 3 MB more garbage (issue 18: a small module's peak RSS).
// Outside the heap it is counted once. The memory is anonymous, private
// and never unmapped (the Spec, and slices of it that callers hold, may be
// read until the process exits); none of it holds a pointer.

// ForProcess reports whether s was loaded for the process
// (LoadAtForProcess, LoadRawForProcess): its types and strings are outside
// the Go heap, for as long as the process runs.
func (s *Spec) ForProcess() bool { return s.strings.outside }

// outsideSlice returns n zeroed Ts outside the Go heap (in the heap where
// the host cannot map memory). T must hold no pointers.
func outsideSlice[T any](n int) []T {
	if n <= 0 {
		return nil
	}
	var t T
	size := uint64(n) * uint64(unsafe.Sizeof(t))
	if size > uint64(^uint(0)>>1) {
		return make([]T, n)
	}
	b := mapAnon(int(size))
	if b == nil {
		return make([]T, n)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
