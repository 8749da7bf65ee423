// Package elfwrite writes the encoder's output: a .BTF section into an ELF
// file, the way `pahole -J` does, or a detached file, atomically.
//
// # Role
//
// WriteSection plans where the section goes from the layout elffile
// parsed (plan.go), then copies the input range by range into an
// outfile.File (an unnamed file next to it), writes the planned pieces and
// commits it over the input (file.go). WriteFileAtomic does the same for a
// plain file; Check reads what WriteSection will need, so the CLI can fail
// before a long encoding. WriteSections writes several sections (an
// out-of-tree module's .BTF and .BTF.base) in one replacement of the file
// (sections.go).
//
// # Where the section goes
//
//   - Absent, or not allocated and outside every segment: appended after
//     the last byte anything else needs, with the section header table
//     after it (llvm-objcopy --add-section's layout); an old one is
//     overwritten in place if the data fits.
//   - Fixed (its bytes inside a segment, or SHF_ALLOC in a linked file)
//     and the data fits before the next section, segment end or header
//     table: written in place, the rest zeroed, the file's size kept.
//   - Fixed, too small, and holding no byte any segment loads (size 0,
//     as ld.lld leaves kbuild's .BTF output section in .tmp_vmlinux1 under
//     make LLVM=1; or outside every segment): moved to the end as a plain
//     section, flags 0 and address 0. Safe because the program headers
//     and every byte they load are unchanged (the old slot was empty or
//     unloaded), and with no SHF_ALLOC and no address no segment claims
//     the new bytes; readers that want the section by name (objcopy
//     --only-section=.BTF, resolve_btfids, the BTF loaders) find it as in
//     a gcc-built .tmp_vmlinux1, where .BTF is added the same way. pahole
//     instead lets libelf lay the whole file out again, which moves
//     sections under unchanged program headers.
//   - Fixed, too small, and loaded by a segment (a final vmlinux's .BTF):
//     refused with ErrSectionFull, since moving it would leave the image
//     a loader maps with the old data under the section's symbols; the
//     message says to encode before the section is made allocated or to
//     write a detached file and link it in.
//
// # Invariants
//
//   - On any error, signal or crash the input is untouched and no
//     temporary file is left (outfile).
//   - The program headers and the bytes every segment holds do not change
//     (bar e_shoff in an ELF header a segment covers); no section index
//     changes.
//   - Errors are *elffile.Error naming the user's file, never a temporary
//     one; ErrSectionFull says the data does not fit where it must stay.
//
// # Imports
//
// elfwrite imports elffile (the one ELF parser) and outfile. It must not
// import btf, dwarfread, encode, merge or the stream package: it writes
// bytes.
package elfwrite
