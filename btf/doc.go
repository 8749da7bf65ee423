// Package btf is the BPF Type Format layer: BTF types and their wire format
// (read, write, validate, dump). It knows nothing of DWARF, and nothing of
// ELF: finding the .BTF section of an ELF file is stream/elffile's job
// (elffile.ReadBTF, elffile.LoadBTF).
//
// Specification: the kernel's Documentation/bpf/btf.rst and
// include/uapi/linux/btf.h.
//
// # Representation
//
// A Spec holds types the way they sit on the wire, not as a graph of heap
// objects: a []Type of fixed 12-byte headers (struct btf_type), one []uint32
// with every type's kind-specific words (members, enum values, params,
// secinfos, the INT/VAR/DECL_TAG word, the ARRAY triple) and a []uint32 of
// offsets into it. A base loaded for the process (a module encode's
// --btf_base) is sparse: an offset every 16 types and a byte a type
// (spec.go), its types' words found in O(1); Raw then gives no offsets
// (a reader counts them in type order, Type.WordCount, or calls
// LocalExtra or Offsets). Ids are TypeID (uint32), string offsets StrOff
// (uint32).
// Nothing hot holds a pointer, an int or a string, so a vmlinux's ~100k
// types cost the same on 32- and 64-bit hosts and the GC never scans them.
//
// Strings is the string section: one byte buffer, interned through an
// open-addressing set of offsets into that buffer.
//
// # Files
//
//   - spec.go, type.go, kind.go, strings.go: the data model.
//   - header.go, read.go, write.go: raw BTF in either byte order (Parse,
//     Marshal), split BTF.
//   - layout.go: Linux 7.2's layout section (one struct btf_layout per
//     kind, after the types; libbpf 1.8 writes it in base BTF on request:
//     KindLayout, SetLayout), the kernel's section rules (checkSections,
//     which Validate's header check calls) and DumpHeader.
//   - load.go: ReadRaw, raw BTF read through an io.ReaderAt, just its
//     header and the bytes its sections span; LoadRaw and LoadAt, which
//     parse BTF through an io.ReaderAt without a copy of it (the strings
//     read into the Spec's buffer, the types through a small one).
//   - outside.go: memory outside the Go heap (anonymous mappings, never
//     freed) for a base loaded for the process (LoadAtForProcess,
//     LoadRawForProcess): a module encode's --btf_base, whose ~6 MB then
//     do not count toward the collector's goal.
//   - structure.go: CheckStructure, the format's own checks (header
//     sections, string section, each type record's kind, length, string
//     offsets and type ids: what libbpf's btf_sanity_check relies on),
//     one function per part of the file. Every tool refuses BTF that
//     fails them.
//   - validate.go, resolve.go: Validate, CheckStructure and then a port of
//     the kernel verifier's rules (kernel/bpf/btf.c) with errors like
//     `type [42] STRUCT 'foo': member 'bar' offset 9000 beyond size 16`.
//     The encoder checks its output with them and `btfstream check` runs
//     them; dedup, diff and dump read BTF that only breaks these (libbpf
//     deduplicates it: Go's recursive typedefs, names that are not C
//     identifiers).
//   - dump.go: Dump, the exact text of `bpftool btf dump file F format raw`.
//
// # Invariants
//
//   - Id 0 is void. A base Spec's local ids are 1..Len(); a split Spec's
//     continue at base.NextID(), and its string offsets at base's Strings.Len().
//   - Parse keeps the source's byte order, header length (24, or 32 with the
//     optional layout section) and section offsets, so an unchanged Spec
//     marshals byte for byte as read. New Specs get the 24-byte header (as
//     libbpf 1.7 writes; 1.8 writes 32 bytes with layout_off/len zero);
//     SetLayout gives one the 32-byte header and the section, laid out
//     types, layout, strings.
//   - Type.Info uses today's widths: vlen bits 0-23, kind bits 24-30,
//     kind_flag bit 31.
//
// # Imports
//
// btf imports only the standard library. It must not import stream, arena,
// dedup, spill or cmd: everything else depends on it, not the reverse.
package btf
