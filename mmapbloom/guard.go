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
// the last word of the mapping (see enter). A fault while it or op
// touches the mapping (the file was truncated or shrunk under it, which
// would otherwise kill the process with SIGBUS) becomes ErrFileChanged,
// and the Filter refuses further calls. The caller holds mu.
func (f *Filter) guarded(write bool, op func() error) (err error) {
	if err := f.usable(write); err != nil {
		return err
	}
	defer f.recoverFault(debug.SetPanicOnFault(true), &err)
	if err := f.enter(); err != nil {
		return err
	}
	return op()
}

// enter checks the header and touches the last word of the mapping: a
// file shrunk by a page or more then fails every call, not only the calls
// whose keys fall in the lost pages. The caller has checked usable and
// made faults panic (see recoverFault, unlockShared).
func (f *Filter) enter() error {
	if err := f.checkHeader(); err != nil {
		return err
	}
	atomic.LoadUint64(f.last)
	return nil
}

// lockShared starts a write of a single key without a closure (Add's
// path; run's with exclusive false and write true): it takes mu shared
// and, when the handle may write, makes faults panic; the caller must
// defer unlockShared with the result, then call enter. On an error mu is
// already released.
func (f *Filter) lockShared() (restore bool, err error) {
	f.mu.RLock()
	if err := f.usable(true); err != nil {
		f.mu.RUnlock()
		return false, err
	}
	return debug.SetPanicOnFault(true), nil
}

// unlockShared ends what lockShared started: it restores the goroutine's
// panic-on-fault setting, releases mu and turns a fault into an error as
// recoverFault does.
func (f *Filter) unlockShared(restore bool, err *error) {
	debug.SetPanicOnFault(restore)
	r := recover()
	f.mu.RUnlock()
	if r != nil {
		*err = f.settle(r)
	}
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
	restore, err := f.beginRead()
	if err != nil {
		return err
	}
	defer f.recoverFault(restore, &err)
	if !f.headerIntact() {
		return f.run(false, false, op)
	}
	atomic.LoadUint64(f.last)
	return f.endRead(op())
}

// beginRead starts a lock-free read (read's path, which Test follows
// without a closure): it checks the handle and makes faults panic; the
// caller must defer recoverFault with the result, send the call to run
// when the header is not intact, touch the last word, read, and return
// through endRead.
func (f *Filter) beginRead() (restore bool, err error) {
	if err := f.usable(false); err != nil {
		return false, err
	}
	return debug.SetPanicOnFault(true), nil
}

// endRead returns the error of a lock-free read whose op returned err:
// ErrClosed if Close ran meanwhile (whatever op saw is void), else err.
func (f *Filter) endRead(err error) error {
	if f.closed.Load() {
		return ErrClosed
	}
	return err
}

// recoverFault restores the goroutine's panic-on-fault setting and turns
// a panic inside run or read into an error (see settle).
func (f *Filter) recoverFault(restore bool, err *error) {
	debug.SetPanicOnFault(restore)
	if r := recover(); r != nil {
		*err = f.settle(r)
	}
}

// settle returns the error of a recovered panic r: ErrClosed for any
// panic if the Filter was closed meanwhile (only a lock-free read can
// overlap Close; it may fault on the unmapped range, or index a view of
// the mapping that Close cleared half-way), else for a memory fault the
// error of faultError. Other panics go on.
func (f *Filter) settle(r any) error {
	if f.closed.Load() {
		return ErrClosed
	}
	fault, ok := r.(interface{ Addr() uintptr })
	if !ok {
		panic(r)
	}
	return f.faultError(fault.Addr())
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
