package kernel_test

import (
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mmapbloom/mmapbloom/format"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/hashing"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel"
	"github.com/mmapbloom/mmapbloom/mmapbloom/internal/kernel/kerneltest"
)

// TestKernelsAvailable says which kernels this machine runs (.ci/run
// prints it with -v), and checks that kernel.WhyNot agrees with the dispatch: a
// kernel runs exactly when nothing is missing, the generic one always,
// and the best one (or the one MMAPBLOOM_KERNEL names) is active.
func TestKernelsAvailable(t *testing.T) {
	for _, k := range kernel.All {
		runs := slices.Contains(kernel.Available, k)
		require.Equal(t, runs, kernel.WhyNot(k) == "", "kernel %v", k)
		switch {
		case k == kernel.Active:
			t.Logf("kernel %v: runs, active", k)
		case runs:
			t.Logf("kernel %v: runs (in tests)", k)
		default:
			t.Logf("kernel %v: not run: %s", k, kernel.WhyNot(k))
		}
	}
	require.Equal(t, kernel.Generic, kernel.Available[len(kernel.Available)-1])
	require.Equal(t, kernel.Choose(os.Getenv(kernel.EnvKernel), kernel.Available), kernel.Active)
}

// TestKernelsMatchGeneric checks every kernel's TestBlocks and TestBlock
// against the generic TestBlocks for every k (around each vector width of 8 and 16 probes),
// at fills from sparse to nearly full so both answers occur.
func TestKernelsMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const blocks = 64
	words := make([]uint64, blocks*hashing.BlockWords)
	lines := make([]uint64, 1000)
	gs := make([]uint32, len(lines))
	want := make([]bool, len(lines))
	got := make([]bool, len(lines))
	kerneltest.ForEach(t, func(t *testing.T) {
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
				kernel.Active.Prefetch(words, lines)
				kernel.Generic.TestBlocks(words, lines, gs, k, want)
				kernel.Active.TestBlocks(words, lines, gs, k, got)
				require.Equal(t, want, got, "k=%d density=%d", k, density)
				for i, first := range lines {
					require.Equal(t, want[i], kernel.Active.TestBlock(words, first, gs[i], k), "TestBlock k=%d density=%d key %d", k, density, i)
				}
				for _, a := range want {
					answers[a]++
				}
			}
		}
		require.Greater(t, answers[true], 1000)
		require.Greater(t, answers[false], 1000)
	})
}

// TestBlockMasksMatchGeneric checks every kernel's BlockMasks against the
// generic one for every k.
func TestBlockMasksMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gs := make([]uint32, 257)
	want := make([][hashing.BlockWords]uint64, len(gs))
	got := make([][hashing.BlockWords]uint64, len(gs))
	kerneltest.ForEach(t, func(t *testing.T) {
		for k := uint32(1); k <= format.MaxK; k++ {
			for i := range gs {
				gs[i] = rng.Uint32()
			}
			gs[0], gs[1] = 0, ^uint32(0)
			kernel.Generic.BlockMasks(gs, k, want)
			kernel.Active.BlockMasks(gs, k, got)
			require.Equal(t, want, got, "k=%d", k)
		}
	})
}

// TestAddBlocksMatchGeneric checks every kernel's AddBlocks (and AddBlock,
// key by key) against
// hashing.BlockMask ORed into each block: the same words after adding the
// same keys, for every k, into blocks that are empty, partly and fully
// set, and the same count of keys that set a clear bit. A kernel without
// an AddBlocks of its own must report so and change nothing.
func TestAddBlocksMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 64 // blocks
	words := make([]uint64, n*hashing.BlockWords)
	blocks := make([]uint64, 300)
	gs := make([]uint32, len(blocks))
	kerneltest.ForEach(t, func(t *testing.T) {
		for k := uint32(1); k <= format.MaxK; k += 3 {
			for i := range words {
				words[i] = rng.Uint64() & rng.Uint64() & rng.Uint64()
				if i%5 == 0 {
					words[i] = ^uint64(0)
				}
			}
			before := append([]uint64(nil), words...)
			for i := range blocks {
				blocks[i] = uint64(rng.IntN(n)) * hashing.BlockBits
				gs[i] = rng.Uint32()
			}
			want, wantAdded := maskedInto(words, blocks, gs, k)
			one := append([]uint64(nil), before...)
			oneAdded := 0
			for i, first := range blocks {
				if added, ok := kernel.Active.AddBlock(one, first, gs[i], k); added && ok {
					oneAdded++
				}
			}
			added, ok := kernel.Active.AddBlocks(words, blocks, gs, k)
			if ok {
				require.Equal(t, want, one, "k=%d: AddBlock key by key", k)
				require.Equal(t, wantAdded, oneAdded, "k=%d: AddBlock's keys that set a clear bit", k)
			} else {
				require.Equal(t, before, one, "k=%d: a kernel without AddBlocks has no AddBlock", k)
			}
			if !ok {
				require.Equal(t, kernel.Generic, kernel.Active, "only the generic kernel has no AddBlocks")
				require.Equal(t, before, words, "k=%d: a kernel without AddBlocks changes nothing", k)
				continue
			}
			require.Equal(t, want, words, "k=%d", k)
			require.Equal(t, wantAdded, added, "k=%d: keys that set a clear bit", k)
		}
	})
}

