package lease

import "errors"

// Errors of the package, wrapped with context.
var (
	// ErrBadConfig is a bucket or keeper configuration out of range.
	ErrBadConfig = errors.New("lease: bad configuration")
	// ErrHeld is returned by Acquire when another node holds the lease.
	ErrHeld = errors.New("lease: held by another node")
	// ErrLost is returned by Keeper.Confirm when this node does not
	// hold the lease, or finds it expired or taken by another node
	// since the revision it wrote.
	ErrLost = errors.New("lease: lost")
)
