// Package elfwrite writes the encoder's output: a .BTF section into an ELF
// file, the way `pahole -J` does, or a detached file, atomically.
//
// # Role
//
// WriteSection plans where the section goes from the layout elffile
// parsed (plan.go), then copies the input range by range into a temporary
// file next to it, writes the planned pieces, syncs and renames it over
// the input (file.go). WriteFileAtomic does the same for a plain file;
// Check reads what WriteSection will need, so the CLI can fail before a
// long encoding.
//
// # Invariants
//
//   - On any error the input is untouched and no temporary file is left.
//   - A section inside a segment never moves; no section index changes.
//   - Errors are *elffile.Error naming the file; ErrSectionFull says the
//     data does not fit where it must stay.
//
// # Imports
//
// elfwrite imports elffile only (the one ELF parser). It must not import
// btf, dwarfread, encode, merge or the stream package: it writes bytes.
package elfwrite
