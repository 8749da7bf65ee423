package dwarfread

import "github.com/btfstream/btfstream/stream/elffile"

// Where .debug_str is read from, and whether the string cache is kept.
//
// A .debug_str no larger than the page cache the memory plan gives the file
// (Options.CacheBytes) is read whole, once, when first needed, and its
// strings are read in place: a name is then an IndexByte in memory instead
// of a page lookup in the shared cache (a map lookup under a lock)
// per name. The section then costs at most what its pages would have cost
// in the page cache, which it no longer uses; a module's .debug_str is a
// few hundred KiB (tcp_bbr's 144 KiB, virtio_net's 199 KiB). A larger one
// (xfs.ko's 12.7 MB) stays paged. The bytes are read with ReadAt, never
// mapped: a file that shrinks under us gives an *elffile.Error naming the
// file, the section and the offset where the read stopped.
//
// A relocatable file (.o, .ko) has no string cache: the encoder reads
// names there without it (Attr.NameBytes without keep), since its units do
// not share strings, and a cache that nobody fills is only memory and
// garbage-collector work (64 KiB to 1.5 MiB of slots holding pointers).
// Attr.String still works, copying each string.

// A .debug_str larger than the page cache but no larger than
// Options.StrOutside (the memory plan's choice: a vmlinux's, 5.7 MB on 7.2
// and 4.6 MB on 6.12, without a small limit) is read whole too, outside
// the Go heap (elffile.ReadSectionOutside): paged, its 4 KiB pages were
// read about 13k times on 7.2 at -j2 (the cache keeps few of them among
// the location lists), and the page lookups took ~1.6% of the CPU. Outside
// the heap the bytes count once in the peak RSS, not again in the heap's
// growth between collections. DropCaches (after the last unit) and Close
// release them: from then on the section is read paged again, and no name
// read before may be used (the encoder copies every name it keeps).

// strWholeMax is the largest .debug_str read whole for a page cache of
// cacheBytes (0: the default, 4 MiB).
func strWholeMax(cacheBytes int64) uint64 {
	if cacheBytes <= 0 {
		return 4 << 20
	}
	return uint64(cacheBytes)
}

// pagedSection returns the random-access reader of DWARF section k, whose
// header is s: .debug_str whole when it is small enough (strWhole), every
// other section as elffile.PagedSection gives it.
func (f *File) pagedSection(k int, s *elffile.SectionHeader) (*elffile.Paged, error) {
	if k == secStr && f.strWhole > 0 && s.Size <= f.strWhole && !s.Compressed() && s.Type != elffile.SHTNobits {
		b, err := f.elf.ReadSection(s)
		if err != nil {
			return nil, err
		}
		return elffile.MemPaged(b), nil
	}
	if k == secStr && s.Size > f.strWhole && s.Size <= f.strOutside && !s.Compressed() && s.Type != elffile.SHTNobits && !f.elf.Relocatable() {
		b, release, err := f.elf.ReadSectionOutside(s)
		if err != nil {
			return nil, err
		}
		f.strRelease = release
		return elffile.MemPaged(b), nil
	}
	return f.elf.PagedSection(s)
}

// releaseStr releases a .debug_str read outside the heap; the section is
// read paged from then on. Not safe while other goroutines decode.
func (f *File) releaseStr() {
	if f.strRelease == nil {
		return
	}
	f.strRelease()
	f.strRelease = nil
	if s := f.findDebug(secNames[secStr]); s != nil {
		f.secs[secStr], f.secErr[secStr] = f.elf.PagedSection(s)
	}
}

// keepStrCache reports whether the file gets a string cache: not for a
// relocatable file.
func (f *File) keepStrCache() bool { return !f.elf.Relocatable() }
