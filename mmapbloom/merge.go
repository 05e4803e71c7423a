package mmapbloom

import (
	"fmt"
	"math"

	"github.com/mmapbloom/mmapbloom/format"
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
	return f.exclusive("merge into", func() error {
		return src.asSource("merge", func() {
			orWords(f.words, src.words)
			f.storeCount(f.mergedCount(src.loadCount()))
		})
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
	field, x, y := headerDiff(f.hdr, src.hdr)
	if field == "" {
		return nil
	}
	return fmt.Errorf("mmapbloom: merge %s into %s: %s differs: source %v, destination %v: %w", src.path, f.path, field, y, x, ErrMismatch)
}

// headerDiff returns the first of m, k, layout, hash scheme and seed
// that differs between the headers a and b, and its values in a and b;
// "" when none does (their filters can be merged).
func headerDiff(a, b format.Header) (field string, x, y any) {
	switch {
	case a.M != b.M:
		return "m", a.M, b.M
	case a.K != b.K:
		return "k", a.K, b.K
	case a.Layout != b.Layout:
		return "layout", a.Layout, b.Layout
	case a.Scheme != b.Scheme:
		return "hash scheme", a.Scheme, b.Scheme
	case a.Seed != b.Seed:
		return "seed", a.Seed, b.Seed
	}
	return "", nil, nil
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
