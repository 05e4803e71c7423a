package mmapbloom

// Probe kernels: the inner loops of the batch calls, with a pure-Go
// implementation (kernel_generic.go) and, on amd64, AVX2 and AVX-512 ones
// (kernel_amd64.go, kernel_amd64.s) chosen once at start-up from
// github.com/klauspost/cpuid/v2. Every implementation meets this contract:
//
//   - prefetch(words, bits) asks for the cache line holding bit bits[i] of
//     the array (word bits[i]/64) for every i, so that the misses of a whole
//     batch overlap. It changes nothing and answers nothing.
//   - testBlocks(words, blocks, gs, k, out) sets out[i] to whether every one
//     of the k in-block probes of gs[i] (see internal/hashing/blocked.go) is set in the
//     512-bit block starting at bit blocks[i]. blocks[i] is a multiple of
//     512 inside the array; 1 <= k <= format.MaxK; len(gs) and len(out) are
//     at least len(blocks). Reads only, with plain loads: a concurrent OR
//     by another process is seen or not, as with single probes.
//   - blockMasks(gs, k, masks) sets masks[i] to the 512-bit mask (8 words)
//     of the k in-block probes of gs[i], as blockMask does. len(masks) is
//     at least len(gs).
//   - addBlocks(f, blocks, gs) sets, with atomic ORs, the k probes of
//     gs[i] in the block of f starting at bit blocks[i], for every i, as
//     setBlock does without its report, and returns how many keys found a
//     probe's bit clear (as setBlock's result counts them) and true; or
//     returns false having done nothing, where no kernel of its own exists
//     (then the caller sets the bits with setBlock).
//
// The results of every implementation are identical to the generic one;
// kernel_test.go checks that for each implementation this CPU can run.
type kernel uint8

const (
	kernelGeneric kernel = iota // pure Go, everywhere
	kernelAVX2                  // amd64 with AVX2
	kernelAVX512                // amd64 with AVX-512F and BMI2
)

func (k kernel) String() string {
	return [...]string{"generic", "avx2", "avx512"}[k]
}

// kernels lists the implementations this CPU can run, best first;
// active is the one the batch calls use. Dispatch is a switch in the
// per-architecture prefetch and testBlocks methods: direct calls keep the
// batch buffers on the stack.
var (
	kernels = availableKernels()
	active  = kernels[0]
)
