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
// 4-byte forward declaration finds its 8-byte ENUM64). Resolving may make
// more types equivalent (the structs that pointed at the FWD and at the
// struct), so resolution and merging repeat until nothing changes.
//
// # Forward declarations inside the types that hold them
//
// Equivalence is also taken up to forward declarations, as libbpf's
// btf_dedup_is_equiv does: while comparing two types, FWD 'x' and STRUCT
// 'x' (UNION 'x' for a union FWD: kind_flag must match) met at the same
// place are equivalent, and the FWD is then resolved to that struct.
// Without this, two copies of a struct that differ only where one CU saw
// a declaration and another the definition never merge, and neither does
// anything that contains them. In a kernel that is the common case: in
// xfs.ko, the copies of struct module of two CUs first differ at a member
// that leads to struct pid_namespace, a STRUCT in one CU and a FWD in the
// other:
//
//	CU 1: struct module { ... struct pid_namespace *ns ... }   (defined)
//	CU 2: struct module { ... struct pid_namespace *ns ... }   (FWD only)
//
// Structurally the two modules are different, so every CU added another
// near-copy of struct module and of all that reaches it (xfs.ko alone:
// 6404 PTR for pahole's 1932; a vmlinux did not finish). Now the walk
// that compares CU 2's module with the table's meets FWD pid_namespace
// opposite STRUCT pid_namespace, accepts it, merges the modules and
// records FWD pid_namespace -> STRUCT pid_namespace; Finish substitutes
// the FWD, and the pointers to it merge with the pointers to the struct.
//
// What changes:
//
//   - Hashing. A named STRUCT, UNION or FWD contributes to its parents'
//     hashes only a key of its name and struct-or-union (libbpf's
//     shallow struct hash), so an edge to FWD x and an edge to STRUCT x
//     hash alike, at any depth. Hashing stops there; since every cycle in
//     C passes through a struct or union, the tag of every other type is
//     a Merkle hash of its tree cut at named aggregates, computed
//     children first even inside a cyclic component (one-level unfolding
//     remains for cycles without a named aggregate, which only synthetic
//     input has). A struct whose own hash depends only on this is found
//     among the table's candidates whatever FWDs lie below it.
//   - The walk unifies (union-find over batch types and classes) instead
//     of mapping batch types to classes: a pair unifies when labels are
//     equal (then its edges must unify), or when one side is a FWD and
//     the other a STRUCT/UNION of its name and kind. Both sides may be
//     classes: a batch type already resolved (a pointer to FWD x, say)
//     is compared through its class with the table's pointer to STRUCT
//     x. On success, batch types take the class of their set, and each
//     FWD in a set with a struct is resolved to it (fwdTo), whether the
//     FWD is the table's (resolved by a batch struct) or the batch's.
//     Single structs and unions (outside cycles) with no exact match are
//     walked too; other single types still need equal resolved edges, as
//     libbpf dedups reference types by canonical ids after resolution.
//   - A FWD whose class was resolved takes the struct as its class in
//     later batches, so what points to it merges at once. Finish
//     substitutes every recorded resolution, then resolves the remaining
//     FWDs by unique name, and re-deduplicates until stable.
//   - Compare (btfstream diff) keeps FWD and STRUCT distinct. The base
//     is never changed, but as in libbpf (hypot_adjust_canon) a walk that
//     meets a base FWD opposite a table or batch struct resolves that
//     base FWD to the struct (fwdTo) and merges nothing; the walk is then
//     retried, with later walks seeing the base FWD as its struct. Base
//     reference types that reach a resolved base FWD without passing a
//     named struct (baseDirty) never become a table type's class, since
//     libbpf compares reference types by exact edges. Finish substitutes
//     table references to resolved base FWDs like table FWDs.
//
// This relation is not transitive: with two different structs foo, FWD
// foo is equivalent to each. Like libbpf, resolution is optimistic and
// first come: a FWD resolved once stands for its struct from then on,
// and a walk tries candidates newest first (this batch's classes, then
// the table's), the same order whether the input comes as one batch or
// cut into several, so the result stays deterministic and independent of
// the cut. "Complete equivalence" therefore now means: the coarsest
// bisimulation of the graph in which FWD x and STRUCT/UNION x of the same
// kind are interchangeable, where no ambiguous name is involved; where
// one is (a FWD fitting two different structs), the first fit wins, as in
// libbpf, and permuting the input may change which. Inside one cyclic
// component, the members that match no existing class are split by exact
// partition refinement (they come from one CU, where FWD and definition
// of the same name do not both occur). On a vmlinux and on xfs.ko the
// result equals pahole 1.31's (libbpf at 374f7807) as a type graph.
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
// [4] and [5] are equivalent (same label, no edges). [7] and [2] are not
// (their targets differ: FWD vs STRUCT), but the walk that compares [8]
// with the table's bar [3] meets [6] foo opposite the FWD [1], accepts it
// (see "Forward declarations inside the types that hold them"), merges [8]
// into [3] and records FWD [1] -> foo. The table after the CUs holds [1]
// FWD, [2] PTR -> [1], [3] bar, [4] int, [5] foo, [6] PTR -> [5]. Finish
// substitutes foo for the FWD (here 'foo' also names exactly one struct),
// so [2]~[6]. The result, in first occurrence order:
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
//     its label hash mixed with a tag per edge. A named STRUCT, UNION or
//     FWD has as tag a key of its name and struct-or-union; any other type
//     whose unfolding, cut at those, is finite has its own hash (a Merkle
//     hash of its cut tree); the rest (cycles with no named aggregate) a
//     one-level unfolding. This is the same for equivalent types, in the
//     batch or in the table, and for FWD x and STRUCT x.
//  3. A component of one type outside any cycle has resolved edges: a hash
//     lookup in the table index (and the batch's index of new classes) and
//     a direct comparison of label and edge classes decide. This is most
//     types (pointers, qualifiers, typedefs, protos, ints).
//  4. A cyclic component (and a single struct or union with no exact
//     match): each member is first tried against the classes with its
//     hash by walking both graphs in step, unifying the types met at the
//     same place (see above). Without FWDs, classes are pairwise
//     inequivalent, so an equivalent type has exactly one possible image
//     and the first conflict proves inequivalence; with FWDs the walk is
//     optimistic as described. A successful walk makes all of its pairs
//     final. The members that
//     match nothing are new; Moore-style partition refinement over just
//     them (initial blocks: equal hash, label and resolved edges; split a
//     block while its types' edges into the component fall in different
//     blocks) finds which of them are equivalent to each other. Each block
//     becomes a new class, represented by its first member.
//  5. New classes are appended to the table in order of first occurrence,
//     their edges rewritten to table ids, their strings interned (unless
//     the table shares the batch's string table), and the FWD resolutions
//     the batch recorded under batch ids moved to table ids; the batch's
//     per-type arrays are kept for the next batch.
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
// half full (hindex: only distinct hashes take slots), a 4-byte union-find
// link in the batch state, and one map entry per resolved FWD: no
// pointers, so the GC never scans it. Arrays grow by at least a quarter. A batch's working
// set is about 45 bytes per batch type; the Incremental keeps it and
// reuses it for the next batch, so a run of batches does not allocate it
// again. AddBatch reads the batch Spec in place. A table whose first batch
// has a string table without base adopts it instead of copying the
// strings it uses (the bench's batches all share the input's string
// section); a batch with other strings makes it intern its own.
//
// # Modules: dedup alone, then split onto the base
//
// The encoder deduplicates a module's units among themselves (an
// Incremental with no base) and then calls SplitOnto once, which appends
// the result as split BTF over the kernel's and deduplicates it against
// the base in one pass, as pahole does (encode, then one libbpf dedup with
// the base). Feeding each unit straight against the base used to leave
// near-copies of kernel structs in nf_tables.ko and sctp.ko and members
// pointing at the wrong base types (task_struct 'fs' at PTR ->
// sock_reuseport). The cause was not the base: at the end of a batch, the
// FWD resolutions it recorded under batch ids were moved to table ids one
// by one, and since batch ids and the table ids of the batch's new classes
// are both numbered from the batch's first id, a moved key could land on
// a key still to be moved, so one FWD took another's struct. They are now
// all taken out before any is put back (commitFwds). Since then, deduplicating
// nf_tables.ko, sctp.ko or xfs.ko unit by unit against the base, or cut
// into chunks of any size, gives SplitOnto's result (btfstream diff equal).
// The encoder keeps SplitOnto: it is pahole's order, and the module's own
// dedup shrinks what meets the base (nf_tables.ko: 97k unit types, 5.5k
// after its own dedup).
//
// Where this merges more than libbpf: when a module type's graph reaches a
// struct that the base holds only as a FWD while the module defines it
// (nf_tables.ko: an anonymous struct { action; zone; struct nf_flowtable
// *flow_table; }, base has FWD nf_flowtable; sctp.ko: file_system_type and
// 14 types that reach it), libbpf calls the pair "not really equivalent"
// (hypot_adjust_canon), keeps a module copy, and only points the base FWD
// at the module struct. Dedup lets the FWD stand for the struct and uses
// the base type, so our split BTF is smaller by those copies (1 type of
// 1316 and 15 of 1409). Every type it emits still has a counterpart in
// pahole's.
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
// those base ids, FWDs may resolve to base structs, base FWDs may stand
// for table structs (see above), and the base is never changed. If the base itself has equivalent duplicates, references go to
// the first of them.
//
// # Comparing
//
// Compare runs the same classification over the disjoint union of two
// BTFs, with VAR and DATASEC compared like other types and no forward
// resolution, and compares the multisets of classes: equal means the two
// are the same type graph up to ids and order. btfstream diff uses it.
package dedup
