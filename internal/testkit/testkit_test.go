package testkit

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Testdata names files of the repository's testdata/ directory, which
// are there in a clone.
func TestTestdata(t *testing.T) {
	for _, rel := range []string{"vectors/README.md", "vectors/seed003/urls-n10000-p0.0001-seed0.bin", "phishing-sample.txt.gz"} {
		require.FileExists(t, Testdata(rel))
	}
}

// PoissonLimit gives the quantiles of Poisson tables: P(X > 4) = 0.0037
// and P(X > 5) = 0.00059 for mean 1; P(X > 20) = 0.0016 and
// P(X > 21) = 0.00070 for mean 10. A mean of thousands does not
// underflow.
func TestPoissonLimit(t *testing.T) {
	for _, tt := range []struct {
		mean, tail float64
		want       int
	}{{1, 0.001, 5}, {10, 0.001, 21}, {0, 0.001, 0}, {220, 1e-6, 294}, {5000, 1e-6, 5340}} {
		require.Equal(t, tt.want, PoissonLimit(tt.mean, tt.tail), "mean %g tail %g", tt.mean, tt.tail)
	}
}

