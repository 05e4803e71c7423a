package mmapbloom

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel/kerneltest"
)

// TestAndAdd reports a key new exactly when one of its bits was clear:
// with every bit of the key set by hand but one (each one in turn), it
// answers new and counts one add; with every bit set, present and counts
// none. TestAndAddBatch answers the same. One process, no races, every
// kernel.
func TestTestAndAddSeesEveryClearBit(t *testing.T) {
	layouts := append(slices.Clone(batchLayouts), &CreateOptions{Layout: format.LayoutClassic, Scheme: format.SchemeMurmurDouble})
	for _, opts := range layouts {
		o := *opts
		o.Seed, o.FixedSeed = 3, true
		t.Run(layoutName(&o), func(t *testing.T) {
			kerneltest.ForEach(t, func(t *testing.T) { testAndAddEveryClearBit(t, &o) })
		})
	}
}

// testAndAddEveryClearBit runs TestTestAndAddSeesEveryClearBit on one
// layout with the active kernel.
func testAndAddEveryClearBit(t *testing.T, o *CreateOptions) {
	f := newTestFilter(t, 1000, 0.01, o)
	calls := map[string]func(key []byte) bool{
		"TestAndAdd": func(key []byte) bool {
			present, err := f.TestAndAdd(key)
			require.NoError(t, err)
			return present
		},
		"TestAndAddBatch": func(key []byte) bool {
			present := []bool{false}
			require.NoError(t, f.TestAndAddBatch([][]byte{key}, present))
			return present[0]
		},
	}
	for name, testAndAdd := range calls {
		for _, key := range keysOf(4, 20) {
			locs := f.Locations(key)
			for j, clear := range locs {
				setOnly(f, locs, clear)
				before := countOf(t, f)
				require.False(t, testAndAdd(key), "%s %q: position %d (bit %d) was clear", name, key, j, clear)
				require.Equal(t, before+1, countOf(t, f), "a new key is counted")
				require.True(t, testAndAdd(key), "%s %q: all bits set now", name, key)
				require.Equal(t, before+1, countOf(t, f), "a present key is not counted")
			}
			setOnly(f, locs, f.M()) // every bit of the key
			before := countOf(t, f)
			require.True(t, testAndAdd(key), "%s %q: every bit was set", name, key)
			require.Equal(t, before, countOf(t, f))
		}
	}
}

// setOnly clears the array, then sets every position of locs but clear.
func setOnly(f *Filter, locs []uint64, clear uint64) {
	for i := range f.words {
		f.words[i] = 0
	}
	for _, p := range locs {
		if p != clear {
			f.words[p>>6] |= wordMask(p)
		}
	}
}

func countOf(t *testing.T, f *Filter) uint64 {
	t.Helper()
	c, err := f.Count()
	require.NoError(t, err)
	return c
}
