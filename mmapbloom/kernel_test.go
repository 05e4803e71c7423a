package mmapbloom

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
)

// allKernels lists every kernel, best first.
var allKernels = []kernel{kernelAVX512, kernelAVX2, kernelGeneric}

// forEachKernel runs fn as subtest impl=NAME with each kernel made active
// in turn, restores the choice afterwards and logs the kernels it ran. A
// kernel this CPU or build cannot run is a skipped subtest whose message
// names the CPU features it lacks (whyNot).
func forEachKernel(t *testing.T, fn func(t *testing.T)) {
	t.Helper()
	saved := active
	t.Cleanup(func() { active = saved })
	var ran []string
	for _, k := range allKernels {
		t.Run("impl="+k.String(), func(t *testing.T) {
			if !slices.Contains(kernels, k) {
				t.Skipf("kernel %v not run: %s", k, whyNot(k))
			}
			active = k
			fn(t)
		})
		if slices.Contains(kernels, k) {
			ran = append(ran, k.String())
		}
	}
	t.Logf("kernels run: %s", strings.Join(ran, ", "))
}

// TestKernelsAvailable says which kernels this machine runs (.ci/run
// prints it with -v), and checks that whyNot agrees with the dispatch: a
// kernel runs exactly when nothing is missing, the generic one always,
// and the best one is active.
func TestKernelsAvailable(t *testing.T) {
	for _, k := range allKernels {
		runs := slices.Contains(kernels, k)
		require.Equal(t, runs, whyNot(k) == "", "kernel %v", k)
		switch {
		case k == active:
			t.Logf("kernel %v: runs, active", k)
		case runs:
			t.Logf("kernel %v: runs (in tests)", k)
		default:
			t.Logf("kernel %v: not run: %s", k, whyNot(k))
		}
	}
	require.Equal(t, kernelGeneric, kernels[len(kernels)-1])
	require.Equal(t, kernels[0], active)
}

// TestKernelsMatchSpec checks every kernel, the pure-Go one included,
// against FORMAT.md's blocked512 spec (refBlocked512, which shares no code
// with internal/hashing/blocked.go) on fixed keys, for every k: testBlocks answers present
// with exactly the key's bits set and absent with any one of them clear;
// blockMasks gives exactly the key's bits; addBlocks, or setBlock where a
// kernel has none, sets exactly them.
func TestKernelsMatchSpec(t *testing.T) {
	const blocks = 3
	keys := keysOf(5, 30)
	forEachKernel(t, func(t *testing.T) {
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
				active.blockMasks(gs, k, masks)
				require.Equal(t, want[first[0]/64:][:hashing.BlockWords], masks[0][:], "k=%d %q: blockMasks", k, key)

				out := []bool{false}
				copy(words, want)
				active.testBlocks(words, first, gs, k, out)
				require.True(t, out[0], "k=%d %q: every bit set", k, key)
				for j, p := range locs {
					copy(words, want)
					words[p/64] &^= 1 << (p % 64)
					active.testBlocks(words, first, gs, k, out)
					require.False(t, out[0], "k=%d %q: probe %d (bit %d) clear", k, key, j, p)
				}

				clear(f.words)
				f.hdr.K = k
				if _, ok := active.addBlocks(f, first, gs); !ok {
					f.setBlock(first[0]/hashing.BlockBits, gs[0], false)
				}
				f.hdr.K = 1
				require.Equal(t, want, f.words, "k=%d %q: bits set", k, key)
			}
		}
	})
}

// TestKernelsMatchGeneric checks every kernel's testBlocks against the
// generic one for every k (around each vector width of 8 and 16 probes),
// at fills from sparse to nearly full so both answers occur.
func TestKernelsMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const blocks = 64
	words := make([]uint64, blocks*hashing.BlockWords)
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
					lines[i] = uint64(rng.IntN(blocks)) * hashing.BlockBits
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
	want := make([][hashing.BlockWords]uint64, len(gs))
	got := make([][hashing.BlockWords]uint64, len(gs))
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
	n := len(f.words) / hashing.BlockWords
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
				blocks[i] = uint64(rng.IntN(n)) * hashing.BlockBits
				gs[i] = rng.Uint32()
				mask, lacked := hashing.BlockMask(gs[i], k), false
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
					if f.setBlock(blocks[i]/hashing.BlockBits, gs[i], false) {
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
