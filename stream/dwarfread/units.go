package dwarfread

import (
	"debug/dwarf"
	"errors"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream/elffile"
)

// UnitOptions configure Units.
type UnitOptions struct {
	// Jobs is the number of goroutines decoding units. Units are still
	// delivered one at a time, in file order, whatever Jobs is. 0 or 1
	// decodes on the consumer's goroutine.
	Jobs int
	// LangExclude lists DW_LANG names ("rust", "c_plus_plus", ...) whose
	// units are skipped. A unit's language is read from its unit DIE
	// before the rest of the unit is read or decoded (or, if the unit DIE
	// does not fit in the first bytes read, once the unit is decoded).
	LangExclude []string
	// Skipped, when set, receives the number of units LangExclude
	// skipped, once the iteration ends.
	Skipped *int
	// NoTypeUnits skips the .debug_types sections (DWARF 4 type units).
	// DW_UT_type units inside .debug_info are always delivered.
	NoTypeUnits bool
	// Budget, when set, accounts each unit's arena: the producer reserves
	// an estimate (ArenaEstimate of the unit length) before reading the
	// body, so with Jobs > 1 it blocks instead of piling units up; the
	// reservation becomes the arena's real footprint once decoded and is
	// returned by cu.Release.
	Budget *spill.Budget
}

// ArenaEstimate is the memory a unit of n bytes of .debug_info takes once
// decoded: its bytes, about one 24-byte Tag per 10 bytes and one 8-byte
// value per 3 bytes (measured on vmlinux and modules: 4.2x to 4.8x).
func ArenaEstimate(n uint64) int64 { return int64(5 * n) }

// Units iterates over the units of .debug_info, then of each .debug_types
// section, in file order. Each *CU must be released with cu.Release()
// once the consumer is done with it; a CU is never reused before that.
// On error the iteration yields (nil, err) once and stops. Breaking out of
// the loop stops the decoding goroutines and frees their units. When the
// iteration ends, the idle arenas are dropped.
//
//	for cu, err := range f.Units(stream.UnitOptions{Jobs: 2}) {
//		if err != nil { return err }
//		for d := range cu.Root().Children() { ... }
//		cu.Release()
//	}
func (f *File) Units(opts UnitOptions) iter.Seq2[*CU, error] {
	return func(yield func(*CU, error) bool) {
		excl, err := parseLangs(opts.LangExclude)
		if err != nil {
			yield(nil, err)
			return
		}
		if f.info == nil {
			yield(nil, &elffile.Error{File: f.name, Err: ErrNoDWARF})
			return
		}
		secs := []*elffile.SectionHeader{f.info}
		if !opts.NoTypeUnits {
			secs = append(secs, f.types...)
		}
		p := &producer{f: f, secs: secs, excl: excl, budget: opts.Budget}
		defer p.close()
		if opts.Skipped != nil {
			defer func() { *opts.Skipped = int(p.skipped.Load()) }()
		}
		defer f.pool.Drain() // idle arenas of the last units
		jobs := opts.Jobs
		f.pool.Max = max(jobs, 1) + 2
		if jobs <= 1 {
			for {
				cu, err := p.next()
				if err == nil && cu == nil {
					return
				}
				if err == nil {
					err = cu.decodeRest()
				}
				if err == nil {
					cu.account()
				}
				if err != nil {
					if cu != nil {
						cu.Release()
					}
					yield(nil, elffile.WithFile(f.name, err))
					return
				}
				if p.excludedLate(cu) {
					continue
				}
				if !yield(cu, nil) {
					return
				}
			}
		}
		f.parallel(p, jobs, yield)
	}
}

type job struct {
	cu   *CU
	err  error
	done chan struct{}
}

var errStopped = errors.New("stopped")

// parallel runs the producer on its own goroutine, decodes on jobs
// workers, and yields in file order through a queue of at most jobs units.
func (f *File) parallel(p *producer, jobs int, yield func(*CU, error) bool) {
	queue := make(chan *job, jobs)
	work := make(chan *job)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(queue)
		defer close(work)
		for {
			cu, err := p.next()
			if err == nil && cu == nil {
				return
			}
			j := &job{cu: cu, err: err, done: make(chan struct{})}
			if err != nil {
				close(j.done)
			}
			select {
			case queue <- j:
			case <-stop:
				if cu != nil {
					cu.Release()
				}
				return
			}
			if err != nil {
				return
			}
			select {
			case work <- j:
			case <-stop:
				j.err = errStopped
				close(j.done)
				return
			}
		}
	}()
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				j.err = j.cu.decodeRest()
				if j.err == nil {
					j.cu.account()
				}
				close(j.done)
			}
		}()
	}
	defer func() {
		close(stop)
		for j := range queue {
			<-j.done
			if j.cu != nil {
				j.cu.Release()
			}
		}
		wg.Wait()
	}()
	for j := range queue {
		<-j.done
		if j.err != nil {
			if j.cu != nil {
				j.cu.Release()
			}
			yield(nil, elffile.WithFile(f.name, j.err))
			return
		}
		if p.excludedLate(j.cu) {
			continue
		}
		if !yield(j.cu, nil) {
			return
		}
	}
}

