// Package merge is the serial end of the pipeline: it takes the units'
// batches strictly in file order and deduplicates them into one table.
//
// # Role
//
// A worker first prepares its unit's batch (Preparer, dedup.Prepare: the
// table-independent half of deduplication: edges checked, components,
// hashes), then resolves it against the newest table the merger has
// published (Merger.NewPreparer; a dedup.Snapshot after every Add): the
// rest of deduplication, recorded instead of committed. Merger.Add hands
// the batch to dedup.AddPrepared, which takes what the worker recorded
// wherever the batches added since the snapshot changed nothing it read,
// resolves the rest itself, and commits; the output is the same bytes as
// resolving everything here. Add then maps the few ids that outlive the
// unit to table ids: pahole's array index type (which depends on the units
// before), the unit's saved function states (their names re-interned,
// kept in a spill.Store that goes to a zstd temp file when the budget is
// over) and its DATASEC entries. When the unit's arrays cannot keep its
// own index int (an earlier unit provided a different one), Add places
// the batch after the table with its arrays re-pointed and gives it to
// dedup.AddBatch instead.
//
// After the last unit, Funcs merges the function states by name as
// pahole 1.32's btf_encoder__add_saved_funcs does (funcs.go, pick: the
// state at a symbol's address is the name's; a name is dropped whose
// parameters arrive in unexpected registers or out of order, whose
// optimized parameters come with a changed ABI, whose symbols sit at
// different addresses, and with consistent_func whose prototypes
// differ; true_signature names a FUNC after its '.'-suffixed symbol), adding
// FUNC_PROTO, FUNC and DECL_TAG types in name order, then the DATASECs;
// Finish resolves forward declarations over the table (for a module,
// split BTF over the base, which its units met from the first one on).
//
// # Invariants
//
//   - Batches are added in file order; the output depends only on the
//     batches and their order, never on timing.
//   - Between units the merger holds only the table, ids and string
//     offsets.
//
// # Imports
//
// merge imports btf, dedup, spill, encode (for its output types) and
// elffile (errors). It must not import dwarfread or the stream package:
// it never sees DWARF.
package merge
