package spill

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// ChunkSize is the uncompressed size a chunk is closed at (a record larger
// than this gets a chunk of its own).
const ChunkSize = 256 << 10

// RecordID names a record of a Store: the order it was appended in.
type RecordID uint32

// recordLoc places a record: its chunk and its offset in the chunk.
// Size: 8 bytes.
type recordLoc struct {
	chunk uint32
	off   uint32
}

// chunk is a closed or open run of records. Size: 32 bytes on 64-bit hosts.
type chunk struct {
	data    []byte // in memory, or nil once spilled
	fileOff int64  // where its zstd frame starts in the spill file
	zlen    uint32 // compressed length
	ulen    uint32 // uncompressed length
}

// Store is an append-only table of byte records that spills to a
// zstd-compressed temp file while its Budget is over the limit.
//
// Records are appended into chunks of about ChunkSize bytes. When a chunk
// is closed and the budget is over, it is compressed and written out, and
// its memory released; SpillCold does the same to every closed chunk
// still in memory. Get reads a spilled chunk back through a cache whose
// size is a small fixed share of the budget. The spill file is made by
// the budget's TempFunc (SetTempFiles). A Store is safe for concurrent
// use, though callers normally append from one goroutine.
type Store struct {
	mu      sync.Mutex
	budget  *Budget
	dir     string // where the spill file is, for messages
	name    string // for messages
	f       *os.File
	fileEnd int64
	enc     *zstd.Encoder
	dec     *zstd.Decoder
	chunks  []chunk
	locs    []recordLoc
	locsAcc int64  // bytes of locs accounted
	cache   *Cache // spilled chunks read back, keyed by chunk number
	closed  bool

	// seq: reads go in record order, so only the chunk read last is
	// kept (lastN, last) instead of a cache.
	seq   bool
	lastN uint32
	last  []byte
}

// ErrClosed is returned by a Store used after Close.
var ErrClosed = errors.New("spill store closed")

// NewStore returns an empty Store accounted against budget, which spills
// into the budget's spill directory when the budget is over. name labels
// its errors.
func NewStore(name string, budget *Budget) *Store {
	return &Store{name: name, budget: budget}
}

// Sequential tells the store that its records are read back in order
// (the function states window by window, a table being rebuilt): a
// spilled chunk is then read once per pass and only the last one read is
// kept, instead of the bounded cache. Call it before the first Get.
func (s *Store) Sequential() *Store {
	s.mu.Lock()
	s.seq = true
	s.mu.Unlock()
	return s
}

// Len returns the number of records.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.locs)
}

// Append copies rec into the store and returns its id.
func (s *Store) Append(rec []byte) (RecordID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, ErrClosed
	}
	n := len(s.chunks)
	open := n > 0 && s.chunks[n-1].data != nil
	full := open && len(s.chunks[n-1].data) > 0 && len(s.chunks[n-1].data)+len(rec) > ChunkSize
	if !open || full {
		if full {
			if err := s.closeChunkLocked(n - 1); err != nil {
				return 0, err
			}
		}
		data := make([]byte, 0, max(min(ChunkSize, 4096), len(rec)))
		s.budget.Add(int64(cap(data)))
		s.chunks = append(s.chunks, chunk{data: data})
		n++
	}
	c := &s.chunks[n-1]
	before := cap(c.data)
	off := len(c.data)
	c.data = append(c.data, rec...)
	c.ulen = uint32(len(c.data))
	s.budget.Add(int64(cap(c.data) - before))
	s.locs = append(s.locs, recordLoc{chunk: uint32(n - 1), off: uint32(off)})
	if a := 8 * int64(cap(s.locs)); a != s.locsAcc {
		s.budget.Add(a - s.locsAcc)
		s.locsAcc = a
	}
	return RecordID(len(s.locs) - 1), nil
}

// closeChunkLocked spills chunk i if the budget is over.
func (s *Store) closeChunkLocked(i int) error {
	if !s.budget.Over() {
		return nil
	}
	return s.spillLocked(i)
}

// SpillCold writes every closed chunk still in memory out (the chunk
// being appended to stays) and returns the bytes released from the
// budget. It makes Store a Spiller.
func (s *Store) SpillCold() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, nil
	}
	var freed int64
	for i := 0; i < len(s.chunks)-1; i++ {
		if c := &s.chunks[i]; c.data != nil {
			n := int64(cap(c.data))
			if err := s.spillLocked(i); err != nil {
				return freed, err
			}
			freed += n
		}
	}
	return freed, nil
}

