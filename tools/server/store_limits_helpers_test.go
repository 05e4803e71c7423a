package server

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// limitedStore returns a store of dir with the default limits, for tests
// of the load code that need no server.
func limitedStore(t testing.TB, dir string) *filterStore {
	t.Helper()
	lim, err := store.NewLimiter(dir, store.Limits{})
	require.NoError(t, err)
	return &filterStore{dir: dir, lim: lim}
}
