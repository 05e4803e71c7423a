package server

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// Limits bounds what clients can make the server allocate: disk (the
// size of one filter, the free space kept on the data directory's file
// system), layers per set and loads in progress. Every size a client
// names (a capacity and error rate, a dumped header) is checked against
// them before anything is allocated. The zero value of each field means
// its default; docs/limits.md lists them.
type Limits struct {
	// MaxFilterBytes is the largest filter file (header and bit array)
	// a create, a load or a set's new layer may make. Default
	// DefaultMaxFilterBytes (4 GiB).
	MaxFilterBytes uint64

	// DiskReserve is the free space a create, a load or a growth must
	// leave on the data directory's file system (counting the loads in
	// progress at their full size); one that would leave less is refused.
	// Default: the smaller of DefaultDiskReserve (1 GiB) and 5% of the
	// file system's size.
	DiskReserve uint64

	// MaxLayers is the most layers a scaling or windowed set may hold;
	// the add that would need one more is refused. Default
	// DefaultMaxLayers (64).
	MaxLayers int

	// MaxLoads is the most BF.LOADCHUNK loads in progress at once, and
	// MaxClientLoads the most one client may have. Defaults
	// DefaultMaxLoads (64) and DefaultMaxClientLoads (4).
	MaxLoads, MaxClientLoads int

	// FilterFiles is the most file descriptors the open filters may hold
	// (a fixed filter one, a set one per layer and one more); past it the
	// least recently used filters no command uses are closed. Default
	// DefaultFilterFiles (1024); the serve command fits it and
	// --maxclients to RLIMIT_NOFILE (FitDescriptors).
	FilterFiles int
}

// Defaults of Limits.
const (
	DefaultMaxFilterBytes = 4 << 30
	DefaultDiskReserve    = 1 << 30
	DefaultMaxLayers      = 64
	DefaultMaxLoads       = 64
	DefaultMaxClientLoads = 4
	DefaultFilterFiles    = 1024
)

// ErrLimit is wrapped by the errors of a request that a limit of Limits
// refused; the reply names the limit and its flag.
var ErrLimit = errors.New("limit reached")

// limitError is a refusal by a limit: msg is the reply after "ERR ";
// local marks a limit on what this node has now (free disk, loads in
// progress) rather than on the request and the flags (classify).
type limitError struct {
	msg   string
	local bool
}

func (e *limitError) Error() string { return e.msg }
func (e *limitError) Unwrap() error { return ErrLimit }

// limitf is a refusal by a limit of the flags (a size, a count of
// layers) on the request and the key as they are.
func limitf(format string, args ...any) error {
	return &limitError{msg: fmt.Sprintf(format, args...)}
}

// localLimitf is a refusal by what this node has now (free disk, loads
// in progress).
func localLimitf(format string, args ...any) error {
	return &limitError{msg: fmt.Sprintf(format, args...), local: true}
}

// limiter applies Limits and accounts for the loads in progress.
type limiter struct {
	dir string
	Limits
	// free returns the bytes available to unprivileged users on the file
	// system of dir, and its size (unix.Statfs; a test may replace it).
	free func(dir string) (avail, total uint64, err error)

	mu      sync.Mutex
	pending uint64        // bytes of the loads in progress
	loads   int           // loads in progress
	byOwner map[int64]int // loads in progress by client id
}

func newLimiter(dir string, l Limits) (*limiter, error) {
	if l.MaxFilterBytes == 0 {
		l.MaxFilterBytes = DefaultMaxFilterBytes
	}
	if l.MaxLayers <= 0 {
		l.MaxLayers = DefaultMaxLayers
	}
	if l.MaxLoads <= 0 {
		l.MaxLoads = DefaultMaxLoads
	}
	if l.FilterFiles <= 0 {
		l.FilterFiles = DefaultFilterFiles
	}
	if l.MaxClientLoads <= 0 {
		l.MaxClientLoads = DefaultMaxClientLoads
	}
	lim := &limiter{dir: dir, Limits: l, free: statFree, byOwner: map[int64]int{}}
	if l.DiskReserve == 0 {
		_, total, err := lim.free(dir)
		if err != nil {
			return nil, fmt.Errorf("server: free space of %s: %w", dir, err)
		}
		lim.DiskReserve = min(DefaultDiskReserve, total/20)
	}
	return lim, nil
}

