// Package kernel holds the probe kernels of the blocked-512 layout: the
// inner loops of the batch calls of package mmapbloom, with a pure-Go
// implementation (kernel_generic.go) and, on amd64, AVX2 and AVX-512 ones
// (kernel_amd64.go, kernel_amd64.s, kernel_layers_amd64.s) chosen once at
// start-up from github.com/klauspost/cpuid/v2. The assembly and its
// pure-Go twin declare the same methods; the assembly is built with the
// tag amd64 && gc && !purego. Every implementation meets this contract:
//
//   - Prefetch(words, bits) asks for the cache line holding bit bits[i] of
//     the array (word bits[i]/64) for every i, so that the misses of a whole
//     batch overlap. It changes nothing and answers nothing.
//   - TestBlocks(words, blocks, gs, k, out) sets out[i] to whether every one
//     of the k in-block probes of gs[i] (see internal/hashing/blocked.go) is set in the
//     512-bit block starting at bit blocks[i]. blocks[i] is a multiple of
//     512 inside the array; 1 <= k <= format.MaxK; len(gs) and len(out) are
//     at least len(blocks). Reads only, with plain loads: a concurrent OR
//     by another process is seen or not, as with single probes.
//   - TestBlock(words, first, g, k) is TestBlocks of the one block at bit
//     first, answered as its result: a single key's test.
//   - BlockMasks(gs, k, masks) sets masks[i] to the 512-bit mask (8 words)
//     of the k in-block probes of gs[i], as hashing.BlockMask does.
//     len(masks) is at least len(gs).
//   - AddBlocks(words, blocks, gs, k) sets, with atomic ORs, the k probes
//     of gs[i] in the block of words starting at bit blocks[i], for every
//     i, and returns how many keys found a probe's bit clear and true; or
//     returns false having done nothing, where no kernel of its own exists
//     (then the caller ORs hashing.BlockMask into each block itself).
//   - AddBlock(words, first, g, k) is AddBlocks of the one block at bit
//     first: whether the key found a bit clear, and ok as AddBlocks.
//   - OrBlocks(words, blocks, gs, k) is AddBlocks with plain ORs (loads
//     and stores, no lock prefix), for one writer alone on words: it sets
//     the k probes of gs[i] in the block at bit blocks[i], writing no
//     block that already holds them, and returns how many keys found a
//     probe's bit clear. Every kernel has one (the AVX2 and generic ones
//     OR their BlockMasks in Go, kernel_generic.go). A concurrent writer
//     of the same words may lose the bits it sets between one of these
//     loads and its store.
//   - TestLayers and LocateLayers: the multi-layer pipeline of a set's
//     batch calls (kernel_layers_amd64.go); false, having done nothing,
//     where no kernel of their own exists.
//
// The results of every implementation are identical to the generic one;
// kernel_test.go checks that for each implementation this CPU can run.
package kernel

import "os"

// Kernel names an implementation of the probe loops.
type Kernel uint8

// The implementations, in the order of their String forms.
const (
	Generic Kernel = iota // pure Go, everywhere
	AVX2                  // amd64 with AVX2
	AVX512                // amd64 with AVX-512F and BMI2
)

// All lists every implementation, best first, whether or not this CPU
// and build can run it (Available says which can).
var All = []Kernel{AVX512, AVX2, Generic}

// String returns the kernel's name as benchmarks and tests print it:
// "generic", "avx2" or "avx512".
func (k Kernel) String() string {
	return [...]string{"generic", "avx2", "avx512"}[k]
}

// Available lists the implementations this CPU can run, best first;
// Active is the one the batch calls use (tests and benchmarks set it to
// each of Available in turn): the best, or the one the environment
// variable MMAPBLOOM_KERNEL names ("avx512", "avx2" or "generic") when
// this CPU can run it (see Choose). Dispatch is a switch in the
// per-architecture Prefetch and TestBlocks methods: direct calls keep the
// batch buffers on the stack.
var (
	Available = availableKernels()
	Active    = Choose(os.Getenv(EnvKernel), Available)
)

// EnvKernel is the environment variable read once at start-up that
// names the kernel to use in place of the best one, for comparing the
// kernels in separate processes (the bench module's latency runs).
const EnvKernel = "MMAPBLOOM_KERNEL"

// Choose returns the kernel of avail named name (its String form), or
// avail[0], the best, when name is empty or names none of them.
func Choose(name string, avail []Kernel) Kernel {
	for _, k := range avail {
		if k.String() == name {
			return k
		}
	}
	return avail[0]
}
