package mmapbloom

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/edsrzf/mmap-go"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Filter is a Bloom filter that lives in a memory-mapped file: the 64-byte
// header of package format, then the bit array. Nothing of the array is
// copied into the Go heap.
//
// A Filter is safe for concurrent use by many goroutines, and many
// processes may map the same file at once: bits are only ever set, with
// atomic 64-bit OR on the shared mapping, so no concurrent Add loses
// another's bits. Clear, Merge (into this filter), Seal and Unseal need
// every other handle on the file closed and fail with ErrInUse otherwise.
type Filter struct {
	// mu is held shared by every call that writes (and by Sync, Count and
	// Stats) and exclusively by Close, Clear, Merge, Seal and Unseal.
	// Test and TestBatch take no lock (see read in guard.go).
	mu         sync.RWMutex
	path       string
	file       *os.File
	data       mmap.MMap                      // header, then the bit array
	hdr        format.Header                  // as at open; Count is read live from the mapping
	head       *[format.HeaderSize / 8]uint64 // the header as 8 words
	words      []uint64                       // the bit array as words
	last       *uint64                        // the last word of the mapping (see run)
	count32    *uint32                        // the v1.1 count field
	want       atomic.Pointer[[4]uint64]      // immutable header words 0, 3, 5 and 7 (see checkHeader)
	loc        hashing.Locator
	blocked    bool // format.LayoutBlocked512
	readOnly   bool
	exactCount bool          // OpenOptions.ExactCount
	countCalls bool          // v1.1: the count is of Add calls (as the v1.1 reference code counts), not of new keys
	closed     atomic.Bool   // set by Close, before it unmaps (see read)
	broken     atomic.Bool   // set once a fault showed the file changed
	pending    atomic.Uint64 // adds this handle has not yet added to the header count (count.go)
	res        residency     // whether its batches request their pages ahead (batch_cold.go)
	single     bool          // a Builder's BuildOptions.SingleWriter: AddBatch of the blocked layout ORs without locks (batch.go)
	// flushFailed: this handle's last msync or fsync failed, so the next
	// one writes every page again (flush).
	flushFailed atomic.Bool
}

// newFilter builds a Filter over a file already locked shared and mapped.
func newFilter(file *os.File, data mmap.MMap, hdr format.Header, opts OpenOptions) (*Filter, error) {
	all, err := mapping.Words(data)
	if err != nil {
		return nil, err
	}
	f := &Filter{
		path: file.Name(), file: file, data: data, hdr: hdr,
		readOnly: opts.ReadOnly, exactCount: opts.ExactCount,
		head:    (*[format.HeaderSize / 8]uint64)(all),
		words:   all[format.HeaderSize/8:],
		last:    &all[len(all)-1],
		loc:     hashing.NewLocator(hdr),
		blocked: hdr.Layout == format.LayoutBlocked512,
	}
	f.want.Store(f.immutableWords())
	if hdr.Version == format.V1 {
		f.count32 = mapping.Uint32At(data, format.OffCount)
		f.countCalls = true
	}
	return f, nil
}

// Path returns the file name the filter was opened or created with.
func (f *Filter) Path() string { return f.path }

// Header returns the header as decoded at open, with the sealed flag and
// data crc as Seal and Unseal left them. Its Count is the value at open;
// Count returns the live value.
func (f *Filter) Header() format.Header {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.hdr
}

// M returns the number of bits of the array.
func (f *Filter) M() uint64 { return f.hdr.M }

// K returns the number of bit positions (hash functions) per key.
func (f *Filter) K() uint32 { return f.hdr.K }

// N returns the capacity the filter was sized for (0 when it was created
// from an explicit m and k).
func (f *Filter) N() uint64 { return f.hdr.N }

// P returns the false-positive probability the filter was sized for at n
// keys (0 when it was created from an explicit m and k).
func (f *Filter) P() float64 { return f.hdr.P }

// ReadOnly reports whether the filter was opened read-only.
func (f *Filter) ReadOnly() bool { return f.readOnly }

// usable reports why a call may not run now; write is true for calls that
// set bits or change the header. The caller holds mu, or, for a read
// (write false), needs only the atomic closed and broken flags.
func (f *Filter) usable(write bool) error {
	switch {
	case f.closed.Load():
		return ErrClosed
	case f.broken.Load():
		return fmt.Errorf("%s: %w", f.Path(), ErrFileChanged)
	case write && f.readOnly:
		return fmt.Errorf("%s: %w", f.Path(), ErrReadOnly)
	case write && f.hdr.Sealed():
		return fmt.Errorf("%s: %w", f.Path(), ErrSealed)
	}
	return nil
}

// immutableWords returns the header words checkHeader compares: 0 (magic,
// layout, scheme, flags, k; v1.1 magic and seed), 3 (m; v1.1 m and k), 5
// (seed) and 7 (v2 data crc and header crc, which covers every immutable
// byte; v1.1 file crc and byte size). Only Seal and Unseal change them,
// with every other handle closed.
func (f *Filter) immutableWords() *[4]uint64 {
	return &[4]uint64{
		atomic.LoadUint64(&f.head[0]), atomic.LoadUint64(&f.head[3]),
		atomic.LoadUint64(&f.head[5]), atomic.LoadUint64(&f.head[7]),
	}
}

// checkHeader detects a file rewritten in place under the mapping by
// comparing the immutable header words with their values at open (or at
// the last Seal or Unseal), and marks the Filter broken if they differ.
// The caller holds mu.
func (f *Filter) checkHeader() error {
	if !f.headerIntact() {
		f.broken.Store(true)
		return fmt.Errorf("%s: header rewritten: %w", f.Path(), ErrFileChanged)
	}
	return nil
}

// headerIntact reports whether the immutable header words hold their
// expected values. It touches one cache line that every probe keeps hot.
func (f *Filter) headerIntact() bool {
	want := f.want.Load()
	return (atomic.LoadUint64(&f.head[0])^want[0])|(atomic.LoadUint64(&f.head[3])^want[1])|
		(atomic.LoadUint64(&f.head[5])^want[2])|(atomic.LoadUint64(&f.head[7])^want[3]) == 0
}
