package mmapbloom

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/mapping"
)

// OpenOptions tunes Open. A nil *OpenOptions means the defaults.
type OpenOptions struct {
	// ReadOnly opens and maps the file read-only: writing calls fail with
	// ErrReadOnly and the file is never written. Needed for files this
	// process may not write (mode 0444, another user's). Default false.
	ReadOnly bool

	// ExactCount adds every add call's adds to the header count at once
	// (a batch call's at its end): one locked add per call on the header's
	// cache line, which every process adding to the file then passes back
	// and forth, so that the count in the file is exact between calls, also
	// after a crash. Default false: each handle adds its adds to the header
	// in groups (see Count), and two processes adding single keys run about
	// twice as fast as one (measured 2.0-2.1x; 1.5-1.8x when every add
	// updated the header).
	ExactCount bool

	// Now is the clock of a windowed set (OpenSet, CreateSet): it decides
	// which window is current. Default nil: time.Now. Filters ignore it.
	Now func() time.Time

	// HugePages asks the kernel for transparent huge pages on the mapping
	// (MADV_HUGEPAGE). Where the kernel and file system keep 2 MiB
	// page-cache folios (Linux 6.16+ on ext4, XFS, tmpfs, with THP in
	// "madvise" or "always" mode) a probe of a resident file then misses
	// the TLB once per 2 MiB instead of once per 4 KiB; but every fault of
	// a page not yet in memory reads up to 2 MiB from disk instead of 4
	// KiB. Worth it for a long-lived handle on a file that is, or will
	// soon be, mostly in the page cache and serves many batch calls;
	// BENCHMARKS.md ("Cold from disk") has the measurements. Default
	// false: a cold single probe reads about one page; but a read-only
	// handle on a file whose pages are resident (a sample of 32 pages,
	// mincore) and a writable handle on a filter that holds no key yet
	// (one being built) get huge pages anyway, as neither pays their
	// cost. Kernels without THP ignore it.
	HugePages bool

	// BeforeLayer, when set, is called by a set handle before it creates
	// a layer file (a scalable set or a window grows, a windowed set
	// rotates), under the set's LOCK, with the number of layers the set
	// will then hold and the new file's size in bytes (FileSize); an
	// error refuses the layer, and the add that needed it returns the
	// error wrapped. So a caller bounds the layers of a set and the disk
	// its growth takes. Filters ignore it. Default nil: no check.
	BeforeLayer func(layers int, size uint64) error
}

// Open maps the filter file at path. It reads and validates the 64-byte
// header (magic, version, checksum, layout, scheme, k, m against the byte
// size, the file long enough for the bit array) and maps the file; it reads
// nothing of the bit array, so it takes the same time for any filter size.
// The file is held with a shared advisory lock until Close.
//
// Errors: the os error (fs.ErrNotExist, fs.ErrPermission), a format
// validation error (format.ErrBadMagic, format.ErrTruncated, ...), ErrInUse
// when another process holds the file exclusively, ErrTooLarge when the
// file does not fit this platform's address space.
func Open(path string, opts *OpenOptions) (*Filter, error) {
	var o OpenOptions
	if opts != nil {
		o = *opts
	}
	readOnly := o.ReadOnly
	flag := os.O_RDWR
	if readOnly {
		flag = os.O_RDONLY
	}
	file, err := mapping.OpenFile(path, flag, 0)
	if err != nil {
		if !readOnly && errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("mmapbloom: open for writing (open read-only to query it): %w", err)
		}
		return nil, fmt.Errorf("mmapbloom: %w", err)
	}
	f, err := openFile(file, o)
	if err != nil {
		_ = file.Close()
		return nil, err
	}
	if !readOnly {
		if err := mapping.Allocate(f.file, f.data, f.guardAll); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	return f, nil
}

