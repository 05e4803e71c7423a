package lease

import "errors"

// Errors of the package, wrapped with context. ErrLost, ErrRenewFailed,
// ErrNotEligible and ErrReleased are also the causes Config.OnStepDown
// reports.
var (
	// ErrBadConfig is a bucket or keeper configuration out of range.
	ErrBadConfig = errors.New("lease: bad configuration")
	// ErrHeld is returned by Acquire when another node holds the lease.
	ErrHeld = errors.New("lease: held by another node")
	// ErrLost is returned by Keeper.Confirm when this node does not
	// hold the lease, or finds it expired or taken by another node
	// since the revision it wrote.
	ErrLost = errors.New("lease: lost")
	// ErrRenewFailed is a held lease dropped because no renewal
	// succeeded until its validity ended (the bucket unreachable or
	// too slow): the entry may expire, and another node take it.
	ErrRenewFailed = errors.New("lease: renewal failed")
	// ErrNotEligible is a lease given up because Key.Eligible said this
	// node may not hold it now.
	ErrNotEligible = errors.New("lease: not eligible")
	// ErrReleased is a lease given up by Release (the keeper stops).
	ErrReleased = errors.New("lease: released")
)
