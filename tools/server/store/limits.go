package store

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

// LimitError is a refusal by a limit of Limits. It wraps ErrLimit; its
// Error is the reply after "ERR ", naming the limit and its flag.
type LimitError struct {
	msg   string
	local bool
}

// Error is the refusal's text: the limit, its value and its flag.
func (e *LimitError) Error() string { return e.msg }

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// Local reports whether the refusal is by what this node has now (free
// disk, loads in progress) rather than by the flags on the request and
// the key as they are (--max-filter-bytes, --max-layers,
// --max-client-loads): a node with the same flags refuses the same
// request in the second case only.
func (e *LimitError) Local() bool { return e.local }

// limitf is a refusal by a limit of the flags (a size, a count of
// layers) on the request and the key as they are.
func limitf(format string, args ...any) error {
	return &LimitError{msg: fmt.Sprintf(format, args...)}
}

// localLimitf is a refusal by what this node has now (free disk, loads
// in progress).
func localLimitf(format string, args ...any) error {
	return &LimitError{msg: fmt.Sprintf(format, args...), local: true}
}

// Limiter applies Limits and accounts for the loads in progress. Its
// methods are safe for concurrent use; each refusal is a *LimitError.
type Limiter struct {
	dir string
	// Limits are the limits applied, every default filled in.
	Limits
	// Free returns the bytes available to unprivileged users on the file
	// system of dir, and its size (statfs). A test may replace it before
	// the Limiter is used.
	Free func(dir string) (avail, total uint64, err error)

	mu      sync.Mutex
	pending uint64        // bytes of the loads in progress
	loads   int           // loads in progress
	byOwner map[int64]int // loads in progress by client id
}

// NewLimiter applies l, its zero fields replaced by their defaults, to
// the data directory dir. Errors: the statfs of dir's file system (whose
// size the default DiskReserve depends on).
func NewLimiter(dir string, l Limits) (*Limiter, error) {
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
	lim := &Limiter{dir: dir, Limits: l, Free: statFree, byOwner: map[int64]int{}}
	if l.DiskReserve == 0 {
		_, total, err := lim.Free(dir)
		if err != nil {
			return nil, fmt.Errorf("store: free space of %s: %w", dir, err)
		}
		lim.DiskReserve = min(DefaultDiskReserve, total/20)
	}
	return lim, nil
}

// statFree is Limiter.Free on the real file system.
func statFree(dir string) (avail, total uint64, err error) {
	avail, _, total, err = FSBytes(dir)
	return avail, total, err
}

// FSBytes is the file system of dir (statfs): the bytes available to
// unprivileged users, the bytes in use, and its size. Errors: statfs's.
func FSBytes(dir string) (avail, used, total uint64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, 0, err
	}
	bs := uint64(st.Bsize)
	return st.Bavail * bs, (st.Blocks - st.Bfree) * bs, st.Blocks * bs, nil
}

// Room checks that a new file of size bytes is within MaxFilterBytes
// (FileSize) and leaves DiskReserve free beside the loads in progress
// (DiskRoom).
func (l *Limiter) Room(size uint64) error {
	if err := l.FileSize(size); err != nil {
		return err
	}
	return l.DiskRoom(size)
}

// FileSize checks one filter file of size bytes (header and bit array)
// against MaxFilterBytes.
func (l *Limiter) FileSize(size uint64) error {
	if size > l.MaxFilterBytes {
		return limitf("filter of %d bytes is larger than the limit of %d bytes per filter (--max-filter-bytes)", size, l.MaxFilterBytes)
	}
	return nil
}

// LayerCount checks a set of layers layers against MaxLayers.
func (l *Limiter) LayerCount(layers int) error {
	if layers > l.MaxLayers {
		return limitf("bloom object reached max number of filters (%d layers, --max-layers)", l.MaxLayers)
	}
	return nil
}

// DiskRoom checks that size more bytes leave DiskReserve free beside the
// loads in progress (a local refusal). Errors: also Free's, wrapped.
func (l *Limiter) DiskRoom(size uint64) error {
	avail, _, err := l.Free(l.dir)
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

// FileOf checks a new fixed filter of n keys at p (Create's default
// options) before it is created, as Room. Errors: also the library's
// sizing errors (mmapbloom.ErrInvalidN, ErrInvalidP).
func (l *Limiter) FileOf(n uint64, p float64) error {
	size, err := mmapbloom.FileSize(n, p, nil)
	if errors.Is(err, mmapbloom.ErrTooLarge) {
		return limitf("a filter of %d keys at error rate %g is too large for the file format (--max-filter-bytes %d)", n, p, l.MaxFilterBytes)
	}
	if err != nil {
		return err
	}
	return l.Room(size)
}

// Header checks a new filter file made like hdr (a dump's header, or
// the shape of an earlier create), as Room.
func (l *Limiter) Header(hdr format.Header) error {
	return l.Room(format.HeaderSize + hdr.ByteSize)
}

// Layer is the sets' mmapbloom.OpenOptions.BeforeLayer: it refuses a set
// past MaxLayers (LayerCount), and a layer file of size bytes that Room
// refuses.
func (l *Limiter) Layer(layers int, size uint64) error {
	if err := l.LayerCount(layers); err != nil {
		return err
	}
	return l.Room(size)
}

// Sets returns sets checking new layers with Layer when it is the
// library's (LibrarySets) and has no check of its own, else sets.
func (l *Limiter) Sets(sets Sets) Sets {
	if ls, ok := sets.(LibrarySets); ok && ls.BeforeLayer == nil {
		ls.BeforeLayer = l.Layer
		return ls
	}
	return sets
}

// StartLoad admits a load of a file of size bytes by client owner (a
// client id): refused past MaxLoads, MaxClientLoads, or when Room
// refuses it. The caller ends it with EndLoad.
func (l *Limiter) StartLoad(owner int64, size uint64) error {
	if err := l.Room(size); err != nil {
		return err
	}
	return l.AdmitLoad(owner, size)
}

// AdmitLoad is StartLoad once the size (of one file or several) is
// checked: it counts the load and its size bytes, promised to it, until
// EndLoad.
func (l *Limiter) AdmitLoad(owner int64, size uint64) error {
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

// EndLoad ends a load of size bytes by owner admitted by StartLoad or
// AdmitLoad.
func (l *Limiter) EndLoad(owner int64, size uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loads--
	l.pending -= size
	if l.byOwner[owner]--; l.byOwner[owner] <= 0 {
		delete(l.byOwner, owner)
	}
}
