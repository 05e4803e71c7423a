package mmapbloom

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

// Merge ORs every word of every source into the filter, in every layout
// and at odd sizes (an odd number of blocks or words, m not a multiple of
// 64): the array after merging three sources into a filter is the OR of
// the four arrays, and every key added to a source tests present in it.
func TestMergeEveryWord(t *testing.T) {
	for _, tc := range []struct {
		m    uint64
		opts CreateOptions
	}{
		{hashing.BlockBits, CreateOptions{Layout: format.LayoutBlocked512}},
		{7 * hashing.BlockBits, CreateOptions{Layout: format.LayoutBlocked512}},
		{1001, CreateOptions{Layout: format.LayoutClassic}},
		{64*9 + 1, CreateOptions{Layout: format.LayoutClassic, Scheme: format.SchemeMurmurDouble}},
		{997, CreateOptions{Scheme: format.SchemeMurmurSeeds}},
		{64 * 13, CreateOptions{Format: format.V1}},
	} {
		o := tc.opts
		o.Seed, o.FixedSeed = 5, true
		t.Run(fmt.Sprintf("%s/m=%d", layoutName(&o), tc.m), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.m, 1))
			filters := make([]*Filter, 4) // filters[0] is merged into
			var want []uint64
			for i := range filters {
				f, err := CreateWithMK(filepath.Join(t.TempDir(), fmt.Sprintf("%d.bloom", i)), tc.m, 3, &o)
				require.NoError(t, err)
				watch(t, f)
				fillRandom(f, rng)
				keys := keysOf(byte(i), 10)
				require.NoError(t, f.AddBatch(keys))
				want = append(want, make([]uint64, len(f.words)-len(want))...)
				for w, v := range f.words {
					want[w] |= v
				}
				filters[i] = f
			}
			for _, src := range filters[1:] {
				require.NoError(t, filters[0].Merge(src))
			}
			require.Equal(t, want, filters[0].words, "the OR of every word of every source")
			for i := range filters {
				got := make([]bool, 10)
				require.NoError(t, filters[0].TestBatch(keysOf(byte(i), 10), got))
				require.True(t, allTrue(got), "keys of filter %d", i)
			}
		})
	}
}

// fillRandom sets about a quarter of the bits below m at random, other
// bits in every word, and none of the padding.
func fillRandom(f *Filter, rng *rand.Rand) {
	m := f.M()
	for i := range f.words {
		first := uint64(i) * 64
		if first >= m {
			break
		}
		v := rng.Uint64() & rng.Uint64()
		if m-first < 64 {
			v &= 1<<(m-first) - 1
		}
		f.words[i] = v
	}
}
