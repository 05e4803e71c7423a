package server

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// limitedStore returns a store of dir with the default limits, for tests
// of the load code that need no server.
func limitedStore(t testing.TB, dir string) *store {
	t.Helper()
	lim, err := newLimiter(dir, Limits{})
	require.NoError(t, err)
	return &store{dir: dir, lim: lim}
}