// statFree is limiter.free on the real file system.
func statFree(dir string) (avail, total uint64, err error) {
	avail, _, total, err = fsBytes(dir)
	return avail, total, err
}

// fsBytes is the file system of dir (statfs): the bytes available to
// unprivileged users, the bytes in use, and its size.
func fsBytes(dir string) (avail, used, total uint64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, 0, err
	}
	bs := uint64(st.Bsize)
	return st.Bavail * bs, (st.Blocks - st.Bfree) * bs, st.Blocks * bs, nil
}

// room checks that a new file of size bytes is within MaxFilterBytes
// and leaves DiskReserve free beside the loads in progress.
func (l *limiter) room(size uint64) error {
	if size > l.MaxFilterBytes {
		return limitf("filter of %d bytes is larger than the limit of %d bytes per filter (--max-filter-bytes)", size, l.MaxFilterBytes)
	}
	return l.diskRoom(size)
}

// diskRoom checks that size more bytes leave DiskReserve free beside the
// loads in progress.
func (l *limiter) diskRoom(size uint64) error {
	avail, _, err := l.free(l.dir)
	if err != nil {
		return fmt.Errorf("free space of the data directory: %w", err)
	}
	l.mu.Lock()
	pending := l.pending
	l.mu.Unlock()
	if avail < l.DiskReserve || avail-l.DiskReserve < pending || avail-l.DiskReserve-pending < size {
		return localLimitf("filter of %d bytes refused: the data directory's file system has %d bytes free (%d of them promised to loads in progress), and %d must stay free (--disk-reserve)",
			size, avail, pending, l.DiskReserve)
	}
	return nil
}

// fileOf checks a new fixed filter of n keys at p (Create's default
// options) before it is created.
func (l *limiter) fileOf(n uint64, p float64) error {
	size, err := mmapbloom.FileSize(n, p, nil)
	if errors.Is(err, mmapbloom.ErrTooLarge) {
		return limitf("a filter of %d keys at error rate %g is too large for the file format (--max-filter-bytes %d)", n, p, l.MaxFilterBytes)
	}
	if err != nil {
		return err
	}
	return l.room(size)
}

// header checks a new filter file made like hdr (a dump's header, or
// the shape of an earlier create).
func (l *limiter) header(hdr format.Header) error {
	return l.room(format.HeaderSize + hdr.ByteSize)
}

// layer is the sets' mmapbloom.OpenOptions.BeforeLayer: it refuses a set
// past MaxLayers, and a layer file that room refuses.
func (l *limiter) layer(layers int, size uint64) error {
	if layers > l.MaxLayers {
		return limitf("bloom object reached max number of filters (%d layers, --max-layers)", l.MaxLayers)
	}
	return l.room(size)
}

// sets returns sets checking new layers with l when it is the library's
// and has no check of its own.
func (l *limiter) sets(sets Sets) Sets {
	if ls, ok := sets.(LibrarySets); ok && ls.BeforeLayer == nil {
		ls.BeforeLayer = l.layer
		return ls
	}
	return sets
}

// startLoad admits a load of size bytes by client owner: refused past
// MaxLoads, MaxClientLoads, or when room refuses it. The caller ends it
// with endLoad.
func (l *limiter) startLoad(owner int64, size uint64) error {
	if err := l.room(size); err != nil {
		return err
	}
	return l.admitLoad(owner, size)
}

// admitLoad is startLoad once the size is checked.
func (l *limiter) admitLoad(owner int64, size uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.loads >= l.MaxLoads:
		return localLimitf("too many loads in progress (%d, --max-loads)", l.MaxLoads)
	case l.byOwner[owner] >= l.MaxClientLoads:
		return limitf("too many loads in progress by this client (%d, --max-client-loads)", l.MaxClientLoads)
	}
	l.loads++
	l.byOwner[owner]++
	l.pending += size
	return nil
}

// endLoad ends a load admitted by startLoad.
func (l *limiter) endLoad(owner int64, size uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loads--
	l.pending -= size
	if l.byOwner[owner]--; l.byOwner[owner] <= 0 {
		delete(l.byOwner, owner)
	}
}
