package peers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/bench/keys"
)

// TestLibs checks every library the same way: no false negatives after
// Fill, a false-positive rate near p, single and batch answers that agree,
// and an empty filter after Reset.
func TestLibs(t *testing.T) {
	const n, p = 20_000, 1e-3
	present := keys.Generate(keys.Present, 0, n)
	absent := keys.Generate(keys.Absent, 0, 10*n)
	for _, lib := range Libs {
		t.Run(lib.Name, func(t *testing.T) {
			f, err := lib.New(t.TempDir(), n, p)
			require.NoError(t, err)
			defer func() { require.NoError(t, f.Close()) }()
			assert.Greater(t, f.Bytes(), uint64(n)) // at least 8 bits a key

			require.NoError(t, Fill(f, present.Keys()))
			rate, err := PositiveRate(f, present.Keys())
			require.NoError(t, err)
			assert.Equal(t, 1.0, rate, "false negatives")
			fpr, err := PositiveRate(f, absent.Keys())
			require.NoError(t, err)
			assert.Less(t, fpr, 3*p)

			checkSingleMatchesBatch(t, f, absent.Keys()[:3*BatchSize+7])

			require.NoError(t, f.Reset())
			rate, err = PositiveRate(f, present.Keys())
			require.NoError(t, err)
			assert.Zero(t, rate, "keys left after Reset")
		})
	}
}

// checkSingleMatchesBatch checks that Test and PositiveRate's batch path
// count the same hits, when f has batch calls.
func checkSingleMatchesBatch(t *testing.T, f Filter, queries [][]byte) {
	t.Helper()
	hits := 0
	for _, q := range queries {
		ok, err := f.Test(q)
		require.NoError(t, err)
		if ok {
			hits++
		}
	}
	rate, err := PositiveRate(f, queries)
	require.NoError(t, err)
	assert.InDelta(t, float64(hits)/float64(len(queries)), rate, 1e-12)
}

// TestStoreIsBatcher checks which libraries have batch calls: exactly the
// two layouts of this store.
func TestStoreIsBatcher(t *testing.T) {
	for _, lib := range Libs {
		f, err := lib.New(t.TempDir(), 1000, 1e-2)
		require.NoError(t, err)
		_, ok := f.(Batcher)
		assert.Equal(t, lib.Name == "mmapbloom-blocked" || lib.Name == "mmapbloom-classic", ok, lib.Name)
		require.NoError(t, f.Close())
	}
}

func TestPositiveRateEmpty(t *testing.T) {
	f, err := Libs[0].New(t.TempDir(), 10, 0.01)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	rate, err := PositiveRate(f, nil)
	require.NoError(t, err)
	assert.Zero(t, rate)
}
