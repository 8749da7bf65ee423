// Package elffile is the one ELF parser of btfstream: the DWARF reader,
// the encoder (symbols, .BTF_ids), the .BTF writer, BTF loading and the
// CLI all read ELF files through it.
//
// # Role
//
// A File holds the ELF header, the section headers (ELF32/ELF64, both byte
// orders, extended numbering with e_shnum 0 and SHN_XINDEX), the program
// headers' file ranges and the section name table. Everything else is read
// on demand through an io.ReaderAt, never mapped or loaded whole:
//
//   - Paged: random access to a section through a bounded page cache
//     (spill.Cache, 4 MiB by default) shared by all of a File's readers:
//     string sections, .strtab, location lists. A file no larger than the
//     budget (a module) gets a plain page table instead (pagetable.go),
//     which keeps every page read and gives the collector nothing to scan.
//   - OpenStream: a section's bytes as a stream, inflated on the fly when
//     SHF_COMPRESSED (zlib, zstd) or a legacy .zdebug section.
//   - ReadSection / ReadSectionRaw: small sections whole, relocated or not;
//     Relocator: ET_REL relocations (x86_64, i386, aarch64, arm, s390x,
//     riscv64 incl. ADD/SUB/SET, ppc, ppc64/ppc64le, sparc64) applied to a
//     section window by window, S + A, only for defined symbols, and never
//     to linked executables.
//   - Symbols: .symtab, streamed in chunks.
//   - ReadBTF / LoadBTF: the .BTF section of an ELF file, or a raw BTF file
//     (package btf parses it; btf itself knows nothing of ELF).
//     LoadBaseForProcess loads a module encode's --btf_base outside the Go
//     heap (btf.LoadAtForProcess), read with pread, never mapped from the
//     file: a file that shrinks while it is read gives an error, not SIGBUS.
//
// # Errors
//
// Error is the one error type for positions in input files; it prints as
// "vmlinux: .debug_info+0x1a2b: msg" and unwraps to its cause. The
// readers above it (dwarfread, encode, merge, elfwrite) return it too, with
// their own sentinels besides ErrFormat, ErrUnsupported and ErrNoSection.
//
// # Invariants
//
//   - No allocation is sized from an unchecked header field: counts and
//     offsets are checked against the file size (and MaxSections,
//     MaxShstrtab) first, and compressed data grows its buffer as it
//     actually arrives.
//   - Malformed input returns an *Error naming file, section and offset;
//     the parser never panics.
//
// # Imports
//
// elffile imports the standard library, klauspost/compress, spill (for
// its Cache only) and btf (for LoadBTF only). It must not import
// dwarfread, encode, merge, elfwrite, dedup or the stream package: they
// all sit above it.
// debug/elf is a test oracle only.
//
// Specification: System V gABI "Object Files" (ELF header, sections,
// SHF_COMPRESSED, extended numbering, relocation).
package elffile
