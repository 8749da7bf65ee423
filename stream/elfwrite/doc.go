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
// # Invariants
//
//   - On any error, signal or crash the input is untouched and no
//     temporary file is left (outfile).
//   - A section inside a segment never moves; no section index changes.
//   - Errors are *elffile.Error naming the user's file, never a temporary
//     one; ErrSectionFull says the data does not fit where it must stay.
//
// # Imports
//
// elfwrite imports elffile (the one ELF parser) and outfile. It must not
// import btf, dwarfread, encode, merge or the stream package: it writes
// bytes.
package elfwrite
