// Package sizing computes the shape of a filter from its capacity n and
// false-positive probability p: m bits and k hashes for the classic layout
// (the textbook formulas, the v1.1 reference code's constants, the
// murmur2-seeds scheme's rounding), for the blocked512 layout (a Poisson
// model of keys per 512-bit block), the margin of the default layouts,
// and the layers of scalable and windowed sets. Pure functions; errors
// are the sentinels of internal/errs (ErrInvalidN, ErrInvalidP,
// ErrInvalidK, ErrTooLarge, ErrBadOptions), as mmapbloom exports them.
package sizing
