package mmapbloom

// This file holds every call that maps, advises or unmaps memory.

import (
	"fmt"
	"math"
	"os"

	"github.com/edsrzf/mmap-go"
	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f, shared, writable unless
// readOnly, and advises the kernel that access is random (so a cold probe
// faults in one page instead of megabytes of read-ahead).
func mapFile(f *os.File, size uint64, readOnly bool) (mmap.MMap, error) {
	if size > math.MaxInt {
		return nil, fmt.Errorf("mapping %d bytes on this platform: %w", size, ErrTooLarge)
	}
	prot := mmap.RDWR
	if readOnly {
		prot = mmap.RDONLY
	}
	m, err := mmap.MapRegion(f, int(size), prot, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: map %s (%d bytes): %w", f.Name(), size, err)
	}
	if err := unix.Madvise(m, unix.MADV_RANDOM); err != nil {
		_ = m.Unmap()
		return nil, fmt.Errorf("mmapbloom: madvise %s: %w", f.Name(), err)
	}
	return m, nil
}
