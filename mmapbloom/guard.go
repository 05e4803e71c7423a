package mmapbloom

import (
	"fmt"
	"runtime/debug"
)

// run executes op against the mapping with the checks every call needs:
// the in-process lock (shared, or exclusive for calls that need every
// other user out), the handle's state, and the header. A fault while op
// touches the mapping (the file was truncated or shrunk under it, which
// would otherwise kill the process with SIGBUS) becomes ErrFileChanged,
// and the Filter refuses further calls.
func (f *Filter) run(exclusive, write bool, op func() error) (err error) {
	if exclusive {
		f.mu.Lock()
		defer f.mu.Unlock()
	} else {
		f.mu.RLock()
		defer f.mu.RUnlock()
	}
	if err := f.usable(write); err != nil {
		return err
	}
	defer f.recoverFault(debug.SetPanicOnFault(true), &err)
	if err := f.checkHeader(); err != nil {
		return err
	}
	return op()
}

// recoverFault turns a memory fault inside run into ErrFileChanged and
// restores the goroutine's panic-on-fault setting. Other panics go on.
func (f *Filter) recoverFault(restore bool, err *error) {
	debug.SetPanicOnFault(restore)
	r := recover()
	if r == nil {
		return
	}
	fault, ok := r.(interface{ Addr() uintptr })
	if !ok {
		panic(r)
	}
	f.broken.Store(true)
	*err = fmt.Errorf("%s: fault at %#x (file truncated or shrunk?): %w", f.Path(), fault.Addr(), ErrFileChanged)
}