// openFile locks, validates and maps an open file.
func openFile(file *os.File, opts OpenOptions) (*Filter, error) {
	if err := mapping.LockShared(file); err != nil {
		return nil, err
	}
	hdr, err := readHeader(file)
	if err != nil {
		return nil, err
	}
	data, err := mapping.Map(file, format.HeaderSize+hdr.ByteSize, opts.ReadOnly, opts.HugePages || building(hdr, opts))
	if err != nil {
		return nil, err
	}
	f, err := newFilter(file, data, hdr, opts)
	if err != nil {
		_ = data.Unmap()
		return nil, err
	}
	return f, nil
}

// building reports whether a handle is opened to build a filter: writable
// on a filter that holds no key yet. Its mapping gets huge pages (see
// OpenOptions.HugePages): the faults of an empty file read nothing worth
// reading (zeros, or unwritten blocks that read none), and a build that
// fills the array soon dirties every page anyway (BENCHMARKS.md, "Speed
// at scale": the classic build of 50M keys).
func building(hdr format.Header, opts OpenOptions) bool {
	return !opts.ReadOnly && hdr.Count == 0
}

// readHeader reads and validates the header of file with plain reads, so
// that a short file is refused before it is mapped (touching a mapped page
// past the end of a file raises SIGBUS).
func readHeader(file *os.File) (format.Header, error) {
	st, err := file.Stat()
	if err != nil {
		return format.Header{}, fmt.Errorf("mmapbloom: %w", err)
	}
	if !st.Mode().IsRegular() {
		return format.Header{}, fmt.Errorf("mmapbloom: %s: not a regular file: %w", file.Name(), fs.ErrInvalid)
	}
	var buf [format.HeaderSize]byte
	if n, err := file.ReadAt(buf[:], 0); n < len(buf) {
		return format.Header{}, fmt.Errorf("mmapbloom: %s: %d bytes (%v): %w", file.Name(), st.Size(), err, format.ErrShortHeader)
	}
	hdr, err := format.Decode(buf[:])
	if err == nil {
		err = hdr.CheckFileSize(st.Size())
	}
	if err != nil {
		return format.Header{}, fmt.Errorf("mmapbloom: %s: %w", file.Name(), err)
	}
	return hdr, nil
}

// Close adds this handle's pending adds to the header count (see Count),
// unmaps the file and closes it, releasing the lock. Data written stays in
// the page cache and reaches the disk in the kernel's time; call Sync
// first to make it durable. Calls that use the file fail with ErrClosed
// after Close (Header, M, K, N, P, Path and Locations still answer from
// the header read at open); Close itself may be called again and returns
// nil.
//
// Test and TestBatch take no lock, so one may still be running on another
// goroutine: it answers from the file if it ends before Close marks the
// handle closed (after waiting for the calls that hold the lock), and
// otherwise returns ErrClosed (see read in guard.go).
func (f *Filter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Load() {
		return nil
	}
	if !f.readOnly {
		// A Filter whose file changed under it has no count to publish.
		_ = f.guarded(false, func() error { f.publishCount(); return nil })
	}
	f.closed.Store(true)
	err := f.data.Unmap()
	// No pointer into the unmapped range may outlive Close: the Go heap
	// may be placed there later, and the garbage collector stops the
	// process on a pointer into an unused part of it. A Test racing Close
	// may read these fields half-written; read turns what that causes into
	// ErrClosed.
	f.data, f.head, f.words, f.last, f.count32 = nil, nil, nil, nil, nil
	return errors.Join(err, f.file.Close())
}

// Sync writes the mapped bits and header to the disk and waits for it
// (msync with MS_SYNC, then fsync). Once it returns, the keys of every add
// that returned before Sync was called survive a crash of the machine or
// a power loss; adds running while Sync runs may or may not. Without Sync
// the kernel writes dirty pages back in its own time (about 30 seconds on
// Linux by default). After a Sync that failed (the disk answered EIO or
// ENOSPC), the next one writes every page of the file again, so that it
// keeps the promise for every add made before it whatever the failed one
// left unwritten. Errors: ErrClosed, ErrFileChanged, the msync or fsync
// error.
func (f *Filter) Sync() error {
	return f.run(false, false, f.flush)
}
