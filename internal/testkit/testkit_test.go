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
