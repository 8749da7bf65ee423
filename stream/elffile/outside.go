package elffile

import "io"

// ReadSectionOutside reads the bytes of s, uncompressed and in a file that
// is not relocatable, into memory outside the Go heap (an anonymous
// private mapping, filled by ReadAt, never a file mapping: a file that
// shrinks gives an error, not SIGBUS), and returns them with the function
// that releases them. The bytes are garbage the collector never sees: a
// vmlinux's .debug_str (5.7 MB on 7.2), read whole for the whole run,
// counts once in the peak RSS instead of once more in the heap's growth
// before a collection. After release the bytes must not be read, nor any
// slice of them. A compressed section, one of a relocatable file, or a
// host that cannot map memory reads as ReadSection does, with a release
// that does nothing.
func (f *File) ReadSectionOutside(s *SectionHeader) (b []byte, release func(), err error) {
	if s.Compressed() || f.Relocatable() || s.Type == SHTNobits || s.Size == 0 || s.Size > uint64(^uint(0)>>1) {
		b, err = f.ReadSection(s)
		return b, func() {}, err
	}
	b = mapAnon(int(s.Size))
	if b == nil {
		b, err = f.ReadSection(s)
		return b, func() {}, err
	}
	// Open checked that the section lies within the file.
	n, err := io.ReadFull(io.NewSectionReader(f.r, int64(s.Offset), int64(s.Size)), b)
	if err != nil {
		unmapAnon(b)
		return nil, nil, WithFile(f.name, FormatErr(s.Name, uint64(n), "read: %v", err))
	}
	return b, func() { unmapAnon(b) }, nil
}