// producer reads units in order: header, abbreviation table, unit DIE
// (language filter), then the body.
type producer struct {
	f    *File
	secs []*elffile.SectionHeader
	excl langSet
	// skipped counts the units excl skipped (bumped by the producer and,
	// for units whose language is known only once decoded, the consumer).
	skipped atomic.Int64
	cur     *unitReader
	budget  *spill.Budget
	i       int

	scratch []byte // abbreviation read buffer
}

func (p *producer) close() {
	if p.cur != nil {
		p.cur.close()
		p.cur = nil
	}
}

// next returns the next unit to decode with its bytes read and its unit DIE
// decoded, or nil at the end.
func (p *producer) next() (*CU, error) {
	f := p.f
	for {
		if p.cur == nil {
			if p.i >= len(p.secs) {
				return nil, nil
			}
			s := p.secs[p.i]
			ur, err := f.newUnitReader(s, s.Name == ".debug_types" || s.Name == ".zdebug_types")
			if err != nil {
				return nil, err
			}
			p.cur = ur
			p.i++
		}
		u := p.cur
		a := f.pool.Get()
		h, have, done, err := u.head(a)
		if err != nil || done {
			f.pool.Put(a)
			p.close()
			if err != nil {
				return nil, err
			}
			continue
		}
		cu := &CU{f: f, arena: a, hdr: h, order: f.elf.Order, secName: u.sec.Name}
		if p.budget != nil {
			cu.budget, cu.reserved = p.budget, ArenaEstimate(h.total)
			p.budget.Acquire(cu.reserved)
		}
		if cu.table, err = f.abbrevs(cu.key(), &p.scratch); err != nil {
			cu.Release()
			return nil, err
		}
		// Peek at the unit DIE in the bytes read so far.
		peeked := cu.decodeDIEs(h.hdrSize, true) == nil && len(a.Tags) == 1
		if !peeked {
			a.Tags, a.Vals = a.Tags[:0], a.Vals[:0]
			cu.next = h.hdrSize
		} else {
			cu.unitAttrs()
			if len(p.excl) > 0 && p.excl.has(cu.lang) {
				p.skipped.Add(1)
				err := u.skipUnit(&h, have)
				cu.Release()
				if err != nil {
					return nil, err
				}
				continue
			}
		}
		if err := u.body(a, &h, have); err != nil {
			cu.Release()
			return nil, err
		}
		return cu, nil
	}
}

// excludedLate releases and counts a decoded unit whose language, not known
// when it was read, is excluded.
func (p *producer) excludedLate(cu *CU) bool {
	if len(p.excl) == 0 || !p.excl.has(cu.lang) {
		return false
	}
	cu.Release()
	p.skipped.Add(1)
	return true
}

// account turns the unit's reservation into its arena's footprint.
func (cu *CU) account() {
	if cu.budget != nil {
		fp := int64(cu.arena.Footprint())
		cu.budget.Resize(fp - cu.reserved)
		cu.reserved = fp
	}
}

// decodeRest decodes the DIEs after the unit DIE (or all of them if the
// peek could not run).
func (cu *CU) decodeRest() error {
	hadRoot := len(cu.arena.Tags) == 1
	if err := cu.decodeDIEs(cu.next, false); err != nil {
		return err
	}
	if len(cu.arena.Tags) == 0 {
		return formatErr(cu.secName, cu.hdr.off, "unit has no DIEs")
	}
	if !hadRoot {
		cu.unitAttrs()
	}
	return nil
}

// unitAttrs reads the unit DIE's language and section bases.
func (cu *CU) unitAttrs() {
	r := cu.Root()
	if v, ok := r.AttrUint(dwarf.AttrLanguage); ok {
		cu.lang = uint16(v)
	}
	cu.strOffsetsBase, _ = r.AttrUint(dwarf.AttrStrOffsetsBase)
	cu.addrBase, _ = r.AttrUint(dwarf.AttrAddrBase)
	cu.rnglistsBase, _ = r.AttrUint(dwarf.AttrRnglistsBase)
	cu.loclistsBase, _ = r.AttrUint(dwarf.AttrLoclistsBase)
}
