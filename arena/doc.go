// Package arena holds decoded DWARF units as flat, pointer-free records.
//
// A unit's DIEs are Tags (24-byte fixed records with integer links: parent,
// first child, next sibling as TagIDs; the DIE's section offset as a
// DIEOff), one uint64 per attribute value in Vals, and the unit's raw bytes
// in Bytes, which variable-size payloads (blocks, inline strings, data16)
// point into by position. Nothing is copied per DIE and nothing holds a
// pointer, so the garbage collector never scans an arena and its size is the
// same on 32- and 64-bit hosts.
//
// Invariants:
//   - Tags are in section order; Tags[0] is the unit DIE; a parent's id is
//     smaller than its children's.
//   - Release is one call: Pool.Put resets the arena (keeping capacity,
//     the reader's offset Index included) for the next unit. The pool keeps a bounded number of arenas and drops
//     ones above a size limit, so one huge unit does not pin memory.
//
// Names are not copied into the arena: a string attribute keeps its
// .debug_str offset (or its position in Bytes for an inline string) and is
// resolved on demand through the reader's bounded page cache. Decoding a
// whole kernel therefore touches no string at all; a consumer that needs a
// name pays for that name only.
//
// arena imports nothing of this project; its users (package stream) give
// meaning to Vals and to the Abbrev index.
package arena
