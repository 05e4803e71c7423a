package mmapbloom

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// run executes op against the mapping with the checks every call needs:
// the in-process lock (shared, or exclusive for calls that need every
// other user out), then those of guarded.
func (f *Filter) run(exclusive, write bool, op func() error) error {
	if exclusive {
		f.mu.Lock()
		defer f.mu.Unlock()
	} else {
		f.mu.RLock()
		defer f.mu.RUnlock()
	}
	return f.guarded(write, op)
}

// guarded executes op after checking the handle's state, the header and
// the last word of the mapping. A fault while it or op touches the mapping
// (the file was truncated or shrunk under it, which would otherwise kill
// the process with SIGBUS) becomes ErrFileChanged, and the Filter refuses
// further calls. Touching the last word makes a file shrunk by a page or
// more fail every call, not only the calls whose keys fall in the lost
// pages. The caller holds mu.
func (f *Filter) guarded(write bool, op func() error) (err error) {
	if err := f.usable(write); err != nil {
		return err
	}
	defer f.recoverFault(debug.SetPanicOnFault(true), &err)
	if err := f.checkHeader(); err != nil {
		return err
	}
	atomic.LoadUint64(f.last)
	return op()
}

// read executes op, which only reads the mapping, with the checks of run
// but without the in-process lock, whose two locked instructions per call
// would be full barriers: with none, the cache miss of one Test overlaps
// the work of the calls around it. What the lock would exclude:
//   - Close: it sets closed before it unmaps and clears the Filter's views
//     of the mapping, and read checks closed again after op, so a call that
//     overlaps Close returns ErrClosed whatever op saw: the file, memory
//     mapped at its addresses since, a fault on the unmapped range or a
//     half-cleared view (recovered, see recoverFault). op must only read
//     the mapping, and its results are void when read returns an error;
//   - Seal and Unseal, which rewrite header words: a header that does not
//     match sends the call to run, which waits for them and checks again;
//   - Clear and Merge: a Test beside them sees each bit before or after
//     they write it, as beside another process's calls.
//
// Under the race detector read takes the lock like run (see race_on.go).
func (f *Filter) read(op func() error) (err error) {
	if raceEnabled {
		return f.run(false, false, op)
	}
	if err := f.usable(false); err != nil {
		return err
	}
	defer f.recoverFault(debug.SetPanicOnFault(true), &err)
	if !f.headerIntact() {
		return f.run(false, false, op)
	}
	atomic.LoadUint64(f.last)
	err = op()
	if f.closed.Load() {
		return ErrClosed
	}
	return err
}

// recoverFault restores the goroutine's panic-on-fault setting and turns
// a panic inside run or read into an error: any panic into ErrClosed if
// the Filter was closed meanwhile (only a lock-free read can overlap
// Close; it may fault on the unmapped range, or index a view of the
// mapping that Close cleared half-way), else a memory fault into
// ErrFileChanged. Other panics go on.
func (f *Filter) recoverFault(restore bool, err *error) {
	debug.SetPanicOnFault(restore)
	r := recover()
	if r == nil {
		return
	}
	if f.closed.Load() {
		*err = ErrClosed
		return
	}
	fault, ok := r.(interface{ Addr() uintptr })
	if !ok {
		panic(r)
	}
	*err = f.faultError(fault.Addr())
}

// faultError returns the error of a memory fault at addr in f's mapping.
// A file shorter than the mapping was truncated or shrunk: ErrFileChanged,
// and f refuses further calls. A file of its full size faulted because the
// file system could not supply the page, which happens on a write to a
// hole (blocks never allocated, or freed behind the library's back) on a
// full disk (on tmpfs, on a read of one too), or on an I/O error:
// ErrNoSpace, and f stays usable.
func (f *Filter) faultError(addr uintptr) error {
	if st, err := f.file.Stat(); err == nil && st.Size() >= int64(len(f.data)) {
		return fmt.Errorf("%s: fault at %#x: the file system could not supply a page of the file (no blocks and a full disk, or an I/O error): %w", f.Path(), addr, ErrNoSpace)
	}
	f.broken.Store(true)
	return fmt.Errorf("%s: fault at %#x (file truncated or shrunk?): %w", f.Path(), addr, ErrFileChanged)
}

// maps reports whether addr lies in f's mapping.
func (f *Filter) maps(addr uintptr) bool { return mapping.Contains(f.data, addr) }

// guardAll runs op, which may touch every page of the mapping, inside
// run's checks (mapping.Allocate's guard).
func (f *Filter) guardAll(op func() error) error { return f.run(false, false, op) }
