// Package dedup deduplicates BTF: it folds the types that every compilation
// unit (CU) repeats into one graph, like libbpf's btf__dedup, but with a
// complete notion of equivalence, and incrementally, batch by batch, so the
// encoder never holds the whole pre-dedup input.
//
// # What is equivalent
//
// Every type word is a number (size, offset, enum value, INT encoding), a
// string (name, member name) or an edge (a type id). The label of a type
// is everything but its edges: kind, info (vlen, kind_flag), size, names
// by content, numbers. Two types are equivalent when their labels are
// equal and their edges, position by position, lead to equivalent types.
// This is the coarsest bisimulation of the type graph; it is complete:
// structurally identical graphs always merge, at any depth, through any
// cycle, whatever ids and order the input used.
//
// VAR and DATASEC are never merged (each is its own class). On top of the
// structural classes, forward declarations are resolved by name: a FWD
// (struct or union, by kind_flag) resolves to the one class of that kind
// and name, if there is exactly one; an enum forward declaration (ENUM or
// ENUM64 with no values) resolves to the one ENUM or ENUM64 with values of
// that name (size and kind are not compared, as in current libbpf, so a
// 4-byte forward declaration finds its 8-byte ENUM64). Ambiguous forward
// declarations are left alone. Resolving may make more types equivalent
// (the structs that pointed at the FWD and at the struct), so resolution
// and merging repeat until nothing changes.
//
// The output holds one type per class, in the order of each class's first
// occurrence in the input, and a string table holding exactly the strings
// the output uses, in the order it first uses them. The result depends
// only on the input's structure and order, never on hash values.
//
// # Worked example
//
// CU 1 declares struct foo and uses a pointer to it; CU 2 defines it:
//
//	CU 1: [1] FWD 'foo' struct        CU 2: [5] INT 'int' size 4
//	      [2] PTR -> [1]                    [6] STRUCT 'foo' size 4 {x: [5]}
//	      [3] STRUCT 'bar' {f: [2]}         [7] PTR -> [6]
//	      [4] INT 'int' size 4              [8] STRUCT 'bar' {f: [7]}
//
// Structurally, [4] and [5] are equivalent (same label, no edges); [2] and
// [7] are not (their targets differ: FWD vs STRUCT), so neither are [3] and
// [8]. The table after the CUs holds [1] FWD, [2] PTR, [3] bar, [4] int,
// [5] foo, [6] PTR, [7] bar (CU 2's int became [4]). Finish sees that
// 'foo' names exactly one struct class, [5]: the FWD resolves to it, [2]
// now points at foo like [6], so [2]~[6] and [3]~[7]. The result, in first
// occurrence order:
//
//	[1] PTR -> [4]    [2] STRUCT 'bar' {f: [1]}    [3] INT 'int'    [4] STRUCT 'foo' {x: [3]}
//
// libbpf reaches the same graph here. Where they part: CU 1 has
// struct s { struct t *a, *b; } with one PTR type for both members; CU 2
// has the same struct but its compiler emitted two distinct, identical PTR
// types for a and b. Here both s merge: the two pointers are equivalent.
// libbpf 1.1 keeps two identical 's': its walk maps CU 1's pointer to CU
// 2's first pointer, then meets the second one at the same place and
// calls it a conflict (it tolerates this only for identical arrays and
// for structs identical down to their ids); pointers are deduplicated only
// later, so the two 's' stay. (Reproduce: bench/dedup_libbpf on the
// "equivalent but distinct pointers" test input gives 5 types, btfstream
// 4.) The same holds for any equivalent-but-distinct subgraphs, at any
// depth, including inside cycles.
//
// # Algorithm
//
// The table (the types deduplicated so far) is kept minimal: no two of its
// types are equivalent. A batch (one CU) is resolved against it:
//
//  1. Tarjan's algorithm finds the batch's strongly connected components
//     (edges into the table are already resolved) and emits them children
//     first, so when a component is handled everything it points to
//     outside itself has a class: an existing table id, or a new class
//     created earlier in this batch.
//  2. Hashes. Each type gets a structural hash that equivalent types share:
//     its label hash mixed with a tag per edge. The tag of a type whose
//     unfolding is finite (it reaches no cycle) is its own hash, a Merkle
//     hash of its whole tree; the tag of any other type is its label hash
//     mixed with its children's label hashes (a one-level unfolding), which
//     cuts recursion at cycles yet tells a pointer to struct a from one to
//     struct b. Finiteness is itself invariant, so this is well defined and
//     the same for equivalent types, in the batch or in the table.
//  3. A component of one type outside any cycle has resolved edges: a hash
//     lookup in the table index (and the batch's index of new classes) and
//     a direct comparison of label and edge classes decide. This is most
//     types (pointers, qualifiers, typedefs, protos, ints).
//  4. A cyclic component: each member is first tried against the classes
//     with its hash by walking both graphs in step under a hypothetical
//     mapping (batch type -> class). Classes are pairwise inequivalent, so
//     an equivalent type has exactly one possible image and the first
//     conflict proves inequivalence: the walk is exact, not a heuristic.
//     A successful walk makes all of its pairs final. The members that
//     match nothing are new; Moore-style partition refinement over just
//     them (initial blocks: equal hash, label and resolved edges; split a
//     block while its types' edges into the component fall in different
//     blocks) finds which of them are equivalent to each other. Each block
//     becomes a new class, represented by its first member.
//  5. New classes are appended to the table in order of first occurrence,
//     their edges rewritten to table ids, their strings interned (unless
//     the table shares the batch's string table); the batch's per-type
//     arrays are kept for the next batch.
//
// Finish resolves forward declarations over the whole table, and if any
// resolved, deduplicates the table again as one batch with the resolved
// declarations substituted by their targets (repeating while new ones
// resolve). It then writes the output with a fresh string table.
//
// Since every step is exact, the result does not depend on how the input
// is cut into batches: Dedup(s) is one batch, and feeding the CUs one by
// one gives the same bytes. Tests check this, idempotence, and that
// outputs have no two equivalent types.
//
// # Incremental use (the encoder)
//
//	d, _ := dedup.NewIncremental(base)   // base: nil for vmlinux, vmlinux for a module
//	for each CU {
//		b := d.NewBatch()                // ids continue after d's table
//		... add the CU's types to b; edges may use ids that earlier
//		    remaps returned, or b's own ids ...
//		remap, err := d.AddBatch(b)      // remap.Map(batch id) = table id
//		... keep table ids; drop b ...
//	}
//	final, remap2, err := d.Finish()     // remap2.Map(table id) = final id
//
// Memory: the table is the final BTF (before forward resolution) plus, per
// type, an 8-byte hash, tag and label hash each, a finiteness byte and a
// 4-byte hash chain link, and a 4-byte open-addressing index slot at most
// half full (hindex: only distinct hashes take slots): no pointers, so the
// GC never scans it. Arrays grow by at least a quarter. A batch's working
// set is about 45 bytes per batch type; the Incremental keeps it and
// reuses it for the next batch, so a run of batches does not allocate it
// again. AddBatch reads the batch Spec in place. A table whose first batch
// has a string table without base adopts it instead of copying the
// strings it uses (the bench's batches all share the input's string
// section); a batch with other strings makes it intern its own.
//
// # Whole inputs: chunks
//
// Dedup(s) and DedupStream (the same, reading types from a Source twice
// instead of a Spec) never deduplicate the input as one batch: a first
// pass cuts it into chunks of at least 16k types, each cut placed only
// where no type before it references one after it (a vmlinux has such a
// place after about 70k of its 108k types; the longest stretch without
// one is 38k types), and the chunks are fed as batches through one
// buffer sized for the largest. Since the result does not depend on the
// cut, the bytes are those of one batch (tests check every chunk size).
// DedupStream also keeps the table ids of only the input types that a
// later chunk references. On 8 copies of a vmlinux (24 MB raw) that keeps
// the peak RSS near 1.3x the raw input, where one batch took 5x.
//
// Split mode: with a base, batch types equivalent to base types become
// those base ids, FWDs may resolve to base structs, and the base is never
// changed. If the base itself has equivalent duplicates, references go to
// the first of them.
//
// # Comparing
//
// Compare runs the same classification over the disjoint union of two
// BTFs, with VAR and DATASEC compared like other types and no forward
// resolution, and compares the multisets of classes: equal means the two
// are the same type graph up to ids and order. btfstream diff uses it.
package dedup
