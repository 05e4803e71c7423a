package store

import (
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// Bloom is what the server needs of a key's filter: a fixed filter file
// (*mmapbloom.Filter, through Fixed) or a scaling set (through a Sets
// backend). Every method is safe for concurrent use; errors are the
// library's (mmapbloom.ErrClosed, ErrNoSpace...).
type Bloom interface {
	TestAndAdd(key []byte) (bool, error)
	TestAndAddBatch(keys [][]byte, present []bool) error
	Test(key []byte) (bool, error)
	TestBatch(keys [][]byte, present []bool) error
	// Count is the number of adds that set a new bit (BF.CARD).
	Count() (uint64, error)
	// Capacity is the number of keys the filter holds at its error rate
	// (every layer's, for a set).
	Capacity() uint64
	// SizeBytes is the size of the bit arrays and headers, in bytes.
	SizeBytes() (uint64, error)
	// Resident is how many bytes of them the page cache holds
	// (mmapbloom.Filter.Resident, Set.Resident), errors.ErrUnsupported
	// where the system cannot tell.
	Resident() (uint64, error)
	// Layers is the number of sub-filters (1 for a fixed filter).
	Layers() int
	// Expansion is the growth factor of a set, 0 for a fixed filter.
	Expansion() uint32
	Sync() error
	Close() error
}

// Sets makes and opens filter sets: scaling sets (RedisBloom's default
// BF.RESERVE form) and windowed sets (MBF.RESERVEWINDOW). The server
// holds one in its Config.Sets (default LibrarySets).
type Sets interface {
	// Create makes the set directory dir sized for n keys in its first
	// layer (each window's, for a windowed set) at a total false-positive
	// probability p, shaped by spec.
	Create(dir string, n uint64, p float64, spec SetSpec) (Bloom, error)
	// Open opens the set directory dir.
	Open(dir string) (Bloom, error)
	// Remove deletes the set directory dir, failing with
	// mmapbloom.ErrInUse while another handle has it open.
	Remove(dir string) error
	// Rename moves the set directory dir to newdir (which must not
	// exist), failing with mmapbloom.ErrInUse while another handle has
	// it open.
	Rename(dir, newdir string) error
}

// SetSpec shapes a new set: scalable growing by Expansion when Window
// is 0, else windowed (windows of length Window, Keep of them kept,
// Refresh re-adding hits; see mmapbloom.SetOptions).
type SetSpec struct {
	Expansion uint32
	Window    time.Duration
	Keep      int
	Refresh   bool
}

// Fixed is a fixed-size filter file as a Bloom.
type Fixed struct{ *mmapbloom.Filter }

// Capacity is the number of keys the filter was sized for (its header's n).
func (f Fixed) Capacity() uint64 { return f.N() }

// SizeBytes is the file's size: its header and bit array, in bytes.
func (f Fixed) SizeBytes() (uint64, error) {
	h := f.Header()
	return format.HeaderSize + h.ByteSize, nil
}

// Layers is 1: a fixed filter is one file.
func (f Fixed) Layers() int { return 1 }

// Expansion is 0: a fixed filter does not grow.
func (f Fixed) Expansion() uint32 { return 0 }
