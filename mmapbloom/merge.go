package mmapbloom

import (
	"fmt"
	"sync/atomic"
)

// Merge ORs the bits of src into f and adds src's count to f's, so that f
// answers present for every key either held (exact: the union of two
// Bloom filters of one shape is the filter of the union). Both must have
// the same m, k, layout, hash scheme and seed; otherwise Merge returns
// ErrMismatch naming the first field that differs. f needs every other
// handle on its file closed (ErrInUse); src may be shared, even with
// writers. Errors: ErrMismatch, ErrInUse, ErrReadOnly, ErrSealed,
// ErrClosed, ErrFileChanged.
func (f *Filter) Merge(src *Filter) error {
	if src == f {
		return fmt.Errorf("mmapbloom: merge %s into itself: %w", f.path, ErrMismatch)
	}
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
		defer src.blameFault(&err)
		if err := src.checkHeader(); err != nil {
			return err
		}
		atomic.LoadUint64(src.last)
		for i := range f.words {
			if s := atomic.LoadUint64(&src.words[i]); s != 0 {
				atomic.OrUint64(&f.words[i], s)
			}
		}
		f.addCount(src.loadCount())
		f.publishCount()
		return nil
	})
}

// Compatible reports whether src can be merged into f: nil when both have
// the same m, k, layout, hash scheme and seed, else ErrMismatch wrapped
// with the first field that differs and both values. It reads only the
// headers as decoded at open.
func (f *Filter) Compatible(src *Filter) error {
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
	return fmt.Errorf("mmapbloom: merge %s into %s: %s differs (%v vs %v): %w", src.path, f.path, field, y, x, ErrMismatch)
}
