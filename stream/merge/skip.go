package merge

import (
	"fmt"
	"os"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
	"github.com/btfstream/btfstream/stream/encode"
)

// Skipping repeated closures (encode's closureskip.go): the merger keeps
// the ClassTable its workers read, and publishes after each batch the
// classes of the batch's keyed, declaration-free types the table did not
// have. BTFSTREAM_SKIP=0 turns it off; BTFSTREAM_SKIPCHECK=1 makes the
// workers convert everything and the merger assert that each type they
// would have skipped went into the class the table gave.

// The batch's import ids are dedup's.
var _ [0]struct{} = [encode.ImportBit - dedup.ImportBit]struct{}{}

// initSkip makes the table for a merger with cfg, or none when closures
// are not skipped: with a base (a module's units are resolved by the
// merger alone) or without dedup.
func (m *Merger) initSkip(cfg Config) {
	if cfg.Base != nil || cfg.NoDedup || os.Getenv("BTFSTREAM_SKIP") == "0" {
		return
	}
	m.classes = encode.NewClassTable()
	m.classes.Check = os.Getenv("BTFSTREAM_SKIPCHECK") == "1"
	m.skip.names = os.Getenv("BTFSTREAM_SKIPNAMES") != "0"
	m.skip.each = os.Getenv("BTFSTREAM_SKIPREACH") == "1"
}

// skipState is the merger's side of skipping besides the table: names,
// whether Stale lets batches through by name; fresh, the one it let
// through last; reach, dedup.ReachesResolved's scratch; the counts.
type skipState struct {
	names   bool
	each    bool // Restale walks each root (BTFSTREAM_SKIPREACH=1)
	fresh   *encode.Batch
	reach   dedup.ReachScratch
	roots   []btf.TypeID // Restale's scratch
	reached []bool
	stats   skipStats
}

// ClassTable returns the table of classes workers that prepare with
// m.NewPreparer may skip (Worker.SetClassTable), nil if none.
func (m *Merger) ClassTable() *encode.ClassTable { return m.classes }

// withImports extends a batch-to-table map to the batch's import ids.
func withImports(table func(btf.TypeID) btf.TypeID) func(btf.TypeID) btf.TypeID {
	return func(id btf.TypeID) btf.TypeID {
		if id >= encode.ImportBit {
			return id &^ encode.ImportBit
		}
		return table(id)
	}
}

// SkipsAt reports whether workers of a pipeline of jobs should skip
// closures (Worker.SetClassTable): at any number of jobs, unless
// BTFSTREAM_SKIP=0 (off everywhere) or BTFSTREAM_SKIP=j1 (only at one
// job, as before session 10). Above one job closures with declarations
// are skipped too, and a stale batch's unit is encoded again skipping
// its declaration-free imports (stream/pipeline_skip.go, Restale).
// On above one job since session 10, when cheaper closure keys
// (keycost) made it pay: 6.12 vmlinux -j2, callgrind (GOMAXPROCS=2)
// 36.09G -> 31.39G instructions; on a quiet host, 7 alternating pairs,
// medians: 6.12 wall 4.64 -> 4.23 s, user 8.38 -> 7.64 s, peak RSS
// 113.9 -> 116.4 MB; 7.2 wall 4.71 -> 4.27 s, user 8.61 -> 7.57 s,
// RSS 120.9 -> 126.7 MB. Before keycost it saved 5.6% of instructions
// and no CPU time this host could resolve.
func (m *Merger) SkipsAt(jobs int) bool {
	return m.classes != nil && (jobs == 1 || os.Getenv("BTFSTREAM_SKIP") != "j1")
}

// SkipDeclarations lets workers skip closures with declarations too
// (encode's closureskip_decl.go). Above one job a batch may then be stale:
// the pipeline asks Stale before Add and has a stale unit encoded again.
// BTFSTREAM_SKIPDECL=0 turns it off.
func (m *Merger) SkipDeclarations() {
	if m.classes != nil && os.Getenv("BTFSTREAM_SKIPDECL") != "0" {
		m.classes.EnableDecl()
	}
}

// resolutions is how many declarations the table has resolved.
func (m *Merger) resolutions() uint32 {
	if d, ok := m.d.(*dedup.Incremental); ok && m.classes != nil {
		return uint32(d.Resolutions())
	}
	return 0
}

