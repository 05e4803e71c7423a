package mmapbloom

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel/kerneltest"
)

// TestKernelsMatchSpec checks every kernel, the pure-Go one included,
// against FORMAT.md's blocked512 spec (refBlocked512, which shares no code
// with internal/hashing/blocked.go) on fixed keys, for every k: TestBlocks answers present
// with exactly the key's bits set and absent with any one of them clear;
// BlockMasks gives exactly the key's bits; AddBlocks, or setBlock where a
// kernel has none, sets exactly them (on a filter's words).
func TestKernelsMatchSpec(t *testing.T) {
	const blocks = 3
	keys := keysOf(5, 30)
	kerneltest.ForEach(t, func(t *testing.T) {
		f, err := CreateWithMK(filepath.Join(t.TempDir(), "spec.bloom"), blocks*hashing.BlockBits, 1,
			&CreateOptions{Layout: format.LayoutBlocked512, Seed: 11, FixedSeed: true})
		require.NoError(t, err)
		watch(t, f)
		words := make([]uint64, blocks*hashing.BlockWords)
		for k := uint32(1); k <= format.MaxK; k++ {
			for _, key := range keys {
				h, locs := refBlocked512(key, f.M(), k, 11)
				first, gs := []uint64{locs[0] / hashing.BlockBits * hashing.BlockBits}, []uint32{uint32(h)}
				want := make([]uint64, len(words))
				for _, p := range locs {
					want[p/64] |= 1 << (p % 64)
				}
				masks := make([][hashing.BlockWords]uint64, 1)
				kernel.Active.BlockMasks(gs, k, masks)
				require.Equal(t, want[first[0]/64:][:hashing.BlockWords], masks[0][:], "k=%d %q: BlockMasks", k, key)

				out := []bool{false}
				copy(words, want)
				kernel.Active.TestBlocks(words, first, gs, k, out)
				require.True(t, out[0], "k=%d %q: every bit set", k, key)
				for j, p := range locs {
					copy(words, want)
					words[p/64] &^= 1 << (p % 64)
					kernel.Active.TestBlocks(words, first, gs, k, out)
					require.False(t, out[0], "k=%d %q: probe %d (bit %d) clear", k, key, j, p)
				}

				clear(f.words)
				f.hdr.K = k
				if _, ok := kernel.Active.AddBlocks(f.words, first, gs, k); !ok {
					f.setBlock(first[0]/hashing.BlockBits, gs[0], false)
				}
				f.hdr.K = 1
				require.Equal(t, want, f.words, "k=%d %q: bits set", k, key)
			}
		}
	})
}
