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
	if m := mappedSlice[T](n); m != nil {
		return m
	}
	return make([]T, n)
}

// mappedSlice returns n zeroed Ts in an anonymous mapping, or nil if the
// host cannot map them. Only the pages written become resident.
func mappedSlice[T any](n int) []T {
	var t T
	size := uint64(n) * uint64(unsafe.Sizeof(t))
	if n <= 0 || size > uint64(^uint(0)>>1) {
		return nil
	}
	b := mapAnon(int(size))
	if b == nil {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// reserveSparse gives s, a Spec of no types yet, the arrays of a sparse
// Spec (spec.go) with room for as many types and words as a type section
// of size bytes can hold (12 bytes a type, 4 a word), in anonymous
// mappings: only what is written becomes resident, so no first pass
// counts the types. It reports false, leaving s as it was, if the host
// cannot map that much.
func (s *Spec) reserveSparse(size int64) bool {
	if size < 12 || size > int64(^uint(0)>>1) {
		return false
	}
	n := int(size / 12)
	types := mappedSlice[Type](n)
	anchors := mappedSlice[uint32](n/anchorEvery + 1)
	deltas := mappedSlice[uint8](n)
	extra := mappedSlice[uint32](int(size / 4))
	if types == nil || anchors == nil || deltas == nil || extra == nil {
		return false // what was mapped stays untouched: never resident
	}
	s.types, s.anchors, s.deltas, s.extra = types[:0], anchors[:0], deltas[:0], extra[:0]
	s.extraAt = nil
	return true
}