// Stale reports whether Add would refuse b: it skipped closures with
// declarations after DeclRes resolutions, and the batches added since
// the worker read the table resolved more (encode's closureskip_decl.go).
// The unit must then be encoded again by a worker reading the table as it
// is now, which (the merger being between batches) makes a batch Add
// takes: the output does not depend on which batches were stale.
//
// Unless BTFSTREAM_SKIPNAMES=0, a batch whose imported closures reach no
// type named like a declaration resolved in flight is not stale: its
// types are only ever paired with table types of their own names, so
// they read none of those resolutions (dedup's ReachesResolved).
func (m *Merger) Stale(b *encode.Batch) bool {
	if b.DeclImports == 0 {
		return false
	}
	now := m.resolutions()
	if b.DeclRes == now {
		return false
	}
	if d, ok := m.d.(*dedup.Incremental); ok && m.skip.names && !d.ReachesResolved(b.DeclClasses, int(b.DeclRes), int(now), &m.skip.reach) {
		m.skip.fresh = b
		m.skip.stats.fresh++
		return false
	}
	m.skip.stats.stale++
	m.skip.stats.staleImports += b.DeclImports
	m.skip.stats.inFlight += int(now - b.DeclRes)
	return true
}

// Restale filters imps, the skipped DIEs of b (Batch.NodeImports), which
// Stale found stale: it drops the closures with declarations and returns
// what is left and the resolutions now. b's unit encoded again skipping
// exactly those, at those resolutions (encode's EncodeImports), makes a
// batch Add takes: the declaration-free classes left never change, and
// the closures with declarations are converted as -j1 would have when
// its table had no entry for them.
//
// With BTFSTREAM_SKIPREACH=1 it drops only the closures with
// declarations whose class reaches a type named like a declaration
// resolved since b.DeclRes (dedup's ReachesResolvedEach), as session 9
// did: that keeps ~65% of them skipped, but the walks (one per root over
// the table) cost ~2 s of CPU on the 6.12 vmlinux -j2 (pprof, the merge
// stage 1.1 -> 2.3-2.8 s), against ~0.05 s for converting them all.
func (m *Merger) Restale(b *encode.Batch, imps []encode.NodeImport) ([]encode.NodeImport, uint32) {
	now := m.resolutions()
	st := &m.skip
	if d, ok := m.d.(*dedup.Incremental); ok && st.names && st.each {
		return m.restaleEach(d, b, imps, now), now
	}
	kept := imps[:0]
	for _, x := range imps {
		if x.Decl {
			st.stats.staleDropped++
			continue
		}
		kept = append(kept, x)
	}
	return kept, now
}

// restaleEach is Restale's BTFSTREAM_SKIPREACH=1 filter.
func (m *Merger) restaleEach(d *dedup.Incremental, b *encode.Batch, imps []encode.NodeImport, now uint32) []encode.NodeImport {
	st := &m.skip
	st.roots = st.roots[:0]
	for _, x := range imps {
		if x.Decl {
			st.roots = append(st.roots, x.Class)
		}
	}
	if cap(st.reached) < len(st.roots) {
		st.reached = make([]bool, len(st.roots))
	}
	st.reached = st.reached[:len(st.roots)]
	d.ReachesResolvedEach(st.roots, int(b.DeclRes), int(now), &st.reach, st.reached)
	kept, k := imps[:0], 0
	for _, x := range imps {
		if x.Decl {
			k++
			if st.reached[k-1] {
				st.stats.staleDropped++
				continue
			}
		}
		kept = append(kept, x)
	}
	return kept
}

// skipStats counts, for BTFSTREAM_SKIPSTATS, what the workers skipped.
type skipStats struct {
	imported, checked int
	declImported      int
	// stale batches (Stale), the closures with declarations they skipped,
	// the resolutions made while they were in flight; batches Stale let
	// through by name.
	stale, staleImports, inFlight, fresh int
	// imports with declarations Restale dropped (the rest stay skipped)
	staleDropped int
	// check mode: stale batches' checks of closures with declarations,
	// how many of those went into another class than the table said; the
	// same for the batches the name rule would let through.
	staleChecks, staleWrong, nameChecks, nameWrong int
}

