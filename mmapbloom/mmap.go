package mmapbloom

// This file holds every call that maps or unmaps memory (the Linux-only
// huge-page advice is in advise_linux.go).

import (
	"fmt"
	"math"
	"os"

	"github.com/edsrzf/mmap-go"
	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f, shared, writable unless
// readOnly, and advises the kernel that access is random (no read-ahead
// of megabytes around a cold probe) and that huge pages are welcome: where
// the kernel and file system keep 2 MiB page-cache folios (Linux 6.16+ on
// ext4, XFS, tmpfs with THP in "madvise" or "always" mode), a probe then
// misses the TLB about once per 2 MiB instead of once per 4 KiB, which
// nearly halves the time of a random probe; a cold fault then reads up to
// 2 MiB. Kernels without it ignore the advice.
func mapFile(f *os.File, size uint64, readOnly bool) (mmap.MMap, error) {
	if size > math.MaxInt {
		return nil, fmt.Errorf("mmapbloom: map %s: %d bytes do not fit this platform's address space: %w", f.Name(), size, ErrTooLarge)
	}
	prot := mmap.RDWR
	if readOnly {
		prot = mmap.RDONLY
	}
	m, err := mmap.MapRegion(f, int(size), prot, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("mmapbloom: map %s (%d bytes): %w", f.Name(), size, err)
	}
	adviseHugePages(m)
	if err := unix.Madvise(m, unix.MADV_RANDOM); err != nil {
		_ = m.Unmap()
		return nil, fmt.Errorf("mmapbloom: madvise %s: %w", f.Name(), err)
	}
	return m, nil
}
