package testkit

import "math"

// PoissonLimit returns the smallest count c that a Poisson variable of
// the given mean exceeds with probability at most tail: P(X > c) <= tail.
//
// It bounds a count of false positives: q keys never added, each testing
// present with probability at most r, give a binomial count of mean at
// most r q, whose upper tail is at most the Poisson tail of the same mean
// from mean+1 on (Anderson and Samuels, 1967). A filter with a random
// seed tests every key against the same bits, so its count is a mixture
// of such binomials over the filter's rate: callers pass a mean with a
// margin above r q (1.1 r q in this repository's tests).
//
// The terms are summed in log space (math.Lgamma), so that a mean of
// thousands does not underflow exp(-mean).
func PoissonLimit(mean, tail float64) int {
	if mean <= 0 {
		return 0
	}
	// Past mean + 40 sd + 40 the tail is below 1e-300: the loop ends
	// there whatever rounding left in cdf.
	last := int(mean + 40*math.Sqrt(mean) + 40)
	cdf := 0.0
	for c := 0; c < last; c++ {
		lg, _ := math.Lgamma(float64(c) + 1)
		cdf += math.Exp(float64(c)*math.Log(mean) - mean - lg)
		if cdf >= 1-tail {
			return c
		}
	}
	return last
}

// FalsePositiveTail is the probability with which a test's bound on a
// count of false positives (PoissonLimit) may fail by chance: one run in
// a million for each bound, so that a test of a few bounds fails by
// chance less than once in 10^5 runs.
const FalsePositiveTail = 1e-6

// FalsePositiveLimit returns the bound on the false positives of q keys
// never added to a filter with a random seed whose rate is at most r:
// PoissonLimit(1.1 r q, FalsePositiveTail).
func FalsePositiveLimit(r float64, q int) int {
	return PoissonLimit(1.1*r*float64(q), FalsePositiveTail)
}