// TestAddBlocksConcurrent runs AddBlocks of four goroutines at once, each
// with keys of its own, walking the same blocks in the same order (round
// r's keys all go to block r), so that their atomic writes of a line
// race: every key's bit is set at the end (a plain OR, or a compare and
// swap that does not retry, loses some), and no bit a key did not ask
// for. A kernel without AddBlocks skips.
func TestAddBlocksConcurrent(t *testing.T) {
	const writers, rounds, keysPer = 4, 4000, 16
	kerneltest.ForEach(t, func(t *testing.T) {
		if _, ok := kernel.Active.AddBlocks(make([]uint64, hashing.BlockWords), []uint64{0}, []uint32{1}, 1); !ok {
			t.Skipf("%s has no AddBlocks of its own", kernel.Active)
		}
		words := make([]uint64, rounds*hashing.BlockWords)
		blocks := make([][]uint64, writers)
		gs := make([][]uint32, writers)
		rng := rand.New(rand.NewPCG(9, 10))
		for w := range writers {
			for i := range rounds * keysPer {
				blocks[w] = append(blocks[w], uint64(i/keysPer)*hashing.BlockBits)
				gs[w] = append(gs[w], rng.Uint32())
			}
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for w := range writers {
			wg.Go(func() {
				<-start
				for r := range rounds {
					part := r * keysPer
					kernel.Active.AddBlocks(words, blocks[w][part:part+keysPer], gs[w][part:part+keysPer], 1)
				}
			})
		}
		close(start)
		wg.Wait()
		want := make([]uint64, len(words))
		for w := range writers {
			want, _ = maskedInto(want, blocks[w], gs[w], 1)
		}
		require.Equal(t, want, words, "every writer's bits, and only those")
	})
}

// maskedInto returns a copy of words with hashing.BlockMask of each gs[i]
// ORed into the block at bit blocks[i], in order, and how many keys
// lacked a bit: what AddBlocks and OrBlocks must do.
func maskedInto(words, blocks []uint64, gs []uint32, k uint32) (want []uint64, added int) {
	want = append([]uint64(nil), words...)
	for i := range blocks {
		lacked := false
		for w, m := range hashing.BlockMask(gs[i], k) {
			lacked = lacked || want[blocks[i]/64+uint64(w)]&m != m
			want[blocks[i]/64+uint64(w)] |= m
		}
		if lacked {
			added++
		}
	}
	return want, added
}

// TestOrBlocksMatchGeneric checks every kernel's OrBlocks (plain ORs)
// against hashing.BlockMask ORed into each block, as
// TestAddBlocksMatchGeneric checks AddBlocks: the same words and count
// of keys that set a clear bit, for every k, into blocks that are empty,
// sparse, dense and full, with keys repeated (their second add sets
// nothing) and batches of every length around the chunk size.
func TestOrBlocksMatchGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 64 // blocks
	fills := []struct {
		name string
		word func() uint64
	}{
		{"empty", func() uint64 { return 0 }},
		{"sparse", func() uint64 { return rng.Uint64() & rng.Uint64() & rng.Uint64() }},
		{"dense", func() uint64 { return rng.Uint64() | rng.Uint64() }},
		{"full", func() uint64 { return ^uint64(0) }},
	}
	kerneltest.ForEach(t, func(t *testing.T) {
		for _, fill := range fills {
			for k := uint32(1); k <= format.MaxK; k += 2 {
				keys := 1 + rng.IntN(2*kernel.ChunkKeys)
				words := make([]uint64, n*hashing.BlockWords)
				for i := range words {
					words[i] = fill.word()
				}
				blocks, gs := make([]uint64, keys), make([]uint32, keys)
				for i := range blocks {
					blocks[i] = uint64(rng.IntN(n)) * hashing.BlockBits
					gs[i] = rng.Uint32()
				}
				if keys > 1 {
					blocks[keys-1], gs[keys-1] = blocks[0], gs[0]
				}
				want, wantAdded := maskedInto(words, blocks, gs, k)
				added := kernel.Active.OrBlocks(words, blocks, gs, k)
				require.Equal(t, want, words, "%s k=%d keys=%d", fill.name, k, keys)
				require.Equal(t, wantAdded, added, "%s k=%d keys=%d: keys that set a clear bit", fill.name, k, keys)
			}
		}
	})
}

// TestChoose checks the choice MMAPBLOOM_KERNEL makes: a kernel the list
// holds by its name, else the best one.
func TestChoose(t *testing.T) {
	avail := []kernel.Kernel{kernel.AVX512, kernel.AVX2, kernel.Generic}
	for _, tc := range []struct {
		name string
		want kernel.Kernel
	}{
		{"", kernel.AVX512},
		{"avx512", kernel.AVX512},
		{"avx2", kernel.AVX2},
		{"generic", kernel.Generic},
		{"AVX2", kernel.AVX512},
		{"sse", kernel.AVX512},
	} {
		require.Equal(t, tc.want, kernel.Choose(tc.name, avail), "name %q", tc.name)
	}
	require.Equal(t, kernel.Generic, kernel.Choose("avx2", []kernel.Kernel{kernel.Generic}), "a kernel the CPU lacks")
}
