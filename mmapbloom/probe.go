package mmapbloom

import (
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// Add inserts key. Every bit of the key is set with an atomic 64-bit OR
// on the shared mapping (skipped for bits already set); when one of them
// was clear the add is counted (see Count), so adding a key again, or a
// key that is a false positive, leaves the count as it was (a v1.1 file
// counts every Add call, as the v1.1 reference code does). Any byte sequence is a
// key, the empty one included. Errors: ErrClosed, ErrReadOnly, ErrSealed,
// ErrFileChanged.
func (f *Filter) Add(key []byte) (err error) {
	h := f.hashKey(key)
	restore, err := f.lockShared() // run's checks, without a closure to call
	if err != nil {
		return err
	}
	defer f.unlockShared(restore, &err)
	if err := f.enter(); err != nil {
		return err
	}
	if f.setKey(key, h, false) || f.countCalls {
		f.addCount(1)
	}
	return nil
}

// AddString is Add for a string key, without copying it.
func (f *Filter) AddString(key string) error { return f.Add(mapping.Bytes(key)) }

// Test reports whether key may be in the filter: false means definitely
// absent; true means present, or a false positive with probability about
// p at n keys. Test never writes. Errors: ErrClosed, ErrFileChanged.
func (f *Filter) Test(key []byte) (present bool, err error) {
	h := f.hashKey(key)
	if raceEnabled {
		return f.testLocked(key, h)
	}
	restore, err := f.beginRead() // read's path, without a closure to call
	if err != nil {
		return false, err
	}
	defer f.recoverFault(restore, &err)
	if !f.headerIntact() {
		return f.testLocked(key, h)
	}
	atomic.LoadUint64(f.last)
	present = f.testKey(key, h)
	if err := f.endRead(nil); err != nil {
		return false, err
	}
	return present, nil
}

// testLocked is Test through run: under the lock, for race builds and
// while the header is not as at open (see read).
func (f *Filter) testLocked(key []byte, h blockKey) (present bool, err error) {
	err = f.run(false, false, func() error {
		present = f.testKey(key, h)
		return nil
	})
	return present && err == nil, err
}

// TestString is Test for a string key, without copying it.
func (f *Filter) TestString(key string) (bool, error) { return f.Test(mapping.Bytes(key)) }

// TestAndAdd adds key and reports whether it may have been present
// before: present is false when this call claims the key (it found one
// of its bits clear, and the last atomic OR it made set a clear bit; see
// claim.go), and only then is the count incremented.
//
// Racing callers: when several goroutines or processes call TestAndAdd
// at once with the same key, at most one of them is told false (new),
// whatever their timing, and one is when a bit of the key is clear when
// they start and no other key's add sets its last clear word meanwhile
// (a false positive of that moment, far rarer than p). A key never added
// that is a false positive has no clear bit, so every caller is told
// true. Errors as for Add.
func (f *Filter) TestAndAdd(key []byte) (present bool, err error) {
	h := f.hashKey(key)
	err = f.run(false, true, func() error {
		present = !f.setKey(key, h, true)
		if !present {
			f.addCount(1)
		}
		return nil
	})
	return present, err
}

// TestAndAddString is TestAndAdd for a string key, without copying it.
func (f *Filter) TestAndAddString(key string) (bool, error) { return f.TestAndAdd(mapping.Bytes(key)) }

// Locations returns the k bit positions of key in [0, m), in the order of
// the hash scheme (the hash method of the murmur2-seeds reference filter,
// bloom_hash of the v1.1 reference code). It reads nothing from the file.
func (f *Filter) Locations(key []byte) []uint64 {
	return f.loc.Locate(key, make([]uint64, f.hdr.K))
}

// blockKey is a key's hash in the blocked layout: its block and in-block
// hash (see internal/hashing/blocked.go).
type blockKey struct {
	block uint64
	g     uint32
}

// hashKey hashes key for the blocked layout (the zero blockKey for the
// classic one, which hashes inside the call) and asks for the cache line
// of its block at once, before the call's checks: the miss then overlaps
// them and the work around the call. The prefetch reads nothing that can
// fault (a PREFETCH instruction on amd64, nothing elsewhere), so it is
// safe outside the fault guard, on a closed or truncated filter too (a
// torn read of f.words racing Close gives a wrong address, still
// harmless).
func (f *Filter) hashKey(key []byte) blockKey {
	if !f.blocked {
		return blockKey{}
	}
	block, g := f.loc.BlockHash(key)
	if !raceEnabled { // f.words is read without the lock that Close takes
		kernel.PrefetchBit(f.words, block*hashing.BlockBits)
	}
	return blockKey{block, g}
}

// testKey reports whether every bit of key (hashed into h by hashKey) is
// set.
func (f *Filter) testKey(key []byte, h blockKey) bool {
	if f.blocked {
		return kernel.Active.TestBlock(f.words, h.block*hashing.BlockBits, h.g, f.hdr.K)
	}
	var buf [format.MaxK]uint64
	return f.testBits(f.loc.Locate(key, buf[:]))
}

// setKey sets every bit of key (hashed into h by hashKey); with report
// it says whether this call claims the key (claim.go), without whether
// any was clear before.
func (f *Filter) setKey(key []byte, h blockKey, report bool) bool {
	if f.blocked {
		return f.setBlock(h.block, h.g, report)
	}
	var buf [format.MaxK]uint64
	return f.setBits(f.loc.Locate(key, buf[:]), report)
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

// setBits sets every position; with report it says whether this call
// claims the key (see claimBits), without whether any was clear before.
func (f *Filter) setBits(locs []uint64, report bool) (set bool) {
	if report {
		return f.claimBits(locs)
	}
	for _, p := range locs {
		if orWord(&f.words[p>>6], wordMask(p)) {
			set = true
		}
	}
	return set
}

// orWord sets the bits of mask in *w with an atomic OR, skipped (no locked
// instruction, no dirtied page) when they are all set already; it returns
// whether the load saw a bit clear. TestAndAdd's claim is claimLine's and
// claimBits'.
func orWord(w *uint64, mask uint64) bool {
	if atomic.LoadUint64(w)&mask == mask {
		return false
	}
	atomic.OrUint64(w, mask)
	return true
}
