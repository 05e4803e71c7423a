// Package files writes the filter files of the process benchmarks (cold
// start, heap in use, multi-process adds): a mmapbloom file and a
// bits-and-blooms file holding the same keys.
package files

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// P is the false-positive probability the filters are sized for.
const P = 1e-4

// StoreOfBytes writes a blocked mmapbloom file whose bit array is size
// bytes (a multiple of 64), with the probe count of a p = P filter, holding
// keys. It replaces any file at path.
func StoreOfBytes(path string, size uint64, keys [][]byte) error {
	_, k, err := mmapbloom.OptimalBlocked(1_000_000, P)
	if err != nil {
		return err
	}
	opts := &mmapbloom.CreateOptions{Layout: format.LayoutBlocked512, Overwrite: true}
	f, err := mmapbloom.CreateWithMK(path, size*8, k, opts)
	if err != nil {
		return err
	}
	return addAndClose(f, keys)
}

// StoreForKeys writes a mmapbloom file sized for n keys at P in the
// default layout, holding keys. It replaces any file at path.
func StoreForKeys(path string, n uint64, keys [][]byte) error {
	f, err := mmapbloom.Create(path, n, P, &mmapbloom.CreateOptions{Overwrite: true})
	if err != nil {
		return err
	}
	return addAndClose(f, keys)
}

func addAndClose(f *mmapbloom.Filter, keys [][]byte) error {
	if err := f.AddBatch(keys); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// BitsAndBloomsForKeys writes, with WriteTo, a bits-and-blooms filter sized
// for n keys at P holding keys.
func BitsAndBloomsForKeys(path string, n uint64, keys [][]byte) error {
	return writeBitsAndBlooms(path, bloom.NewWithEstimates(uint(n), P), keys)
}

// BitsAndBloomsOfBytes writes, with WriteTo, a bits-and-blooms filter of
// size bytes of bits (a multiple of 8) holding keys, with the hash count
// of a p = P filter.
func BitsAndBloomsOfBytes(path string, size uint64, keys [][]byte) error {
	_, k := bloom.EstimateParameters(1_000_000, P)
	return writeBitsAndBlooms(path, bloom.New(uint(size*8), k), keys)
}

func writeBitsAndBlooms(path string, bf *bloom.BloomFilter, keys [][]byte) error {
	for _, key := range keys {
		bf.Add(key)
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(file)
	if _, err := bf.WriteTo(w); err != nil {
		_ = file.Close()
		return fmt.Errorf("files: %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		_ = file.Close()
		return err
	}
	return file.Close()
}

// Warm reads the whole file at path, so that it sits in the page cache
// (as cat file > /dev/null).
func Warm(path string) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, file)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}
