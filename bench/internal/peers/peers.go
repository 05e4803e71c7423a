// Package peers puts this store and the peer Bloom filter libraries behind
// one interface, so that the benchmarks drive each the same way: one
// dynamic call per key for every library.
package peers

// Filter is a Bloom filter under benchmark.
type Filter interface {
	// Add inserts key.
	Add(key []byte) error
	// Test reports whether key may be present.
	Test(key []byte) (bool, error)
	// Reset empties the filter, keeping its size.
	Reset() error
	// Bytes returns the size of the filter's bits (and header, if any).
	Bytes() uint64
	// Close releases the filter.
	Close() error
}

// Batcher is a Filter with batch calls.
type Batcher interface {
	Filter
	// AddBatch adds every key of keys.
	AddBatch(keys [][]byte) error
	// TestBatch sets present[i] to Test(keys[i]).
	TestBatch(keys [][]byte, present []bool) error
}

// Lib is a library under benchmark.
type Lib struct {
	// Name is the lib= part of benchmark names.
	Name string
	// New makes a filter for n keys at false-positive probability p.
	// dir is a directory for a file-backed filter; in-heap ones ignore it.
	New func(dir string, n uint64, p float64) (Filter, error)
}

// Libs lists the libraries in the order of the benchmark tables: this
// store in its two layouts, then the peers.
var Libs = []Lib{
	{Name: "mmapbloom-blocked", New: newBlocked},
	{Name: "mmapbloom-classic", New: newClassic},
	{Name: "bitsandblooms", New: newBitsAndBlooms},
	{Name: "blobloom", New: newBlobloom},
}
