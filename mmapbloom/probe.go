package mmapbloom

import (
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/format"
)

// Add inserts key. Every bit of the key is set with an atomic 64-bit OR
// on the shared mapping (skipped for bits already set), then the header
// count is incremented atomically. Any byte sequence is a key, the empty
// one included. Errors: ErrClosed, ErrReadOnly, ErrSealed, ErrFileChanged.
func (f *Filter) Add(key []byte) error {
	var buf [format.MaxK]uint64
	return f.run(false, true, func() error {
		f.setBits(f.loc.locate(key, buf[:]))
		f.addCount(1)
		return nil
	})
}

// AddString is Add for a string key, without copying it.
func (f *Filter) AddString(key string) error { return f.Add(bytesOf(key)) }

// Test reports whether key may be in the filter: false means definitely
// absent; true means present, or a false positive with probability about
// p at n keys. Test never writes. Errors: ErrClosed, ErrFileChanged.
func (f *Filter) Test(key []byte) (present bool, err error) {
	var buf [format.MaxK]uint64
	err = f.run(false, false, func() error {
		present = f.testBits(f.loc.locate(key, buf[:]))
		return nil
	})
	return present, err
}

// TestString is Test for a string key, without copying it.
func (f *Filter) TestString(key string) (bool, error) { return f.Test(bytesOf(key)) }

// TestAndAdd adds key and reports whether it may have been present
// before: present is false exactly when this call set at least one bit
// that was clear (the key is new), and only then is the count incremented.
//
// Racing callers: when several goroutines or processes call TestAndAdd
// with the same new key at once, at least one of them is told false (new):
// each bit is set by exactly one atomic OR, and the caller whose OR set
// it sees it clear. Several may be told false, since each may set a
// different one of the key's bits first; a caller is told true only after
// every bit of the key was set, by it or by others. Errors as for Add.
func (f *Filter) TestAndAdd(key []byte) (present bool, err error) {
	var buf [format.MaxK]uint64
	err = f.run(false, true, func() error {
		present = !f.setBits(f.loc.locate(key, buf[:]))
		if !present {
			f.addCount(1)
		}
		return nil
	})
	return present, err
}

// TestAndAddString is TestAndAdd for a string key, without copying it.
func (f *Filter) TestAndAddString(key string) (bool, error) { return f.TestAndAdd(bytesOf(key)) }

// Locations returns the k bit positions of key in [0, m), in the order of
// the hash scheme (document 000's Cython BloomFilter.hash, document 003's
// bloom_hash). It reads nothing from the file.
func (f *Filter) Locations(key []byte) []uint64 {
	return f.loc.locate(key, make([]uint64, f.hdr.K))
}

// testBits reports whether every position is set.
func (f *Filter) testBits(locs []uint64) bool {
	for _, p := range locs {
		if atomic.LoadUint64(&f.words[p>>6])&wordMask(p) == 0 {
			return false
		}
	}
	return true
}

// setBits sets every position and reports whether any was clear before
// this call set it.
func (f *Filter) setBits(locs []uint64) (set bool) {
	for _, p := range locs {
		w, mask := &f.words[p>>6], wordMask(p)
		if atomic.LoadUint64(w)&mask == 0 && atomic.OrUint64(w, mask)&mask == 0 {
			set = true
		}
	}
	return set
}
