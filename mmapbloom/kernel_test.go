package mmapbloom

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
)

// forEachKernel runs fn with each kernel this CPU can run made active in
// turn, and restores the choice afterwards.
func forEachKernel(t *testing.T, fn func(t *testing.T)) {
	saved := active
	t.Cleanup(func() { active = saved })
	for _, k := range kernels {
		t.Run("impl="+k.String(), func(t *testing.T) {
			active = k
			fn(t)
		})
	}
}

// TestKernelsMatchGeneric checks every kernel's testBlocks against the
// generic one for every k (around each vector width of 8 and 16 probes),
// at fills from sparse to nearly full so both answers occur.
func TestKernelsMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const blocks = 64
	words := make([]uint64, blocks*blockWords)
	lines := make([]uint64, 1000)
	gs := make([]uint32, len(lines))
	want := make([]bool, len(lines))
	got := make([]bool, len(lines))
	forEachKernel(t, func(t *testing.T) {
		answers := map[bool]int{}
		for k := uint32(1); k <= format.MaxK; k++ {
			for _, density := range []uint{1, 2, 3} {
				for i := range words {
					words[i] = ^uint64(0)
					for range density {
						words[i] &= rng.Uint64() | rng.Uint64()<<uint(rng.IntN(8))
					}
					if i%7 == 0 {
						words[i] = ^uint64(0)
					}
				}
				for i := range lines {
					lines[i] = uint64(rng.IntN(blocks)) * blockBits
					gs[i] = rng.Uint32()
				}
				active.prefetch(words, lines)
				testBlocksGeneric(words, lines, gs, k, want)
				active.testBlocks(words, lines, gs, k, got)
				require.Equal(t, want, got, "k=%d density=%d", k, density)
				for _, a := range want {
					answers[a]++
				}
			}
		}
		require.Greater(t, answers[true], 1000)
		require.Greater(t, answers[false], 1000)
	})
}

// TestBlockMasksMatchGeneric checks every kernel's blockMasks against the
// generic one for every k.
func TestBlockMasksMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gs := make([]uint32, 257)
	want := make([][blockWords]uint64, len(gs))
	got := make([][blockWords]uint64, len(gs))
	forEachKernel(t, func(t *testing.T) {
		for k := uint32(1); k <= format.MaxK; k++ {
			for i := range gs {
				gs[i] = rng.Uint32()
			}
			gs[0], gs[1] = 0, ^uint32(0)
			blockMasksGeneric(gs, k, want)
			active.blockMasks(gs, k, got)
			require.Equal(t, want, got, "k=%d", k)
		}
	})
}

// TestAddBlocksMatchGeneric checks every kernel's addBlocks against
// setBlock: the same words after adding the same keys, for every k, into
// blocks that are empty, partly and fully set.
func TestAddBlocksMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	f := newTestFilter(t, 2000, 0.01, nil) // blocked512
	n := len(f.words) / blockWords
	blocks := make([]uint64, 300)
	gs := make([]uint32, len(blocks))
	forEachKernel(t, func(t *testing.T) {
		for k := uint32(1); k <= format.MaxK; k += 3 {
			for i := range f.words {
				f.words[i] = rng.Uint64() & rng.Uint64() & rng.Uint64()
				if i%5 == 0 {
					f.words[i] = ^uint64(0)
				}
			}
			want, wantAdded := append([]uint64(nil), f.words...), 0
			for i := range blocks {
				blocks[i] = uint64(rng.IntN(n)) * blockBits
				gs[i] = rng.Uint32()
				mask, lacked := blockMask(gs[i], k), false
				for w, m := range mask {
					lacked = lacked || want[blocks[i]/64+uint64(w)]&m != m
					want[blocks[i]/64+uint64(w)] |= m
				}
				if lacked {
					wantAdded++
				}
			}
			saved := f.hdr.K
			f.hdr.K = k
			added, ok := active.addBlocks(f, blocks, gs)
			if !ok {
				for i := range blocks {
					if f.setBlock(blocks[i]/blockBits, gs[i], false) {
						added++
					}
				}
			}
			f.hdr.K = saved
			require.Equal(t, want, f.words, "k=%d", k)
			require.Equal(t, wantAdded, added, "k=%d: keys that set a clear bit", k)
		}
	})
}
