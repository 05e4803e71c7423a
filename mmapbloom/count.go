package mmapbloom

import "sync/atomic"

// countBatch is how many adds a handle counts on its own before it adds
// them to the header count, so that processes adding to one file do not
// pass the header's cache line back and forth on every add.
const countBatch = 256

// Count returns the number of keys added, as recorded in the header: the
// Add, AddBatch, TestAndAdd and TestAndAddBatch adds that set at least one
// clear bit, over every process that wrote the file, this handle's own
// included (RedisBloom's "Number of items inserted", pybloomfiltermmap3's
// count). Adding a key again, or a key that is already a false positive,
// does not count; keys added by racing callers may count more than once
// (see TestAndAdd). After Merge it is the cardinality estimate of the
// union. A v1.1 file counts every Add call instead, as the v1.1 reference
// code's BaseBloomFilter does. Each handle adds its adds to the
// header in groups of 256 (countBatch), and whenever it calls Count,
// OverCapacity, Stats, Sync, Seal, Merge (as either filter) or Close; until
// then another handle's count lacks up to 255 of them, and if its process
// dies first they are lost from the count (never a key from the filter).
// A handle opened with OpenOptions.ExactCount adds each add call's adds at
// once. A v1.1 file's 32-bit count stops at 2^32-1. Errors: ErrClosed,
// ErrFileChanged.
func (f *Filter) Count() (uint64, error) {
	var c uint64
	err := f.run(false, false, func() error {
		c = f.loadCount()
		return nil
	})
	return c, err
}

// OverCapacity reports whether Count, the keys added, exceeds the
// capacity n the filter was sized for, so that its false-positive rate is
// above p (the v1.1 reference code's Add signals the same). Adding keys that are
// already present never makes a filter over capacity. A filter created
// from an explicit m and k has no capacity and never reports it. Errors as
// for Count.
func (f *Filter) OverCapacity() (bool, error) {
	c, err := f.Count()
	return f.hdr.N > 0 && c > f.hdr.N, err
}

// loadCount publishes this handle's pending adds and returns the header
// count. The caller is inside run.
func (f *Filter) loadCount() uint64 {
	f.publishCount()
	return f.headerCount()
}

// headerCount returns the header count, as every handle published it.
// The caller is inside run or read.
func (f *Filter) headerCount() uint64 {
	if f.count32 != nil {
		return uint64(atomic.LoadUint32(f.count32))
	}
	return atomic.LoadUint64(&f.head[1])
}

// addCount counts delta adds, in the header once this handle has
// countBatch of them pending (at once with OpenOptions.ExactCount). The
// caller is inside run.
func (f *Filter) addCount(delta uint64) {
	switch {
	case f.exactCount:
		f.addHeaderCount(delta)
	case f.pending.Add(delta) >= countBatch:
		f.publishCount()
	}
}

// publishCount adds this handle's pending adds to the header count. The
// caller is inside run.
func (f *Filter) publishCount() {
	if delta := f.pending.Swap(0); delta > 0 {
		f.addHeaderCount(delta)
	}
}

// addHeaderCount adds delta to the header count, atomically; the v1.1
// 32-bit count saturates instead of wrapping.
func (f *Filter) addHeaderCount(delta uint64) {
	if f.count32 == nil {
		atomic.AddUint64(&f.head[1], delta)
		return
	}
	for {
		old := atomic.LoadUint32(f.count32)
		next := min(uint64(old)+delta, 1<<32-1)
		if atomic.CompareAndSwapUint32(f.count32, old, uint32(next)) {
			return
		}
	}
}

// storeCount sets the header count and drops the pending adds; the
// caller holds the exclusive locks.
func (f *Filter) storeCount(c uint64) {
	f.pending.Store(0)
	if f.count32 != nil {
		atomic.StoreUint32(f.count32, uint32(min(c, 1<<32-1)))
		return
	}
	atomic.StoreUint64(&f.head[1], c)
}
