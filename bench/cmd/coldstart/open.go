package main

import (
	"bufio"
	"os"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// openStore returns the opener that maps a mmapbloom file read-only,
// with the other options of opts (nil: none).
func openStore(opts *mmapbloom.OpenOptions) opener {
	var o mmapbloom.OpenOptions
	if opts != nil {
		o = *opts
	}
	o.ReadOnly = true
	return func(path string) (filter, error) {
		f, err := mmapbloom.Open(path, &o)
		if err != nil {
			return filter{}, err
		}
		return filter{f.Test, f.TestBatch, f.Close}, nil
	}
}

// openBitsAndBlooms reads a bits-and-blooms filter into the heap the way
// its documentation suggests: os.Open, bufio.NewReader, ReadFrom.
func openBitsAndBlooms(path string) (filter, error) {
	file, err := os.Open(path)
	if err != nil {
		return filter{}, err
	}
	var bf bloom.BloomFilter
	_, err = bf.ReadFrom(bufio.NewReader(file))
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return filter{}, err
	}
	test := func(key []byte) (bool, error) { return bf.Test(key), nil }
	batch := func(keys [][]byte, out []bool) error { // it has no batch call
		for i, key := range keys {
			out[i] = bf.Test(key)
		}
		return nil
	}
	return filter{test, batch, func() error { return nil }}, nil
}
