// Package dedup deduplicates BTF: it folds the types that every compilation
// unit (CU) repeats into one graph, like libbpf's btf__dedup, but with a
// complete notion of equivalence, and incrementally, batch by batch, so the
// encoder never holds the whole pre-dedup input. It imports btf only.
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
// structural classes, forward declarations are resolved by name, by
// libbpf's rules (btf_dedup_resolve_fwds, btf_dedup_prim_type): a FWD
// (struct or union, by kind_flag) resolves to the one STRUCT or UNION
// class of its name if there is exactly one and it is of the FWD's kind
// (a struct and a union of one name leave it, as libbpf keys them by name
// alone); an enum forward declaration (ENUM or ENUM64 with no values, any
// size) goes where libbpf's first pass puts it (enumfwd.go, which
// simulates it): the newest complete ENUM or ENUM64 of its name before
// it, newest as libbpf's hash table orders them; with none before it, the
// last new one; with none at all, the first declaration of its name.
// Size and kind are not compared, as in libbpf's btf_compat_enum, so a
// 4-byte declaration finds its 8-byte ENUM64, and a name with several
// complete enums still resolves (the issue-17 example: 'e1' declared,
// 'e1 {123}', 'e1' declared with size 1, 'e1 {321}' give the two enums,
// the first declaration standing for {321}, the second for {123}).
// Resolving may make more types equivalent (the structs that pointed at
// the declaration and at the definition), so resolution and merging
// repeat until nothing changes.
//
// # Forward declarations inside the types that hold them
//
// Equivalence is also taken up to forward declarations, as libbpf's
// btf_dedup_is_equiv does: while comparing two types, FWD 'x' and STRUCT
// 'x' (UNION 'x' for a union FWD: kind_flag must match) met at the same
// place stand for each other, and so do 'enum x;' and an ENUM or ENUM64
// 'x' with values; a FWD is then resolved to the definition (an enum
// declaration is not: see Finish below).
// Without this, two copies of a struct that differ only where one CU saw
// a declaration and another the definition never merge, and neither does
// anything that contains them. In a kernel that is the common case: in
// xfs.ko, the copies of struct module of two CUs first differ at a member
// that leads to struct pid_namespace, a STRUCT in one CU and a FWD in the
// other; in Debian 12's 6.1 kernel, struct fwnode_operations holds
// 'enum dev_dma_attr' without values in some CUs and with them in others,
// and nearly every struct reaches it.
//
// What changes:
//
//   - Hashing. A named STRUCT, UNION, FWD, ENUM or ENUM64 contributes to
//     its parents' hashes only a key of its name and struct, union or
//     enum (libbpf's shallow struct hash, extended to enums), so an edge to
//     a declaration and an edge to its definition hash alike, at any
//     depth. Hashing stops there; since every cycle in C passes through a
//     struct or union, the tag of every other type is a Merkle hash of its
//     tree cut at named aggregates, computed children first even inside a
//     cyclic component (one-level unfolding remains for cycles without a
//     named aggregate, which only synthetic input has).
//   - Comparing. A batch type is compared with a candidate class by check
//     (see "Comparing a batch type with a candidate"): a declaration
//     opposite its definition is a match. On success the declaration is
//     resolved to the definition (fwdTo, first come), whether it is the
//     table's (resolved by a batch struct) or the batch's.
//   - A declaration whose class was resolved takes the definition as its
//     class in later batches, so what points to it merges at once. Finish
//     substitutes every recorded resolution, then resolves the remaining
//     declarations by name (see above), and re-deduplicates until stable.
//     Enum declarations are resolved only there: inside a struct an enum
//     declaration stands for any enum of its name, but libbpf never takes
//     that as where the declaration goes (btf_dedup_merge_hypot_map maps
//     only FWDs).
//   - Compare (btfstream diff) keeps declarations and definitions distinct.
//
// This relation is not transitive: with two different structs foo, FWD
// foo is equivalent to each. Like libbpf, resolution is optimistic and
// first come: a declaration resolved once stands for its definition from
// then on, and candidates are tried newest first (this batch's classes,
// then the table's), the same order whether the input comes as one batch
// or cut into several, so the result stays deterministic and independent
// of the cut. "Complete equivalence" therefore means: the coarsest
// bisimulation of the graph in which a declaration and its definition are
// interchangeable, where no ambiguous name is involved; where one is (a
// FWD fitting two different structs), the first fit wins, as in libbpf,
// and permuting the input may change which. Merging stays lossless in one
// sense that matters: a type merges into a class only if, read through the
// resolutions, the class is the type's graph with at most some
// definitions replaced by declarations that stand for them. On a vmlinux
// (Debian 6.12 and 6.1, cloud-amd64) the result equals pahole 1.31's
// (libbpf at 374f7807) as a type graph.
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
// (their targets differ: FWD vs STRUCT), but the check of [8] against the
// table's bar [3] meets [6] foo opposite the FWD [1], accepts it, merges
// [8] into [3] and records FWD [1] -> foo. The table after the CUs holds
// [1] FWD, [2] PTR -> [1], [3] bar, [4] int, [5] foo, [6] PTR -> [5].
// Finish substitutes foo for the FWD (here 'foo' also names exactly one
// struct), so [2]~[6]. The result, in first occurrence order:
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
//     its label hash mixed with a tag per edge (named aggregates and enums
//     give the key of their name, see above). Candidates for a type are
//     the classes with its hash: the hash chain.
//  3. A component of one type outside any cycle has resolved edges: a
//     lookup in the hash chains (the batch's new classes, then the table)
//     and a direct comparison of label and edge classes decide. This is
//     most types (pointers, qualifiers, typedefs, protos, ints). A struct,
//     union or typedef found this way to match nothing is then checked
//     against its candidates (it may match up to forward declarations;
//     libbpf 1.7 deduplicates typedefs with structs, since Go's recursive
//     typedefs loop without one). Over a base it is checked first, newest
//     candidate first as in libbpf, and the lookup comes after: a module
//     typedef equal edge for edge to a base typedef (both over FWD d)
//     takes a module typedef over the module's struct d that checks OK.
//  4. A cyclic component: its structs, unions and typedefs, in id order, are checked
//     against their candidates, newest first; the first that check finds
//     OK is committed, which also settles the structs and unions it
//     reaches. Then its other members are resolved children first by their
//     exact resolved edges, as libbpf deduplicates reference types once
//     structs are done (a member whose edge leads to a new member is new);
//     members of a cycle without any struct are checked like structs. The
//     members that match nothing are new: Moore-style partition refinement
//     over just them (initial blocks: equal hash, label and resolved edges;
//     split a block while its types' edges into the component fall in
//     different blocks) finds which of them are equivalent to each other.
//     Each block becomes a new class, represented by its first member.
//     (Where the first check would find only OK pairs and change nothing
//     but the classes, pairCopy, tablecopy.go, makes it and its commit in
//     one cheaper walk: most of a vmlinux unit's big cycle.)
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
// # Comparing a batch type with a candidate
//
// check(a, b) decides whether batch type a may be equivalent to class b.
// It looks at pairs: a pair (x, y) has x on the batch's side, read as it
// is written (a batch type, or an existing id, by its own edges: as libbpf
// reads the candidate CU's types), and y on the candidate's side, a class
// read through resolved declarations (elem). A pair is a leaf when x
// already has class y, when one side declares what the other defines (OK),
// or when labels or hashes differ (FAIL); otherwise its successors are the
// pairs of its edges, position by position. (x, y) is OK if no pair it
// reaches FAILs: a greatest fixed point, which for graphs without
// declarations is exactly bisimilarity, since the table is minimal.
//
// The pairs reached from (a, b) form a graph, explored depth first with
// Tarjan's algorithm: the pairs of one strongly connected component of
// this graph reach each other, so they are decided together, OK when the
// component is done without a conflict. When a pair FAILs, every pair on
// the Tarjan stack reaches it (each reaches a pair on the depth-first path,
// and the path reaches the conflict), so all of them FAIL at once.
// Every pair explored is memoised in the batch (pairMemo, 32 bytes a pair):
//
//   - FAIL holds for the rest of the batch. What a pair reads only changes
//     when a declaration is resolved (its successors go one level deeper:
//     a conflict found before is still found) or when a batch type gets a
//     class (which only turns pairs of that type and its class into OK
//     leaves, and only OK pairs are committed): no FAIL turns OK.
//   - OK and ADJ (below) hold until the epoch ends: when a commit resolves
//     a declaration for the first time, or gives a class to a batch type
//     that a resolved declaration stands for.
//
// commitPair makes an OK pair final: each struct or union on the batch's
// side that has no class takes the class opposite it (first come), and
// each declaration met opposite a definition is resolved to it (first
// come). The commits of one epoch visit each pair once (a second visit
// would find everything done). This relation is checked pair by pair, not
// as a union of sets: libbpf's hypothetical map is also one pairing per
// canonical type, not an equivalence closure.
//
// # Cost
//
// Why it was rewritten. The check replaced a walk that unified the two
// graphs with a union-find, started afresh for every member of a component
// and every candidate of its hash, and forgot everything when it met a
// conflict. In the 6.1 kernel, with 'enum dev_dma_attr;' not yet standing
// for the enum, the table came to hold near-copies of most of the kernel's
// graph (two variants of fwnode_operations times the FWD combinations of
// the CUs); a unit's member had up to ~40 candidates sharing its shallow
// hash, and each walk explored ~2.5k pairs before meeting the enum:
// components of 1.5k members took 30k walks and 80M pairs, and in 90 s the
// encode got through 400 of ~2400 units (608k walks, 1.3G pairs). The
// adversarial test (adversary_test.go) builds the same shape on purpose:
// with rings of 400 structs in 16 variants over 48 units the walk took
// 5.5 minutes; check takes a quarter of a second.
//
// Now, for a batch of B types with E edges, let K be the number of
// (type, candidate) checks its structs can ask for, the sum of their hash
// chain lengths; P the number of distinct pairs its checks meet (x a
// batch type or existing id, y a class, with equal labels and hashes:
// at most the sum over hash values of left types times classes with that
// hash); d the largest number of edges of a type; and e the epochs of the
// batch. Then:
//
//   - Tarjan, hashing, lookups in the hash chains and the exact pass:
//     O(B + E) and one chain walk per type.
//   - Checks are never retried: each type asks each candidate once, at
//     most K checks, and stops at the first OK.
//   - A pair is explored (its d edges looked at) at most once per epoch,
//     and once FAIL never again, so checks and commits together explore at
//     most (1 + e)·P pairs: O((1 + e)·P·d + K) per batch.
//   - Epochs: each ends with a resolution made for the first time. fwdTo
//     is first come and never overwritten, so over the whole run the
//     epochs number at most twice the declarations ever resolved, plus one
//     per batch. In split mode, adjustBase's checks (one per struct and
//     base aggregate of equal label) end an epoch only when they resolve a
//     base FWD, once per base FWD.
//   - adjustBase checks a struct only against base aggregates of equal
//     label whose edges lead to types of equal signature (aggKey over
//     labelSig: kind class and name for named structs, unions, enums and
//     their declarations, the label otherwise; the table's lh), since any
//     other check FAILs at its first pair. Keyed by label alone, xfs.ko's
//     first unit made 516k checks (600 tracepoint unions {event, handler}
//     times the base's 830 of that label), 20 MB of pair memo and half
//     the module's CPU; keyed so, 735. The base's keys read only lh.
//   - Components are revisited only by Finish: each round deduplicates the
//     table as one batch (same bounds) and is followed by another only if
//     a declaration was resolved that was not before, so rounds are at
//     most one more than the declarations resolved in Finish (one or two
//     on a kernel).
//   - Partition refinement over the R new members of a component takes at
//     most as many rounds as it makes blocks, O(R) rounds of O(R + E_R)
//     (a few rounds in practice).
//
// The adversarial test asserts the checks (at most K) and the pairs (at
// most the sum over batches of (1 + e)·B·L, L the longest hash chain),
// so the blow-up cannot come back unnoticed; it has no timing assertion.
// On the 6.1 kernel the whole encode takes ~5 s, like pahole 1.31.
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
// half full (hindex: only distinct hashes take slots), and one map entry
// per resolved declaration: no pointers, so the GC never scans it. Arrays
// grow by at least a quarter. A batch's working set is about 45 bytes per
// batch type and 40 per pair its checks meet (about one per struct and
// candidate); the Incremental keeps it and reuses it for the next batch,
// so a run of batches does not allocate it again. AddBatch reads the batch
// Spec in place. A table whose first batch has a string table without base
// adopts it instead of copying the strings it uses (the bench's batches
// all share the input's string section); a batch with other strings makes
// it intern its own.
//
// # Preparing batches elsewhere
//
// For a self-contained batch (a base Spec: ids from 1, edges to its own
// types or void), Tarjan's components and every type's hashes need
// nothing from the table: Prepare computes them on any goroutine (the
// encoder's workers), recording the components in Tarjan's order;
// AddPrepared then resolves them against the table in that order and
// commits. The result is AddBatch's for the same types placed at the
// table's next id (prepare.go; TestPrepared checks it on random inputs,
// with and without a base). PrepareAgainst also takes import ids
// (ImportBit | table id) of a snapshot's types (imports.go).
//
// # Resolving against a snapshot
//
// Resolving a batch's components against the table (steps 3 and 4) is
// most of the merge's work, and on a kernel most of it confirms that a
// unit's types are there already. The table only grows, so a worker can
// do it as well, against the table as it was after an earlier batch, and
// leave the merging goroutine only what the batches in between changed.
//
// A Snapshot, taken between batches, is the table after batch j: views
// of its N_j types, its strings, per-id hashes and hash chain links
// (growing appends after them; nothing before them changes while batches
// are added), and the log of resolved declarations (fwdTo only gains
// entries, and never overwrites one; the log lists them in order). A
// Resolver, on a worker, keeps replicas of the hash index and of fwdTo,
// brought up to each snapshot, and runs AddPrepared's resolution (the
// same code) on them, the batch's ids starting at N_j. It records, per
// component in Prepare's order, its members' classes (table ids, or the
// batch's new classes, numbered from N_j), the new classes it put in the
// batch's hash chains, in order, and the declarations it resolved, in
// order; and which table declarations' resolutions each component read
// (every fwdTo lookup). It commits nothing.
//
// AddPrepared, on the table after batch k >= j (N_k types), walks the
// components in order: it takes the record of each clean component and
// resolves each dirty one itself. A component is dirty if
//
//  1. a member's hash is that of a class added after the snapshot (ids
//     N_j to N_k-1): a lookup of the hash would meet that class first;
//  2. it read the resolution of a declaration that a batch after the
//     snapshot resolved (fwdLog past the snapshot's), or that a tainted
//     component resolved (as recorded, or here); or
//  3. a member has an edge to a member of a tainted component, or a
//     member's hash is that of a new class a tainted component put in the
//     batch's chains (as recorded, or here).
//
// A component resolved here is tainted unless it gave its members the
// recorded classes, put the recorded new classes in the chains in the
// recorded order and made the recorded resolutions, and neither reaches
// a tainted component through its edges nor names a member of one (as a
// member's class, or in a resolution). Taking a component gives its
// members the recorded classes, puts the recorded new classes in the
// batch's chains in the recorded order, and makes the recorded
// resolutions (a new epoch, as a commit making them would start).
//
// Why the result is that of resolving everything. Let S be AddPrepared
// resolving every component itself on the table after batch k. After each
// component, AddPrepared's batch state (classes, chains, fwdTo) is S's,
// and on what no tainted component touched the worker's agrees: members
// of untainted components have the same class in both, a table id below
// N_j or a new class of an untainted component; the batch's chain of a
// hash no tainted component put a class under is the same; so is every
// fwdTo entry neither a later batch nor a tainted component made, and
// its value is a table id below N_j or a member of an untainted
// component (induction). Resolving a clean component c reads: the
// classes of its members' descendants (through edges, all in untainted
// components, by rule 3); the batch's chains of its members' hashes
// (only exact and tryCandidates look up, with members' hashes: the same,
// rule 3) and what their classes reach; the table's chains of those
// hashes (without ids >= N_j, rule 1, so the same: links are written
// once) and the table ids they and fwdTo values reach (edges lead to
// older ids, so only ids below N_j, which read the same); fwdTo entries
// (the same, rule 2). So the worker made S's decisions for c, and taking
// its record keeps the invariant. A dirty component is resolved from
// S's state, so as S does; the invariant holds if it is tainted, and if
// it is not, because it did what the record says and names nothing
// tainted. What differs besides is the pair memo and the commit marks:
// AddPrepared's do not hold the taken components' pairs. The memo is a
// cache whose answers do not depend on what it holds (a FAIL holds for
// the rest of the batch, an OK for its epoch, see "Comparing"; taking a
// resolution starts an epoch), and a commit that visits a pair S would
// skip (committed in this epoch, during a taken component) finds its
// work done: the pair's left side belongs to a taken component, so it
// has its class (classes are written once); a declaration on the left
// has no edges, so it was resolved in a component of its own before, and
// reads the class it read then; a declaration on the right was resolved,
// first come, when the pair was first visited, which the taken component
// recorded. So the classes, the new classes and their order, and the
// resolutions are S's, and so is what commit appends: the output is the
// same bytes whatever snapshot, or none, each batch was resolved
// against, hence at any -j.
//
// Only a table without base is resolved elsewhere: split mode's
// adjustBase marks kept types from the base's aggregates first, and
// modules are small. AddPrepared's table never adopts a batch's strings
// (a snapshot needs the table's own). TestPreResolved compares ids and
// bytes with AddPrepared alone on random inputs with a random snapshot
// lag per batch, among them inputs where declarations meet definitions;
// TestPreResolvedConcurrent runs Resolvers on their own goroutines;
// TestPreResolvedReadsResolution is rule 2's first case. (The tests fail
// without rule 1, rule 2's first case, the edges of rule 3 or the taint
// of a component that differs from its record; the other clauses are
// there for the argument, no generated input has needed them yet.)
//
// # Modules: what stays a module type
//
// With a base (vmlinux, for a module), batch types equivalent to base types
// become those base ids, module declarations may resolve to base structs,
// and the base is never changed. One thing cannot be expressed: a base
// FWD standing for a struct only the module defines. Folding a module type
// onto a base type whose graph reaches such a FWD would replace, in the
// module's view, a complete definition by a declaration. libbpf calls such
// a pair "not really equivalent" (hypot_adjust_canon): it keeps the module
// type, and points the base FWD at the module's struct, after which later
// checks read the FWD as that struct and fold. The rule, as libbpf applies
// it and as adjustBase does before a module batch is resolved:
//
//	In id order, each STRUCT or UNION of the module is checked against
//	the base aggregates of its label. If the check is OK but for base
//	FWDs met opposite definitions of the module (ADJ), those FWDs now
//	stand for the module's definitions, and the module type is kept
//	apart from the base (unless a later candidate is OK). Reference types
//	follow by their exact edges: those leading to a kept struct stay too.
//
// Example. The base has struct s2 only declared; its s1 points to it; the
// module defines both:
//
//	base:   [1] FWD 's2'  [2] PTR -> [1]  [3] STRUCT 's1' {p: [2]}
//	module: [4] STRUCT 's2' {x: int}  [5] PTR -> [4]  [6] STRUCT 's1' {p: [5]}
//
// Folding [6] onto [3] would make the module's s1 point at FWD s2: the
// check of [6] against [3] is ADJ, so [6] stays, with [4] and [5], and FWD
// [1] stands for [4]. A second unit's s1 then merges with the module's
// [6] (newest candidate first), not with the base's. Only the first struct
// (in id order) to reach each base FWD is kept: in sctp.ko the base
// declares sctp_mib and sctp_sched_ops, which nearly every kernel struct
// reaches through struct net, and pahole keeps just rcuwait and
// sctp_association (6.12) or struct module and sctp_association (6.1),
// plus the reference types that lead to them. Keeping every type whose
// graph reaches the FWD would keep most of the kernel in the module.
//
// Which types a unit keeps depends on its own types, not only on their
// classes: a unit whose sctp_association maps to the kept copy has its own
// pointers and protos to it, while another unit's are folded onto the
// base's. Deduplicating each unit straight against the base (an
// Incremental with the base, batch by batch, or the module's units as one
// batch) keeps exactly pahole 1.31's module types: xfs, nf_tables, sctp,
// tcp_bbr and virtio_net of the 6.1 and 6.12 kernels are diff-equal.
// The encoder does this (stream/merge: an Incremental over the base).
// SplitOnto, which deduplicates the module alone first, cannot: the
// module's own dedup already merged the two units' sctp_state_fn_t, so it
// has 3 types fewer than pahole 1.31 in sctp.ko (equal on the others).
// Since typedefs are checked like structs (libbpf 1.7, pahole 1.32), the
// encoder merges them too: Linux 7.2's sctp.ko has one sctp_state_fn_t and
// its PTR fewer than with pahole 1.31's rules, as pahole 1.32 gives (the
// other modules above are unchanged, byte for byte).
//
// Commits settle only structs and unions, as libbpf's merge_hypot_map:
// a module pointer to a kept struct must not fold onto the base's pointer
// merely because a struct holding it did.
//
// # Modules: typedefs are not checked against the base
//
// libbpf 1.7 checks typedefs like structs, but hashes a module typedef by
// name and kind and a base typedef with its target too, so a module
// typedef never meets a base typedef as a candidate. It is checked only
// against the module's earlier typedefs, and so never resolves a base FWD
// either. adjustBase checks structs and unions only, and a batch typedef
// is never matched to a base class by checking (match); one identical to
// a base typedef still folds onto it by its exact edges (when no module
// candidate checks OK first), or at Finish.
// Checking it against the base gave another result: in Linux 7.2's
// libnvdimm.ko the base has ndctl_fn, a pointer to a prototype taking
// struct nvdimm_bus_descriptor * and struct nvdimm *, with struct nvdimm
// only declared. libbpf leaves the module's ndctl_fn unchecked; the
// descriptor's check meets FWD nvdimm opposite the module's struct (ADJ),
// so the descriptor stays in the module, and in the reference phase
// ndctl_fn's prototype points at it. Checking ndctl_fn against the base's
// (where FWD nvdimm already stands for the module's struct) kept the
// descriptor but gave the typedef a prototype naming the base's
// descriptor, and the module's own prototype went unreferenced: 47 types
// of pahole 1.32's output had no counterpart in ours (now equal).
//
// # Modules: the module's view of base types
//
// libbpf checks a type against a candidate by walking the candidate's own
// types as its unit wrote them, and a module unit's types never lead into
// the base. A unit type that folded onto a base type (its check was OK)
// may still lead, in its unit, to a struct kept apart from the base where
// the base type leads to the base struct: the two are equivalent once the
// base FWD stands for the module's struct, which is why the fold was OK.
// A struct met there in a later check takes the module's kept struct in
// libbpf. So the right side of a pair reads, below a module class, every
// base id in the module view (moduleView, a bit on the id): a base struct
// that a module struct was first kept apart from is that module struct
// (its twin), any other base id keeps the view for its edges. Below a
// base candidate, base ids read as themselves. In Linux 7.2's kvm-amd.ko
// and kvm-intel.ko, a unit's gfn_to_pfn_cache checked against the
// module's reaches, through struct kvm and kvm_vcpu (folded onto the
// base's), the unit's kvm_mmu opposite the module's kept kvm_mmu; read
// over classes, it met the base's kvm_mmu, and the unit's prototype of
// kvm_mmu.gva_to_gpa stayed in the module, unreferenced. Without kept
// structs nothing changes (no twins, no view).
//
// # Modules: references to a base FWD that stands for a module struct
//
// libbpf deduplicates all of a module's structs before any of its
// reference types, so by then a base FWD that a module struct X reached
// opposite its definition points at X, and every module reference to the
// declaration (through the module's own FWD, which maps to the base's)
// resolves to X: such a reference, and every reference type above it,
// never equals the base's, which names the FWD itself. Units come here one
// by one, and those before the unit that made the FWD stand for X have
// already folded their pointers (and typedefs, protos, ...) onto the
// base's. Finish puts that right (basecopy.go): each table edge to a base
// type that is not a STRUCT or UNION and reaches such a FWD through types
// that are not STRUCTs or UNIONs becomes a copy of that base type, the
// FWD replaced by X, and the rebuild merges the copies with the module's
// own references to X. Base structs are not copied: libbpf's struct check
// reads the FWD as X, so module structs still fold onto them. On Debian's
// 7.2 cloud kernel this made tipc, nfs, nfsv4, ib_core, mlx5_ib and kvm
// equal to pahole 1.31 (tipc_bearer, nfs_io_completion, nfs_subversion,
// uverbs_api_object, kvm_x86_ops's members).
//
// # Modules: no copies of base types
//
// A kept struct can come out identical to a base type: rcuwait in sctp.ko
// is kept because its check reached the base's FWD sctp_mib opposite the
// module's definition, but once that FWD stands for the definition,
// everything below rcuwait folds onto the base, and the kept copy equals
// the base's rcuwait. libbpf (pahole 1.31) leaves such copies; libbpf 1.7
// (Debian's pahole 1.32) leaves many more (every typedef and what refers
// to one: NOTES.md). btfstream folds them: when a split table has kept
// types, Finish's last rebuild deduplicates it by identity alone (no FWD
// resolution, nothing kept apart), which folds every table type identical
// to a base type onto it and leaves the rest as it was (identity is finer
// than the FWD-aware equivalence the table is already minimal under).
// Compare (btfstream diff --base) treats a copy of a base type as that
// type, so a module with copies equals one without.
//
// # Modules: indexing the base
//
// A base is indexed once per module, and for a small module that is most
// of the work, so it is not deduplicated as a batch. One pass groups its
// types (by name, label hash, or kind and edges) and proves from the
// groups that no two of them are equivalent (baselazy.go, baseproof.go);
// a type's hashes and its place in the hash chains are then made only
// when a lookup reaches its group. If the pass cannot prove it, hashBase
// hashes the whole base (the values a batch gets, computed without
// components) and proves from the full index that no two types of one
// hash are equivalent; only a base with such duplicates is run as a batch
// (to map them to their first occurrence). Finish's lookups of base types
// go by name (resolveFwds, planEnums), not over the whole base, and the
// base's index is kept apart from the table's, which a rebuild empties.
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
// the peak RSS near 1.3x the raw input, where one batch took 5x. If a base
// has equivalent duplicates, references go to the first of them.
//
// # Comparing
//
// Compare runs the same classification over the disjoint union of two
// BTFs, with VAR and DATASEC compared like other types and no forward
// resolution, and compares the multisets of classes: equal means the two
// are the same type graph up to ids and order. btfstream diff uses it.
package dedup
