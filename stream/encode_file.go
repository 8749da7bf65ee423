package stream

import (
	"slices"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/encode"
	"github.com/btfstream/btfstream/stream/merge"
)

func encodeFile(path string, opts EncodeOptions) (*btf.Spec, EncodeStats, error) {
	var stats EncodeStats
	if _, err := dwarfread.ParseLangs(opts.LangExclude); err != nil {
		return nil, stats, elffile.WithFile(path, err)
	}
	mem, err := newMemPlan(opts)
	if err != nil {
		return nil, stats, elffile.WithFile(path, err)
	}
	defer mem.close()
	stats.MemLimit, stats.MemLimitFrom = mem.limit, mem.from
	f, err := dwarfread.Open(path, dwarfread.Options{CacheBytes: mem.cacheBytes, StrOutside: strOutside(mem.limit), ArenaKeep: mem.arenaKeep()})
	if err != nil {
		return nil, stats, err
	}
	defer f.Close()
	out, err := run(f, opts, mem, &stats)
	stats.Spilled = mem.budget.Spilled()
	if err != nil {
		return nil, stats, elffile.WithFile(path, err)
	}
	if opts.Features.Has(FeatLayout) && out.Base() == nil {
		// pahole 1.32 asks libbpf 1.8 for the layout section
		// (btf__new_empty_opts, add_layout) for base BTF only: split
		// BTF would repeat its base's.
		out.SetLayout(btf.KindLayout())
	}
	for id := out.FirstID(); id < out.NextID(); id++ {
		stats.KindCounts[out.Kind(id)]++
		stats.Types++
	}
	stats.PeakAccounted = mem.budget.Peak()
	return out, stats, nil
}

// run streams the units through the pipeline (pipeline.go), then has the
// merger finish. What the encoder and the merger need first (the symbol
// table) is read by setup; with Jobs > 1 on its own goroutine, while the
// first units are read and decoded.
func run(f *dwarfread.File, opts EncodeOptions, mem *memPlan, stats *EncodeStats) (*btf.Spec, error) {
	ef := f.ELF()
	stage(stageSetup)
	defer stage(stageNone)
	jobs, err := mem.check(f, opts)
	if err != nil {
		return nil, err
	}
	// The limit may hold fewer jobs than asked for: the rest wait.
	opts.Jobs, stats.Jobs = jobs, jobs
	su := &setup{ready: make(chan struct{})}
	if opts.Jobs > 1 {
		go func() {
			stage(stageSetup)
			su.run(f, opts, mem)
		}()
	} else {
		su.run(f, opts, mem)
	}
	progress := newProgress(f, opts.Progress)
	err = encodeUnits(f, su, opts, mem, stats, progress)
	<-su.ready
	if su.m != nil {
		defer su.m.Close()
	}
	if su.err != nil {
		return nil, su.err
	}
	if err != nil {
		return nil, err
	}
	progress.done()
	// No unit is read any more: the reader's caches go before the
	// function states are merged.
	f.DropCaches()
	mem.unitsDone()
	stage(stageFinish)
	m := su.m
	stats.Replayed, stats.Resolved = m.Replays()
	stats.SkippedTypes = m.Imported()
	if stats.Funcs, stats.DroppedFuncs, err = m.Funcs(); err != nil {
		return nil, err
	}
	// What Finish does not need is dropped before it builds the output:
	// the symbol tables and the encoder, the page cache.
	mem.budget.Add(-su.syms.BytesSize())
	su.syms, su.enc = nil, nil
	ef.DropCache()
	return m.Finish(ef.Order)
}

// setup is what the workers and the merger need before their first unit:
// the symbol table, the encoder, the merger. ready is closed once they
// (or err) are set.
type setup struct {
	ready chan struct{}
	syms  *encode.Symbols
	enc   *encode.Encoder
	m     *merge.Merger
	err   error
}

func (su *setup) run(f *dwarfread.File, opts EncodeOptions, mem *memPlan) {
	defer close(su.ready)
	ef := f.ELF()
	feat := opts.Features
	syms, err := encode.ReadSymbolsWith(ef, func(shndx uint32) bool {
		return shndx < uint32(len(ef.Sections)) && encode.VarIncluded(ef.Sections[shndx].Name, feat)
	}, encode.SymbolOptions{NamesWhole: mem.symNamesWhole(), IndexMax: mem.funcIndexMax()})
	if err != nil {
		su.err = err
		return
	}
	if feat.Has(encode.FeatDeclTagKfuncs) {
		if err := encode.MarkKfuncs(ef, syms); err != nil {
			su.err = err
			return
		}
	}
	enc, err := encode.New(f, syms, encode.Config{Features: feat, Verbose: opts.Verbose, NameCacheBits: mem.nameCacheBits(f)})
	if err != nil {
		su.err = err
		return
	}
	secNames := make([]string, len(ef.Sections))
	for i := range ef.Sections {
		secNames[i] = ef.Sections[i].Name
	}
	m, err := merge.New(merge.Config{Features: feat, Syms: syms,
		SectionNames: secNames, Base: opts.Base, Budget: mem.budget, Limit: mem.limit, ColdAt: mem.coldAt(),
		NoDedup: opts.noDedup, FuncsAside: opts.Jobs > 1 && (mem.limit <= 0 || mem.limit >= resolveMinLimit)})
	if err != nil {
		su.err = err
		return
	}
	mem.budget.Add(syms.BytesSize())
	su.syms, su.enc, su.m = syms, enc, m
}

// progressReport turns units seen into EncodeOptions.Progress calls. A
// unit's position among the unit headers counts those the language filter
// skipped before it too.
type progressReport struct {
	fn     func(Progress)
	starts []uint64
	p      Progress
}

func newProgress(f *dwarfread.File, fn func(Progress)) *progressReport {
	r := &progressReport{fn: fn}
	if fn == nil {
		return r
	}
	r.starts, _ = f.UnitStarts() // a bad header fails the run elsewhere
	r.p.TotalUnits = len(r.starts)
	if info := f.Info(); info != nil && !info.Compressed() {
		r.p.Total = int64(info.Size)
	}
	return r
}

// unit reports the unit at offset off of length n done.
func (r *progressReport) unit(off, n uint64) {
	if r.fn == nil {
		return
	}
	i, _ := slices.BinarySearch(r.starts, off)
	r.p.Units = max(r.p.Units+1, i+1)
	if r.p.TotalUnits > 0 {
		r.p.Units = min(r.p.Units, r.p.TotalUnits)
	}
	r.p.Read = int64(off + n)
	r.fn(r.p)
}

func (r *progressReport) done() {
	if r.fn == nil {
		return
	}
	r.p.Units = max(r.p.Units, r.p.TotalUnits)
	r.p.Read = max(r.p.Read, r.p.Total)
	r.fn(r.p)
}
