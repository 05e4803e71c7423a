package mapping

// This file holds every call that maps memory (the Linux-only huge-page
// advice is in advise_linux.go).

import (
	"fmt"
	"math"
	"os"

	"github.com/edsrzf/mmap-go"
	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
)

// Map maps the first size bytes of f, shared, writable unless
// readOnly, and advises the kernel that access is random (no read-ahead
// of megabytes around a cold probe, which then reads one 4 KiB page) and
// that huge pages are welcome (see OpenOptions.HugePages) with hugePages,
// or read-only when the file is resident (see Resident): a fault then
// reads nothing from the disk, nothing is written back, and a probe
// misses the TLB once per 2 MiB instead of once per 4 KiB.
func Map(f *os.File, size uint64, readOnly, hugePages bool) (mmap.MMap, error) {
	if size > math.MaxInt {
		return nil, fmt.Errorf("mmapbloom: map %s: %d bytes do not fit this platform's address space: %w", f.Name(), size, errs.ErrTooLarge)
	}
	prot := mmap.RDWR
	if readOnly {
		prot = mmap.RDONLY
	}
	m, err := mmap.MapRegion(f, int(size), prot, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: map %s (%d bytes): %w", f.Name(), size, err)
	}
	if hugePages || readOnly && Resident(m) {
		adviseHugePages(m)
	}
	if err := unix.Madvise(m, unix.MADV_RANDOM); err != nil {
		_ = m.Unmap()
		return nil, fmt.Errorf("mmapbloom: madvise %s: %w", f.Name(), err)
	}
	return m, nil
}

// Sequential advises the kernel that the caller is about to read the
// whole mapping in order (MADV_SEQUENTIAL: read-ahead, as for a read of
// the file) and returns the function that restores random access. A pass
// over a cold file then reads large runs instead of faulting in one page
// at a time: 1 GiB cold, info --stats took 56 s with random access.
// Advice only: its errors are ignored. The caller is inside its fault
// guard.
func Sequential(data []byte) (restore func()) {
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	return func() { _ = unix.Madvise(data, unix.MADV_RANDOM) }
}

// WillNeed asks the kernel to read into the page cache the page of the
// mapping m that holds byte off (madvise MADV_WILLNEED) and returns
// without waiting for the read: a fault on that page later waits only for
// what is left of it, so the reads of pages requested one after another
// are in flight together, up to the device's queue depth. A cold batch
// asks for its keys' pages this way ahead of their probes (a cache-line
// prefetch of a page not in memory is dropped, and a fault blocks its
// thread). Advice only: a resident page costs the call and nothing else,
// and errors are ignored. off < len(m).
func WillNeed(m []byte, off uint64) {
	page := uint64(os.Getpagesize())
	start := off &^ (page - 1)
	_ = unix.Madvise(m[start:min(start+page, uint64(len(m)))], unix.MADV_WILLNEED)
}

// Private maps size bytes of anonymous memory private to the process:
// zero pages, given memory as they are first written, backed by no file
// (nothing reaches a disk unless the system swaps), with huge pages
// welcome. A filter is built there before its file is written once.
func Private(size uint64) (mmap.MMap, error) {
	if size > math.MaxInt {
		return nil, fmt.Errorf("mmapbloom: map %d bytes of memory: beyond this platform's address space: %w", size, errs.ErrTooLarge)
	}
	m, err := mmap.MapRegion(nil, int(size), mmap.COPY, mmap.ANON, 0)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: map %d bytes of memory: %w", size, err)
	}
	adviseHugePages(m)
	return m, nil
}
