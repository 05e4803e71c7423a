package peers

import (
	"os"
	"path/filepath"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// Seed is the hash seed of the mmapbloom filters, fixed so that the
// measured false-positive rate is the same from run to run.
const Seed = 0x5eed

// storeFilter is a mmapbloom filter in a file of its own directory.
type storeFilter struct {
	*mmapbloom.Filter
	dir string
}

func newBlocked(dir string, n uint64, p float64) (Filter, error) {
	return newStore(dir, n, p, format.LayoutBlocked512)
}

func newClassic(dir string, n uint64, p float64) (Filter, error) {
	return newStore(dir, n, p, format.LayoutClassic)
}

// newStore creates a filter file with the given layout in a fresh
// directory under dir; Close removes both.
func newStore(dir string, n uint64, p float64, layout format.Layout) (Filter, error) {
	sub, err := os.MkdirTemp(dir, "mmapbloom-")
	if err != nil {
		return nil, err
	}
	opts := &mmapbloom.CreateOptions{Layout: layout, Seed: Seed, FixedSeed: true}
	f, err := mmapbloom.Create(filepath.Join(sub, "filter.bloom"), n, p, opts)
	if err != nil {
		return nil, err
	}
	return &storeFilter{Filter: f, dir: sub}, nil
}

func (f *storeFilter) Reset() error { return f.Clear() }

func (f *storeFilter) Bytes() uint64 {
	return format.HeaderSize + f.Header().ByteSize
}

func (f *storeFilter) Close() error {
	if err := f.Filter.Close(); err != nil {
		return err
	}
	return os.RemoveAll(f.dir)
}
