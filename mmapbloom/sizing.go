package mmapbloom

import "github.com/mmapbloom/mmapbloom/mmapbloom/internal/sizing"

// MinBlockedP is the smallest false-positive probability the blocked
// layout is built for. Below it a 512-bit block needs over 35% more bits
// than the classic layout (38.6 against 28.8 bits per key at 1e-6, 62.7
// against 38.3 at 1e-8) and the 32-bit in-block hash sets a floor near
// keys-per-block / 2^32, so Create's default layout is classic there and
// an explicit blocked layout is refused with ErrBadOptions.
const MinBlockedP = sizing.MinBlockedP

// OptimalClassic returns the bits m and hash functions k of a classic
// Bloom filter for n keys at false-positive probability p:
// m = ceil(-n ln p / (ln 2)^2), k = round(ln 2 * m / n), at least 1
// (the v1.1 reference code's formulas with exact constants; Bloom 1970, Broder and
// Mitzenmacher 2004); when k is 1 (p above about 0.5), m is raised to what
// one probe needs, ceil(n / -ln(1 - p)), if that is more. It returns ErrInvalidN, ErrInvalidP, ErrTooLarge
// (m above format.MaxBitsV2) or ErrInvalidK (k above format.MaxK).
func OptimalClassic(n uint64, p float64) (m uint64, k uint32, err error) {
	return sizing.Classic(n, p)
}

// OptimalBlocked returns the bits m (a multiple of 512) and probes k of a
// blocked-512 filter for n keys at false-positive probability p: the
// fewest blocks whose false-positive rate, at the best k, stays at most
// 0.92 p at small p (the margin of internal/sizing.WithMargin) even three standard deviations above
// its mean. For a million keys it takes at most 1.37 times the bits of
// OptimalClassic for the same n and p (the most is at MinBlockedP; about
// 1.05 from p = 1e-2 to 0.5, 1.03 at 0.9), and at large p under one bit
// per key; small filters need a few percent more (see blockedPays). The mean and the
// spread come from the Poisson model of keys per block (internal/sizing.BlockedFPR); the
// spread, the luck of how n keys fall into B blocks, shrinks as 1/sqrt(B),
// so small filters get a few percent more bits and large ones none. Errors:
// ErrInvalidN, ErrInvalidP, ErrBadOptions (p below MinBlockedP),
// ErrTooLarge.
func OptimalBlocked(n uint64, p float64) (m uint64, k uint32, err error) {
	return sizing.Blocked(n, p)
}
