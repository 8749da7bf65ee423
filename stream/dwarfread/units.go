package dwarfread

import (
	"debug/dwarf"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync/atomic"

	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream/elffile"
	"github.com/btfstream/btfstream/stream/internal/ordered"
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
// decoded: its bytes and the arrays decodeRest sizes for it at once, one
// 24-byte Tag per 12 bytes and one 8-byte value per 8/3 bytes, 6x in all
// (larger units need less: the 6.12 vmlinux's largest, 877 KB, decodes to
// 70k DIEs and 269k values, 5.4x). A small unit (arenaSize) is given 6.8x;
// it is left at 6x, the plan's floors unchanged: such a unit used to
// outgrow 6x and reach 7x by appends, and account resizes the reservation
// to the arena's footprint once the unit is decoded.
func ArenaEstimate(n uint64) int64 { return int64(6 * n) }

// Arena sizing per byte of a unit, from the 6.12 cloud vmlinux's 2401
// units: DIEs 0.080 (largest unit) to 0.089 (median), values 0.31 to 0.40.
// The large units, those a memory limit is about, fit without growing.
const (
	arenaBytesPerTag = 12
	arenaValsPer8    = 3 // values per 8 bytes
)

// Small units, a module's (7.2, GCC 16: tcp_bbr's 183 KB unit has 16.3k
// DIEs and 72.9k values, sch_multiq's 147 KB 13.4k and 58.9k, the 48 KB
// .mod.c unit 4.5k and 20.3k), are denser: 10.7-11.2 bytes a DIE, 0.40-0.43
// values a byte. Sized as the large ones they outgrew both arrays, which
// then grew by appends to 1.25x, the first copy left as garbage (sch_multiq:
// 0.7 MB allocated for 0.47 MB of values).
const (
	smallUnit              = 256 << 10
	smallUnitBytesPer2Tags = 21 // 2 DIEs per 21 bytes
	smallUnitValsPer16     = 7  // values per 16 bytes
)

// arenaSize returns how many DIEs and values decodeRest makes room for in
// a unit of n bytes.
func arenaSize(n int) (tags, vals int) {
	if n <= smallUnit {
		return 2 * n / smallUnitBytesPer2Tags, n * smallUnitValsPer16 / 16
	}
	return n / arenaBytesPerTag, n * arenaValsPer8 / 8
}

// UnitReader reads the units of .debug_info, then of each .debug_types
// section, in file order: for each, the header, the abbreviation table,
// the unit DIE (for the language filter) and the bytes of the rest, which
// Decode turns into DIEs. It is the producer end of a pipeline: Next must
// be called from one goroutine at a time, but the CUs it returns may be
// decoded, used and released on any goroutine.
type UnitReader struct {
	p     *producer
	errAt bool // Next returned an error: the reader is done
}

// NewUnitReader starts reading f's units. Close it when done.
func (f *File) NewUnitReader(opts UnitOptions) (*UnitReader, error) {
	excl, err := parseLangs(opts.LangExclude)
	if err != nil {
		return nil, err
	}
	if f.info == nil {
		return nil, &elffile.Error{File: f.name, Err: ErrNoDWARF}
	}
	secs := []*elffile.SectionHeader{f.info}
	if !opts.NoTypeUnits {
		secs = append(secs, f.types...)
	}
	f.pool.Max = max(opts.Jobs, 1) + 2
	return &UnitReader{p: &producer{f: f, secs: secs, excl: excl, budget: opts.Budget}}, nil
}

// Next returns the next unit with its bytes read and its unit DIE decoded
// (if it fit the first bytes read), or nil at the end. Units whose
// language is excluded are skipped. After an error, Next returns nil.
func (r *UnitReader) Next() (*CU, error) {
	if r.errAt {
		return nil, nil
	}
	cu, err := r.p.next()
	if err != nil {
		r.errAt = true
		r.p.close()
		return nil, elffile.WithFile(r.p.f.name, err)
	}
	return cu, nil
}

// Excluded reports whether a decoded unit's language, not known when Next
// read it, is excluded; if so it releases and counts it. Safe to call from
// any goroutine.
func (r *UnitReader) Excluded(cu *CU) bool { return r.p.excludedLate(cu) }

// Skipped returns how many units the language filter skipped so far.
func (r *UnitReader) Skipped() int { return int(r.p.skipped.Load()) }

// Close stops reading and drops the idle arenas.
func (r *UnitReader) Close() {
	r.p.close()
	r.p.f.pool.Drain()
}

// Decode decodes the DIEs after the unit DIE (or all of them if Next could
// not peek at it), and turns the unit's budget reservation into its
// arena's footprint. Errors name the file.
func (cu *CU) Decode() error {
	err := cu.decodeRest()
	if err == nil {
		cu.account()
	}
	return elffile.WithFile(cu.f.name, err)
}

// Units iterates over the units of .debug_info, then of each .debug_types
// section, in file order. Each *CU must be released with cu.Release()
// once the consumer is done with it; a CU is never reused before that.
// On error the iteration yields (nil, err) once and stops. Breaking out of
// the loop stops the decoding goroutines and frees their units. When the
// iteration ends, the idle arenas are dropped.
//
//	for cu, err := range f.Units(dwarfread.UnitOptions{Jobs: 2}) {
//		if err != nil { return err }
//		for d := range cu.Root().Children() { ... }
//		cu.Release()
//	}
func (f *File) Units(opts UnitOptions) iter.Seq2[*CU, error] {
	return func(yield func(*CU, error) bool) {
		r, err := f.NewUnitReader(opts)
		if err != nil {
			yield(nil, err)
			return
		}
		defer r.Close()
		if opts.Skipped != nil {
			defer func() { *opts.Skipped = r.Skipped() }()
		}
		type job struct {
			cu  *CU
			err error
		}
		ordered.Run(opts.Jobs, func() (*job, bool) {
			cu, err := r.Next()
			return &job{cu, err}, cu != nil || err != nil
		}, func(_ int, j *job) {
			if j.err == nil {
				j.err = j.cu.Decode()
			}
		}, func(j *job) bool {
			if j.err != nil {
				if j.cu != nil {
					j.cu.Release()
				}
				yield(nil, j.err)
				return false
			}
			if r.Excluded(j.cu) {
				return true
			}
			return yield(j.cu, nil)
		}, func(j *job) {
			if j.cu != nil {
				j.cu.Release()
			}
		})
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
		if u.ra != nil && u.rl == nil && have < h.total {
			// An uncompressed, unrelocated unit: its body is read by
			// Decode, on the decoding goroutine, not here.
			cu.body = &lazyBody{r: u.ra, sec: u.sec.Name, off: u.off, have: have}
			u.off += h.total
			return cu, nil
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

// lazyBody is the rest of a unit still to be read: bytes [have, total) of
// the unit at section offset off.
type lazyBody struct {
	r    io.ReaderAt
	sec  string
	off  uint64
	have uint64
}

// readBody reads the unit's bytes that Next left to the decoder.
func (cu *CU) readBody() error {
	b := cu.body
	cu.body = nil
	a := cu.arena
	a.Bytes = growBytes(a.Bytes, b.have, cu.hdr.total) // bounded by the section size, checked in head
	if _, err := b.r.ReadAt(a.Bytes[b.have:cu.hdr.total], int64(b.off+b.have)); err != nil {
		return &elffile.Error{Section: b.sec, Offset: b.off + b.have, Msg: fmt.Sprintf("read: %v", err), Err: elffile.ErrFormat}
	}
	return nil
}

// decodeRest decodes the DIEs after the unit DIE (or all of them if the
// peek could not run), reading the unit's body first if Next left it.
func (cu *CU) decodeRest() error {
	if cu.body != nil {
		if err := cu.readBody(); err != nil {
			return err
		}
	}
	hadRoot := len(cu.arena.Tags) == 1
	// Size the arena for the whole unit at once: grown by appends, a
	// large unit's arrays would be copied step by step, each step holding
	// the old and the new (the largest arena is the biggest single thing
	// a memory limit must hold).
	tags, vals := arenaSize(len(cu.arena.Bytes))
	if k := tags - len(cu.arena.Tags); k > 0 {
		cu.arena.Tags = slices.Grow(cu.arena.Tags, k)
	}
	if k := vals - len(cu.arena.Vals); k > 0 {
		cu.arena.Vals = slices.Grow(cu.arena.Vals, k)
	}
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
