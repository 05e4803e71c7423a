package peers

import (
	"github.com/cespare/xxhash/v2"
	"github.com/greatroar/blobloom"
)

// blobFilter is a github.com/greatroar/blobloom filter, in the heap. It
// takes a 64-bit hash per key; xxhash, as its README suggests, is computed
// in every call, so its time counts.
type blobFilter struct{ f *blobloom.Filter }

func newBlobloom(_ string, n uint64, p float64) (Filter, error) {
	return blobFilter{blobloom.NewOptimized(blobloom.Config{Capacity: n, FPRate: p})}, nil
}

func (b blobFilter) Add(key []byte) error {
	b.f.Add(xxhash.Sum64(key))
	return nil
}

func (b blobFilter) Test(key []byte) (bool, error) { return b.f.Has(xxhash.Sum64(key)), nil }

func (b blobFilter) Reset() error {
	b.f.Clear()
	return nil
}

func (b blobFilter) Bytes() uint64 { return b.f.NumBits() / 8 }

func (b blobFilter) Close() error { return nil }
