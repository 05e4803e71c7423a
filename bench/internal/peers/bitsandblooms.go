package peers

import "github.com/bits-and-blooms/bloom/v3"

// babFilter is a github.com/bits-and-blooms/bloom/v3 filter, in the heap.
type babFilter struct{ f *bloom.BloomFilter }

func newBitsAndBlooms(_ string, n uint64, p float64) (Filter, error) {
	return babFilter{bloom.NewWithEstimates(uint(n), p)}, nil
}

func (b babFilter) Add(key []byte) error {
	b.f.Add(key)
	return nil
}

func (b babFilter) Test(key []byte) (bool, error) { return b.f.Test(key), nil }

func (b babFilter) Reset() error {
	b.f.ClearAll()
	return nil
}

// Bytes returns the size of the bit set's words.
func (b babFilter) Bytes() uint64 { return uint64(len(b.f.BitSet().Words())) * 8 }

func (b babFilter) Close() error { return nil }
