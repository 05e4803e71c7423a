package mmapbloom

import (
	"fmt"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/sizing"
)

// FileSize returns the size in bytes of the file Create(path, n, p, opts)
// would make (the 64-byte header and the bit array), without creating
// anything, so that a caller can refuse a filter too large before any
// disk space is taken. Errors: those of Create's sizing (ErrInvalidN,
// ErrInvalidP, ErrTooLarge).
func FileSize(n uint64, p float64, opts *CreateOptions) (uint64, error) {
	if err := sizing.CheckNP(n, p); err != nil {
		return 0, fmt.Errorf("mmapbloom: size for n = %d, p = %v: %w", n, p, err)
	}
	o, target := withDefaults(opts, n, p)
	m, _, err := o.size(n, target)
	if err != nil {
		return 0, fmt.Errorf("mmapbloom: size for n = %d, p = %v: %w", n, p, err)
	}
	if m > format.MaxBitsV2 {
		return 0, fmt.Errorf("mmapbloom: size for n = %d, p = %v: m = %d: %w", n, p, m, ErrTooLarge)
	}
	return format.HeaderSize + format.ByteSize(o.Format, m), nil
}