// SpillAll writes every in-memory chunk out (used when the caller knows the
// table will not be read for a while).
func (s *Store) SpillAll() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.chunks {
		if s.chunks[i].data != nil {
			if err := s.spillLocked(i); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Store) spillLocked(i int) error {
	c := &s.chunks[i]
	if c.data == nil || len(c.data) == 0 {
		return nil
	}
	if s.f == nil {
		// The file has no name (the budget's TempFunc): it vanishes
		// however the process ends.
		f, dir, err := s.budget.tempFile()
		s.dir = dir
		if err != nil {
			return fmt.Errorf("%s: spill file in %s: %w", s.name, dir, err)
		}
		s.f = f
		// A window of one chunk: the default (the whole input, up to 8
		// MiB of history) would cost more memory than a spill saves.
		s.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(ChunkSize))
		s.dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	}
	z := s.enc.EncodeAll(c.data, nil)
	if _, err := s.f.WriteAt(z, s.fileEnd); err != nil {
		return fmt.Errorf("%s: write spill file in %s at %#x: %w", s.name, s.dir, s.fileEnd, err)
	}
	s.budget.Release(int64(cap(c.data)))
	s.budget.NoteSpilled(int64(len(z)))
	c.fileOff, c.zlen, c.data = s.fileEnd, uint32(len(z)), nil
	s.fileEnd += int64(len(z))
	return nil
}

// Get returns record id's bytes. The slice must not be modified; it stays
// valid until the Store is closed.
func (s *Store) Get(id RecordID) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if int(id) >= len(s.locs) {
		return nil, fmt.Errorf("%s: record %d of %d", s.name, id, len(s.locs))
	}
	loc := s.locs[id]
	end := s.chunks[loc.chunk].ulen
	if int(id)+1 < len(s.locs) && s.locs[id+1].chunk == loc.chunk {
		end = s.locs[id+1].off
	}
	data, err := s.chunkDataLocked(loc.chunk)
	if err != nil {
		return nil, err
	}
	return data[loc.off:end:end], nil
}

func (s *Store) chunkDataLocked(i uint32) ([]byte, error) {
	c := &s.chunks[i]
	if c.data != nil {
		return c.data, nil
	}
	if s.seq {
		if s.last == nil || s.lastN != i {
			d, err := s.readChunkLocked(i)
			if err != nil {
				return nil, err
			}
			s.last, s.lastN = d, i
		}
		return s.last, nil
	}
	if s.cache == nil {
		maxCost := s.budget.Share(1.0/16, 16<<20)
		s.cache = NewCache(max(maxCost, 2*ChunkSize))
	}
	if d, ok := s.cache.Get(uint64(i)); ok {
		return d, nil
	}
	d, err := s.readChunkLocked(i)
	if err != nil {
		return nil, err
	}
	s.cache.Set(uint64(i), d)
	return d, nil
}

// readChunkLocked reads and decompresses spilled chunk i.
func (s *Store) readChunkLocked(i uint32) ([]byte, error) {
	c := &s.chunks[i]
	z := make([]byte, c.zlen)
	if _, err := s.f.ReadAt(z, c.fileOff); err != nil {
		return nil, fmt.Errorf("%s: read spill file at %#x: %w", s.name, c.fileOff, err)
	}
	d, err := s.dec.DecodeAll(z, make([]byte, 0, c.ulen))
	if err != nil || uint32(len(d)) != c.ulen {
		return nil, fmt.Errorf("%s: spill chunk %d at %#x corrupt: %v", s.name, i, c.fileOff, err)
	}
	return d, nil
}

// Close releases memory and the spill file.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for i := range s.chunks {
		if s.chunks[i].data != nil {
			s.budget.Release(int64(cap(s.chunks[i].data)))
			s.chunks[i].data = nil
		}
	}
	s.chunks, s.locs, s.last = nil, nil, nil
	s.budget.Add(-s.locsAcc)
	s.locsAcc = 0
	if s.cache != nil {
		s.cache.Close()
	}
	if s.dec != nil {
		s.dec.Close()
	}
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}
