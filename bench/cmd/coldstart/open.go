package main

import (
	"bufio"
	"os"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// openStore maps a mmapbloom file read-only.
func openStore(path string) (query, func() error, error) {
	f, err := mmapbloom.Open(path, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	return f.Test, f.Close, nil
}

// openBitsAndBlooms reads a bits-and-blooms filter into the heap the way
// its documentation suggests: os.Open, bufio.NewReader, ReadFrom.
func openBitsAndBlooms(path string) (query, func() error, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	var bf bloom.BloomFilter
	_, err = bf.ReadFrom(bufio.NewReader(file))
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, nil, err
	}
	test := func(key []byte) (bool, error) { return bf.Test(key), nil }
	return test, func() error { return nil }, nil
}
