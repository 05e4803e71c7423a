package sizing

import (
	"fmt"
	"math"
	"math/big"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/errs"
)

// ln2 and ln2Squared are the exact constants of the optimal-size formulas.
const (
	ln2        = math.Ln2
	ln2Squared = math.Ln2 * math.Ln2
)

// Constants that the v1.1 reference code's _CalcBloomFilterParam writes
// out by hand; v1.1 sizing uses them so that files are byte-identical to
// that code's.
const (
	doc003Ln2Squared = 0.480453
	doc003Ln2        = 0.69314
)

// CheckNP validates a capacity and a false-positive probability.
func CheckNP(n uint64, p float64) error {
	if n == 0 {
		return fmt.Errorf("n = 0: %w", errs.ErrInvalidN)
	}
	if math.IsNaN(p) || math.IsInf(p, 0) || p <= 0 || p >= 1 {
		return fmt.Errorf("p = %v: %w", p, errs.ErrInvalidP)
	}
	return nil
}

// Classic returns the bits m and hash functions k of a classic
// Bloom filter for n keys at false-positive probability p:
// m = ceil(-n ln p / (ln 2)^2), k = round(ln 2 * m / n), at least 1
// (the v1.1 reference code's formulas with exact constants; Bloom 1970, Broder and
// Mitzenmacher 2004); when k is 1 (p above about 0.5), m is raised to what
// one probe needs, ceil(n / -ln(1 - p)), if that is more. It returns errs.ErrInvalidN, errs.ErrInvalidP, errs.ErrTooLarge
// (m above format.MaxBitsV2) or errs.ErrInvalidK (k above format.MaxK).
func Classic(n uint64, p float64) (m uint64, k uint32, err error) {
	if err := CheckNP(n, p); err != nil {
		return 0, 0, err
	}
	mf := math.Ceil(-float64(n) * math.Log(p) / ln2Squared)
	if mf > format.MaxBitsV2 {
		return 0, 0, fmt.Errorf("n = %d, p = %v needs %.0f bits, above %d: %w", n, p, mf, uint64(format.MaxBitsV2), errs.ErrTooLarge)
	}
	m = uint64(mf)
	k, err = roundK(ln2 * float64(m) / float64(n))
	if err == nil && k == 1 {
		m = max(m, OneProbeBits(n, p))
	}
	return m, k, err
}

// OneProbeBits returns the bits a one-probe filter needs for n keys at
// rate p: 1 - e^(-n/m) <= p, m = ceil(n / -ln(1 - p)). Above p = 0.5 the
// optimal k of the formulas is below 1, and a filter of their m with
// k = 1 would answer falsely far more often than p (at p = 0.99, for 99.99%
// of keys never added).
func OneProbeBits(n uint64, p float64) uint64 {
	return uint64(math.Ceil(float64(n) / -math.Log1p(-p)))
}

// roundK rounds a real k to the nearest integer in [1, format.MaxK].
func roundK(kf float64) (uint32, error) {
	k := math.Max(1, math.Round(kf))
	if k > format.MaxK {
		return 0, fmt.Errorf("k = %.0f, above %d: %w", k, format.MaxK, errs.ErrInvalidK)
	}
	return uint32(k), nil
}

// V1 is the v1.1 reference code's _CalcBloomFilterParam, exactly:
// m = ceil(-n ln p / 0.480453), then m = m - m%64 + 64; k = round(0.69314 m / n).
// Its results must fit the v1.1 header's 32-bit fields.
func V1(n uint64, p float64) (m uint64, k uint32, err error) {
	if err := CheckNP(n, p); err != nil {
		return 0, 0, err
	}
	if n > math.MaxUint32 {
		return 0, 0, fmt.Errorf("n = %d does not fit format v1.1 (32-bit); use v2: %w", n, errs.ErrTooLarge)
	}
	mf := math.Ceil(-float64(n) * math.Log(p) / doc003Ln2Squared)
	if mf > math.MaxUint32-64 {
		return 0, 0, fmt.Errorf("n = %d, p = %v needs %.0f bits, format v1.1 holds below 2^32; use v2: %w", n, p, mf, errs.ErrTooLarge)
	}
	m = uint64(mf)
	m = m - m%64 + 64
	k, err = roundK(doc003Ln2 * float64(m) / float64(n))
	return m, k, err
}

// Seeds is the murmur2-seeds C reference filter's init_bloomfilter
// sizing, exactly:
// m = floor(-(ln p) n / (ln 2)^2) with p held as a 32-bit float, then the
// smallest prime >= m when prime is set; k = ceil(ln 2 * m / n).
func Seeds(n uint64, p float64, prime bool) (m uint64, k uint32, err error) {
	if err := CheckNP(n, p); err != nil {
		return 0, 0, err
	}
	p32 := float64(float32(p))
	if p32 <= 0 || p32 >= 1 {
		return 0, 0, fmt.Errorf("p = %v is not in (0, 1) as a 32-bit float: %w", p, errs.ErrInvalidP)
	}
	mf := math.Floor(-(math.Log(p32) * float64(n)) / ln2Squared)
	if mf > format.MaxBitsV2 {
		return 0, 0, fmt.Errorf("n = %d, p = %v needs %.0f bits, above %d: %w", n, p, mf, uint64(format.MaxBitsV2), errs.ErrTooLarge)
	}
	m = max(uint64(mf), 1)
	if prime {
		m = NextPrime(m)
	}
	kf := math.Ceil(ln2 * float64(m) / float64(n))
	if kf > format.MaxK {
		return 0, 0, fmt.Errorf("k = %.0f, above %d: %w", kf, format.MaxK, errs.ErrInvalidK)
	}
	return m, uint32(max(kf, 1)), nil
}

// NextPrime returns the smallest prime >= x (x >= 2 assumed; 1 gives 2).
// Primality is tested with math/big's Baillie-PSW test, exact below 2^64.
func NextPrime(x uint64) uint64 {
	var b big.Int
	for x = max(x, 2); ; x++ {
		if b.SetUint64(x).ProbablyPrime(0) {
			return x
		}
	}
}
