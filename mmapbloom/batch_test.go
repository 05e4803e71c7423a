package mmapbloom

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zeebo/xxh3"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel/kerneltest"
)

var batchLayouts = []*CreateOptions{
	{Layout: format.LayoutBlocked512},
	{Layout: format.LayoutClassic},
	{Scheme: format.SchemeMurmurSeeds},
	{Format: format.V1},
}

// keysOf returns n URL-like keys of a family, stored one after another
// in one buffer as keys read from a file are.
func keysOf(family byte, n int) [][]byte { return keysFrom(family, 0, n) }

// keysFrom returns the n keys of a family numbered from first on.
func keysFrom(family byte, first, n int) [][]byte {
	keys := make([][]byte, n)
	var buf []byte
	var scratch [96]byte
	for i := range keys {
		k := urlKey(scratch[:], family, uint64(first+i))
		if len(buf)+len(k) > cap(buf) {
			buf = make([]byte, 0, 1<<24)
		}
		start := len(buf)
		buf = append(buf, k...)
		keys[i] = buf[start:len(buf):len(buf)]
	}
	return keys
}

// TestBatchMatchesSingle checks that every batch call, with every kernel,
// gives the answers and the file of the single-key calls, in key order
// (a key repeated inside a batch is new only the first time).
func TestBatchMatchesSingle(t *testing.T) {
	added := keysOf(0, 3000)
	added = append(added, added[:100]...) // repeats inside one batch
	queries := append(keysOf(1, 20000), added...)
	for _, opts := range batchLayouts {
		o := *opts
		o.Seed, o.FixedSeed = 9, true
		t.Run(fmt.Sprintf("%v-%v-%v", o.Format, o.Layout, o.Scheme), func(t *testing.T) {
			kerneltest.ForEach(t, func(t *testing.T) {
				single := newTestFilter(t, 2000, 0.01, &o)
				batch := newTestFilter(t, 2000, 0.01, &o)
				wantNew := make([]bool, len(added))
				for i, key := range added {
					var err error
					wantNew[i], err = single.TestAndAdd(key)
					require.NoError(t, err)
				}
				gotNew := make([]bool, len(added))
				require.NoError(t, batch.TestAndAddBatch(added, gotNew))
				require.Equal(t, wantNew, gotNew)

				want := make([]bool, len(queries))
				for i, key := range queries {
					var err error
					want[i], err = single.Test(key)
					require.NoError(t, err)
				}
				got := make([]bool, len(queries))
				require.NoError(t, batch.TestBatch(queries, got))
				require.Equal(t, want, got)
				require.Contains(t, got, false)

				require.NoError(t, batch.AddBatch(queries))
				require.NoError(t, batch.TestBatch(queries, got))
				require.NotContains(t, got, false)
				for _, key := range queries {
					require.NoError(t, single.Add(key))
				}
				c, err := batch.Count()
				require.NoError(t, err)
				sc, err := single.Count()
				require.NoError(t, err)
				require.Equal(t, sc, c, "AddBatch and Add count alike")
				if !batch.countCalls { // v1.1 counts Add calls, TestAndAdd's new keys
					require.Equal(t, testkit.SequentialCount(batch, batch.countCalls, append(slices.Clone(added), queries...)), c)
				}
			})
		})
	}
}

func TestBatchShortResults(t *testing.T) {
	f := newTestFilter(t, 100, 0.01, nil)
	keys := keysOf(0, 3)
	require.ErrorIs(t, f.TestBatch(keys, make([]bool, 2)), ErrBadOptions)
	require.ErrorIs(t, f.TestAndAddBatch(keys, make([]bool, 2)), ErrBadOptions)
	require.ErrorIs(t, f.TestBatchHashes(keys, make([]bool, 3), make([]uint64, 2)), ErrBadOptions)
	require.ErrorIs(t, f.TestBatchHashes(keys, make([]bool, 2), make([]uint64, 3)), ErrBadOptions)
	require.ErrorIs(t, f.TestAndAddBatchHashes(keys, make([]uint64, 2), make([]bool, 3)), ErrBadOptions)
	require.ErrorIs(t, f.TestAndAddBatchHashes(keys, make([]uint64, 3), make([]bool, 2)), ErrBadOptions)
	require.NoError(t, f.TestBatch(nil, nil))
}

// TestBatchHashesMatch checks that TestBatchHashes answers as TestBatch
// and sets each key's xxh3 hash where the filter hashes keys to one value
// (leaving hashes as they were elsewhere), and that
// TestAndAddBatchHashes on some of the keys with those hashes answers as
// TestAndAddBatch and leaves the same bits and count, for every layout
// and kernel: dedup's test, then claim, of the new keys of a batch.
func TestBatchHashesMatch(t *testing.T) {
	added, fresh := keysOf(0, 2000), keysOf(1, 3000)
	keys := append(slices.Clone(fresh[:1500]), added[:500]...)
	keys = append(keys, fresh[:100]...) // repeats
	for _, opts := range batchLayouts {
		o := *opts
		o.Seed, o.FixedSeed = 9, true
		t.Run(fmt.Sprintf("%v-%v-%v", o.Format, o.Layout, o.Scheme), func(t *testing.T) {
			kerneltest.ForEach(t, func(t *testing.T) {
				plain, hashed := newTestFilter(t, 4000, 0.01, &o), newTestFilter(t, 4000, 0.01, &o)
				for _, f := range []*Filter{plain, hashed} {
					require.NoError(t, f.AddBatch(added))
				}
				want, got := make([]bool, len(keys)), make([]bool, len(keys))
				hashes := make([]uint64, len(keys))
				for i := range hashes {
					hashes[i] = 7 // kept where the filter takes no hashes
				}
				require.NoError(t, plain.TestBatch(keys, want))
				require.NoError(t, hashed.TestBatchHashes(keys, got, hashes))
				require.Equal(t, want, got)
				for i, key := range keys {
					wantHash := uint64(7)
					if hashed.hashable(9) {
						wantHash = xxh3.HashSeed(key, 9)
					}
					require.Equal(t, wantHash, hashes[i], "key %d", i)
				}
				var newKeys [][]byte
				var newHashes []uint64
				for i, present := range got {
					if !present {
						newKeys, newHashes = append(newKeys, keys[i]), append(newHashes, hashes[i])
					}
				}
				require.Greater(t, len(newKeys), 1000)
				want, got = want[:len(newKeys)], got[:len(newKeys)]
				require.NoError(t, plain.TestAndAddBatch(newKeys, want))
				require.NoError(t, hashed.TestAndAddBatchHashes(newKeys, newHashes, got))
				require.Equal(t, want, got)
				require.Equal(t, plain.words, hashed.words)
				pc, err := plain.Count()
				require.NoError(t, err)
				hc, err := hashed.Count()
				require.NoError(t, err)
				require.Equal(t, pc, hc)
			})
		})
	}
}
