package lease

import "errors"

// Errors of the package, wrapped with context.
var (
	// ErrBadConfig is a bucket or keeper configuration out of range.
	ErrBadConfig = errors.New("lease: bad configuration")
	// ErrHeld is returned by Acquire when another node holds the lease.
	ErrHeld = errors.New("lease: held by another node")
	// ErrLost is returned by Renew when the lease expired or another
	// node took it since the revision the holder knows.
	ErrLost = errors.New("lease: lost")
)
