package mmapbloom

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Merge ORs the bits of src into f, so that f answers present for every
// key either held (exact: the union of two Bloom filters of one shape is
// the filter of the union). The count becomes the cardinality estimate of
// the union's bits (see Stats.EstimatedCardinality), at most the sum of
// the two counts, which counts twice the keys both filters hold; a v1.1
// file, which counts Add calls, gets the sum. Both must have
// the same m, k, layout, hash scheme and seed; otherwise Merge returns
// ErrMismatch naming the first field that differs. f needs every other
// handle on its file closed (ErrInUse); src may be shared, even with
// writers. Errors: ErrMismatch, ErrInUse, ErrReadOnly, ErrSealed,
// ErrClosed, ErrFileChanged.
func (f *Filter) Merge(src *Filter) error {
	if err := f.Compatible(src); err != nil {
		return err
	}
	return f.exclusive("merge into", func() (err error) {
		if !src.mu.TryRLock() {
			return fmt.Errorf("mmapbloom: merge %s: source busy: %w", src.path, ErrInUse)
		}
		defer src.mu.RUnlock()
		if err := src.usable(false); err != nil {
			return err
		}
		// The source gets the checks of run too: its header, its last
		// word, and a fault in its mapping marks it, not f, broken.
		defer blameLayers([]*Filter{src}, &err)
		if err := src.checkHeader(); err != nil {
			return err
		}
		atomic.LoadUint64(src.last)
		for i := range f.words {
			if s := atomic.LoadUint64(&src.words[i]); s != 0 {
				atomic.OrUint64(&f.words[i], s)
			}
		}
		f.storeCount(f.mergedCount(src.loadCount()))
		return nil
	})
}

// Compatible reports whether src can be merged into f: nil when both have
// the same m, k, layout, hash scheme and seed and src is another Filter,
// else ErrMismatch wrapped with the first field that differs and both
// values (or "into itself"). It reads only the headers as decoded at open.
func (f *Filter) Compatible(src *Filter) error {
	if src == f {
		return fmt.Errorf("mmapbloom: merge %s into itself: %w", f.path, ErrMismatch)
	}
	a, b := f.hdr, src.hdr
	var field string
	var x, y any
	switch {
	case a.M != b.M:
		field, x, y = "m", a.M, b.M
	case a.K != b.K:
		field, x, y = "k", a.K, b.K
	case a.Layout != b.Layout:
		field, x, y = "layout", a.Layout, b.Layout
	case a.Scheme != b.Scheme:
		field, x, y = "hash scheme", a.Scheme, b.Scheme
	case a.Seed != b.Seed:
		field, x, y = "seed", a.Seed, b.Seed
	default:
		return nil
	}
	return fmt.Errorf("mmapbloom: merge %s into %s: %s differs: source %v, destination %v: %w", src.path, f.path, field, y, x, ErrMismatch)
}

// mergedCount returns f's count after src's bits, and src's count srcCount,
// were ORed into it: the cardinality estimate of its bits, rounded, capped
// by the sum of the counts (the sum for a v1.1 file, or when a full block
// makes the estimate infinite). The caller holds f exclusively.
func (f *Filter) mergedCount(srcCount uint64) uint64 {
	sum := f.loadCount() + srcCount
	if f.countCalls {
		return sum
	}
	s := Stats{M: f.hdr.M, K: f.hdr.K, N: f.hdr.N}
	f.scanBits(&s)
	if est := math.Round(s.EstimatedCardinality); est < float64(sum) {
		return uint64(est)
	}
	return sum
}
