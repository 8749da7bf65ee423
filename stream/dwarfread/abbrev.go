package dwarfread

import (
	"debug/dwarf"
	"fmt"
	"sync"

	"github.com/btfstream/btfstream/stream/elffile"
)

// attrSpec is one (attribute, form) pair of an abbreviation.
//
// Size: 16 bytes (uint16, uint16, 3 uint8, 1 pad, int64), checked by TestSizes.
type attrSpec struct {
	at   uint16 // DW_AT_*
	form uint16 // DW_FORM_*
	op   uint8  // decode operation, see ops below
	// size and ref serve decodeFixedLE: the value's byte size (0 to 8)
	// and 1 for a unit-relative reference.
	size uint8
	ref  uint8
	// implicit is DW_FORM_implicit_const's value, and 1 for
	// DW_FORM_flag_present: the value stored for either.
	implicit int64
}

// abbrevDecl is one abbreviation.
//
// Size: 16 bytes, checked by TestSizes.
type abbrevDecl struct {
	tag      uint16 // DW_TAG_*
	children uint8  // DW_CHILDREN_yes
	// loads: every attribute is fixed-size and at most 8 bytes: with
	// fixed != ^0, decodeFixedLE can decode the DIE.
	loads uint8
	first uint32 // index of the first spec in abbrevTable.specs
	n     uint32 // number of specs
	fixed uint32 // byte size of the attributes if all fixed-size, else ^0
}

// abbrevTable is the parsed abbreviation table at one .debug_abbrev offset,
// for one unit format (address size, offset size): fixed sizes depend on it.
// Tables are immutable once parsed and shared by every unit that uses them.
type abbrevTable struct {
	decls []abbrevDecl
	specs []attrSpec
	// hot holds, for each decl, hotAttrs entries: where each of the
	// attributes the encoder asks for (hotSlot) sits among the decl's
	// specs (the low byte, see hotAbsent) and its form (form<<8), so
	// DIE.Attr finds them without scanning or reading the specs.
	hot    []uint32
	dense  bool              // decls[code-1] is the decl for code
	sparse map[uint64]uint32 // code → index in decls when codes are not sequential
}

func (t *abbrevTable) lookup(code uint64) (*abbrevDecl, uint32, bool) {
	if t.dense {
		if code-1 < uint64(len(t.decls)) {
			return &t.decls[code-1], uint32(code - 1), true
		}
		return nil, 0, false
	}
	i, ok := t.sparse[code]
	if !ok {
		return nil, 0, false
	}
	return &t.decls[i], i, true
}

type abbrevKey struct {
	off      uint64
	addrSize uint8
	is64     bool
	version  uint16
}

// abbrevCache keeps recently parsed tables, bounded in count.
type abbrevCache struct {
	mu    sync.Mutex
	max   int
	m     map[abbrevKey]*abbrevTable
	order []abbrevKey
}

func (c *abbrevCache) get(k abbrevKey) *abbrevTable {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

// drop empties the cache.
func (c *abbrevCache) drop() {
	c.mu.Lock()
	c.m, c.order = nil, nil
	c.mu.Unlock()
}

func (c *abbrevCache) put(k abbrevKey, t *abbrevTable) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[abbrevKey]*abbrevTable)
	}
	if _, ok := c.m[k]; ok {
		return
	}
	if len(c.order) >= max(c.max, 1) {
		delete(c.m, c.order[0])
		c.order = append(c.order[:0], c.order[1:]...)
	}
	c.m[k] = t
	c.order = append(c.order, k)
}

