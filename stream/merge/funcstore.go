package merge

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/spill"
	"github.com/btfstream/btfstream/stream/encode"
)

// funcKey places a saved function state: its ELF function and its record
// in the store (records are in save order). Size: 8 bytes.
type funcKey struct {
	elf uint32
	rec spill.RecordID
}

// funcStore keeps the saved function states of finished units as compact
// records (ids and string offsets, uvarint-packed) in a spill.Store, which
// moves them to a zstd temp file when the budget is over: nothing reads
// them before the last unit, so they are the first to go (the merger
// registers the store as the budget's coldest Spiller). emitFuncs reads
// them back in windows of ELF names whose records fit about window bytes,
// each window read in record order, so a spilled store is read
// sequentially. In memory stays one 8-byte key per state.
type funcStore struct {
	st      *spill.Store
	budget  *spill.Budget
	keys    []funcKey
	keysAcc int64 // bytes of keys accounted
	bytes   int64 // record bytes in all
	sorted  bool  // keys are sorted by ELF name (sortKeys)
	window  int64
	buf     []byte
}

// newFuncStore returns a store accounted against budget, spilling where
// the budget's spill files go; limit (0: none) sizes the windows read
// back.
func newFuncStore(budget *spill.Budget, limit int64) *funcStore {
	// A window's states are decoded at once (about 3x their record
	// bytes), at the peak of the run (the table grows through the merge):
	// under a limit, a 256th of it, 128 KiB at 32M. Each window reads the
	// chunks it needs once, in order; more windows cost milliseconds.
	w := int64(1 << 62)
	if limit > 0 {
		w = max(limit/256, 64<<10)
	}
	return &funcStore{st: spill.NewStore("function states", budget).Sequential(), budget: budget, window: w}
}

// close releases the store's memory and spill file; the keys go too.
func (s *funcStore) close() {
	if s == nil || s.st == nil {
		return
	}
	s.budget.RemoveSpiller(s.st)
	s.st.Close()
	s.st = nil
	s.keys = nil
	s.budget.Add(-s.keysAcc)
	s.keysAcc = 0
}

// put appends one state (its ids already table ids).
func (s *funcStore) put(st *encode.FuncState) error {
	b := s.buf[:0]
	b = append(b, byte(st.Flags))
	b = binary.AppendUvarint(b, uint64(st.TrueSym))
	b = binary.AppendUvarint(b, uint64(st.Ret))
	b = binary.AppendUvarint(b, uint64(len(st.Params)))
	for _, p := range st.Params {
		b = binary.AppendUvarint(b, uint64(p.Name))
		b = binary.AppendUvarint(b, uint64(p.Type))
	}
	b = binary.AppendUvarint(b, uint64(len(st.Annots)))
	for _, a := range st.Annots {
		b = binary.AppendUvarint(b, uint64(a.Value))
		b = binary.AppendVarint(b, int64(a.Comp))
	}
	s.buf = b
	id, err := s.st.Append(b)
	if err != nil {
		return err
	}
	s.keys = append(s.keys, funcKey{elf: st.Elf, rec: id})
	s.sorted = false
	s.bytes += int64(len(b))
	if a := 8 * int64(cap(s.keys)); a != s.keysAcc {
		s.budget.Add(a - s.keysAcc)
		s.keysAcc = a
	}
	return nil
}

// get decodes record k into st, reusing its slices.
func (s *funcStore) get(k funcKey, st *encode.FuncState) error {
	b, err := s.st.Get(k.rec)
	if err != nil {
		return err
	}
	bad := false
	u := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	if len(b) == 0 {
		return fmt.Errorf("function state record %d empty", k.rec)
	}
	fl := b[0]
	b = b[1:]
	*st = encode.FuncState{Elf: k.elf, Seq: uint32(k.rec), Params: st.Params[:0], Annots: st.Annots[:0],
		Flags: encode.FuncFlags(fl)}
	st.TrueSym = uint16(u())
	st.Ret = btf.TypeID(u())
	np := u()
	for i := uint64(0); i < np && !bad; i++ {
		st.Params = append(st.Params, encode.FuncParam{Name: btf.StrOff(u()), Type: btf.TypeID(u())})
	}
	na := u()
	for i := uint64(0); i < na && !bad; i++ {
		v := btf.StrOff(u())
		c, n := binary.Varint(b)
		if n <= 0 {
			bad = true
			break
		}
		b = b[n:]
		st.Annots = append(st.Annots, encode.FuncAnnot{Value: v, Comp: int32(c)})
	}
	if bad {
		return fmt.Errorf("function state record %d corrupt", k.rec)
	}
	return nil
}

// windows calls fn with successive runs of the keys sorted by ELF name
// (stable: save order within a name), each run ending at a name boundary
// and holding about window record bytes at most (records counted at the
// average size; or one name), the states decoded in the same order.
// sortKeys sorts the keys by ELF name (stable: save order within a
// name) and returns how many names there are.
func (s *funcStore) sortKeys() int {
	if !s.sorted {
		slices.SortStableFunc(s.keys, func(a, b funcKey) int { return int(a.elf) - int(b.elf) })
		s.sorted = true
	}
	n := 0
	for i := range s.keys {
		if i == 0 || s.keys[i].elf != s.keys[i-1].elf {
			n++
		}
	}
	return n
}

func (s *funcStore) windows(fn func(states []encode.FuncState) error) error {
	// The merge that reads them grows the table: under pressure, the
	// chunks still in memory go first (each is read back once per
	// window that needs it).
	if s.budget.Over() {
		if err := s.st.SpillAll(); err != nil {
			return err
		}
	}
	s.sortKeys()
	keys := s.keys
	avg := int64(0)
	if len(keys) > 0 {
		avg = s.bytes / int64(len(keys))
	}
	var states []encode.FuncState
	var order []int
	for i := 0; i < len(keys); {
		j, sum := i, int64(0)
		for j < len(keys) {
			k := j + 1
			for k < len(keys) && keys[k].elf == keys[j].elf {
				k++
			}
			n := int64(k-j) * (avg + 64)
			if j > i && sum+n > s.window {
				break
			}
			sum += n
			j = k
		}
		win := keys[i:j]
		// Read in record order (sequential in the store), place in key order.
		order = order[:0]
		for x := range win {
			order = append(order, x)
		}
		slices.SortFunc(order, func(a, b int) int { return int(win[a].rec) - int(win[b].rec) })
		if cap(states) < len(win) {
			states = make([]encode.FuncState, len(win))
		}
		states = states[:len(win)]
		for _, x := range order {
			if err := s.get(win[x], &states[x]); err != nil {
				return err
			}
		}
		if err := fn(states); err != nil {
			return err
		}
		i = j
	}
	s.keys = nil
	return nil
}