// publish records the classes of b's new keys, and checks b's Checks;
// res0 is the resolutions before b was added.
func (m *Merger) publish(b *encode.Batch, table func(btf.TypeID) btf.TypeID, res0 uint32) error {
	if m.classes == nil || m.snap.Load() == nil {
		// Without a snapshot a worker could not prepare imports.
		return nil
	}
	for _, k := range b.Keys {
		m.classes.Insert(k.Key, table(k.ID))
	}
	if m.classes.DeclEnabled() {
		if b.DeclImports > 0 && b.DeclRes != res0 && b != m.skip.fresh {
			return fmt.Errorf("unit %q: %d closures with declarations skipped after %d resolutions, the table has %d", b.Name, b.DeclImports, b.DeclRes, res0)
		}
		// An entry is usable while the resolutions stay what they were
		// before its batch: a batch that resolves one makes every entry
		// useless, its own too.
		if now := m.resolutions(); now != res0 {
			m.classes.ForgetDecl()
			m.classes.SetResolutions(now)
		} else {
			for _, k := range b.DeclKeys {
				m.classes.InsertDecl(k.Key, table(k.ID), res0)
			}
		}
	}
	for _, k := range b.Checks {
		if got := table(k.ID); got != k.Class {
			return fmt.Errorf("unit %q: BTFSTREAM_SKIPCHECK: type %d of closure key %#x went into [%d], the class table says [%d]", b.Name, k.ID, k.Key, got, k.Class)
		}
	}
	m.skip.fresh = nil
	byName := false // check mode: the name rule lets the stale checks through
	if len(b.DeclChecks) > 0 && b.DeclRes != res0 {
		m.skip.stats.stale++
		m.skip.stats.inFlight += int(res0 - b.DeclRes)
		if d, ok := m.d.(*dedup.Incremental); ok {
			roots := make([]btf.TypeID, len(b.DeclChecks))
			for i, k := range b.DeclChecks {
				roots[i] = k.Class
			}
			byName = !d.ReachesResolved(roots, int(b.DeclRes), int(res0), &m.skip.reach)
		}
	}
	for _, k := range b.DeclChecks {
		got := table(k.ID)
		if b.DeclRes != res0 {
			// A check read before resolutions the batches in flight made:
			// the batch, converted whole, is right; the check is stale.
			m.skip.stats.staleChecks++
			if got != k.Class {
				m.skip.stats.staleWrong++
			}
			if byName {
				m.skip.stats.nameChecks++
				if got != k.Class {
					m.skip.stats.nameWrong++
				}
			}
			continue
		}
		if got != k.Class {
			return fmt.Errorf("unit %q: BTFSTREAM_SKIPCHECK: type %d of closure key %#x (with declarations) went into [%d], the class table says [%d]", b.Name, k.ID, k.Key, got, k.Class)
		}
	}
	m.skip.stats.imported += b.Imports
	m.skip.stats.declImported += b.DeclImports
	m.skip.stats.checked += len(b.Checks) + len(b.DeclChecks)
	return nil
}

// Imported reports how many batch types workers skipped as imports.
func (m *Merger) Imported() int { return m.skip.stats.imported }

// reportSkips prints, with BTFSTREAM_SKIPSTATS set, how many types the
// workers skipped and how many keys the table holds.
func (m *Merger) reportSkips() {
	if m.classes != nil && os.Getenv("BTFSTREAM_SKIPSTATS") != "" {
		st := &m.skip.stats
		fmt.Fprintf(os.Stderr, "skip: %d batch types imported (%d with declarations), %d checked (BTFSTREAM_SKIPCHECK), %d keys, %d keys with declarations\n",
			st.imported, st.declImported, st.checked, m.classes.Len(), m.classes.DeclLen())
		fmt.Fprintf(os.Stderr, "skip: %d stale batches encoded again (%d imports with declarations, %d of them dropped; %d resolutions in flight), %d let through by name; check mode: %d stale checks, %d of them wrong; by name %d, %d wrong\n",
			st.stale, st.staleImports, st.staleDropped, st.inFlight, st.fresh, st.staleChecks, st.staleWrong, st.nameChecks, st.nameWrong)
	}
}