// parseAbbrev parses the table at off. data holds the abbrev section bytes
// from off on (possibly truncated; then ok is false and the caller retries
// with more).
func parseAbbrev(data []byte, off uint64, k abbrevKey, complete bool) (t *abbrevTable, ok bool, err error) {
	b := makeBuf(".debug_abbrev", off, nil, data)
	t = &abbrevTable{dense: true}
	for {
		if b.remaining() == 0 {
			if complete {
				return nil, false, formatErr(".debug_abbrev", b.off(), "unterminated abbreviation table")
			}
			return nil, false, nil
		}
		start := b.off()
		code := b.uleb()
		if b.err != nil {
			if complete {
				return nil, false, b.err
			}
			return nil, false, nil
		}
		if code == 0 {
			break
		}
		tag := b.uleb()
		children := b.u8()
		d := abbrevDecl{tag: uint16(tag), children: children, first: uint32(len(t.specs))}
		if tag > 0xffff {
			return nil, false, formatErr(".debug_abbrev", start, "tag %#x out of range", tag)
		}
		fixed := uint32(0)
		d.loads = 1
		for {
			at := b.uleb()
			form := b.uleb()
			if b.err != nil {
				break
			}
			if at == 0 && form == 0 {
				break
			}
			if at > 0xffff {
				return nil, false, formatErr(".debug_abbrev", start, "attribute %#x out of range", at)
			}
			if form > 0xffff {
				form = 0xffff // unknown either way
			}
			sp := attrSpec{at: uint16(at), form: uint16(form)}
			if form == formImplicitConst {
				sp.implicit = b.sleb()
			}
			// An unknown form is reported when a DIE uses it, at
			// its .debug_info offset (opInvalid), as debug/dwarf does.
			op, size := formOp(uint16(form), k)
			sp.op = op
			switch op {
			case opU1, opU2, opU3, opU4, opU8:
				sp.size = size
			case opRef1, opRef2, opRef4, opRef8:
				sp.size, sp.ref = size, 1
			case opPresent:
				sp.implicit = 1
			case opImplicit:
			default:
				d.loads = 0
			}
			if size == 0 && op != opPresent && op != opImplicit || op == opInvalid || fixed == ^uint32(0) {
				fixed = ^uint32(0)
			} else {
				fixed += uint32(size)
			}
			t.specs = append(t.specs, sp)
		}
		if b.err != nil {
			if complete {
				return nil, false, b.err
			}
			return nil, false, nil
		}
		d.n = uint32(len(t.specs)) - d.first
		d.fixed = fixed
		if t.dense && code != uint64(len(t.decls))+1 {
			t.dense = false
			t.sparse = make(map[uint64]uint32, len(t.decls)+1)
			for i := range t.decls {
				t.sparse[uint64(i)+1] = uint32(i)
			}
		}
		if !t.dense {
			if _, dup := t.sparse[code]; dup {
				return nil, false, formatErr(".debug_abbrev", start, "duplicate abbreviation code %d", code)
			}
			t.sparse[code] = uint32(len(t.decls))
		}
		t.decls = append(t.decls, d)
	}
	t.indexHot()
	return t, true, nil
}

// The attributes DIE.Attr finds through abbrevTable.hot: the ones the
// encoder reads for nearly every DIE. hotSlot maps an attribute below
// len(hotSlot) to its slot, -1 for the others.
var hotSlot = func() (m [0x90]int8) {
	for i := range m {
		m[i] = -1
	}
	for k, at := range [...]dwarf.Attr{
		dwarf.AttrName, dwarf.AttrType, dwarf.AttrByteSize, dwarf.AttrAbstractOrigin,
		dwarf.AttrConstValue, dwarf.AttrDeclaration, dwarf.AttrLocation, dwarf.AttrDataBitOffset,
		dwarf.AttrUpperBound, dwarf.AttrSpecification, dwarf.AttrInline, dwarf.AttrEncoding,
		dwarf.AttrDataMemberLoc, dwarf.AttrLowpc, dwarf.AttrExternal, dwarf.AttrCount,
		dwarf.AttrBitSize, dwarf.AttrBitOffset, dwarf.AttrCalling, dwarf.AttrArtificial,
	} {
		m[at] = int8(k)
	}
	return m
}()

// hotAttrs is the number of slots per decl in abbrevTable.hot.
const hotAttrs = 20

// Values of a hot entry's low byte: the spec's position plus one, or these.
const (
	hotAbsent = 0    // the decl has no such attribute
	hotScan   = 0xff // its position does not fit: scan the specs
)

// indexHot fills t.hot from the parsed decls: the first spec of each hot
// attribute, as a scan would find it.
func (t *abbrevTable) indexHot() {
	t.hot = make([]uint32, len(t.decls)*hotAttrs)
	for di := range t.decls {
		d := &t.decls[di]
		row := t.hot[di*hotAttrs : (di+1)*hotAttrs]
		for i := d.n; i > 0; i-- { // backwards: the first of duplicates wins
			at, form := t.specs[d.first+i-1].at, t.specs[d.first+i-1].form
			if int(at) >= len(hotSlot) || hotSlot[at] < 0 {
				continue
			}
			if i >= hotScan {
				row[hotSlot[at]] = hotScan
			} else {
				row[hotSlot[at]] = uint32(form)<<8 | i
			}
		}
	}
}

// abbrevs returns the table at off for a unit of format k, parsing it on
// first use. scratch is the caller's reusable read buffer.
func (f *File) abbrevs(k abbrevKey, scratch *[]byte) (*abbrevTable, error) {
	if t := f.abbrevCache.get(k); t != nil {
		return t, nil
	}
	r, err := f.sec(secAbbrev)
	if err != nil {
		return nil, err
	}
	if k.off >= r.Size() {
		return nil, formatErr(".debug_abbrev", k.off, "abbreviation offset beyond the section (size %#x)", r.Size())
	}
	for n := uint64(16 << 10); ; n *= 4 {
		data, err := r.Window(k.off, n, *scratch)
		if err != nil {
			return nil, &elffile.Error{Section: ".debug_abbrev", Offset: k.off, Msg: fmt.Sprintf("read: %v", err), Err: elffile.ErrFormat}
		}
		complete := k.off+uint64(len(data)) >= r.Size()
		t, ok, err := parseAbbrev(data, k.off, k, complete)
		if err != nil {
			return nil, err
		}
		if !r.InMemory() {
			*scratch = data[:cap(data)]
		}
		if ok {
			f.abbrevCache.put(k, t)
			return t, nil
		}
	}
}
