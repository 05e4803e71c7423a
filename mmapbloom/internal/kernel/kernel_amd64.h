// Pieces shared by the probe kernels (kernel_amd64.s and
// kernel_layers_amd64.s): the constants and the lane arithmetic of the
// blocked-512 probes (blocked.go). Probe j of in-block hash g is h =
// g * phi^(j+1) mod 2^32; in a block seen as 16 32-bit dwords, its dword
// is h >> 28 and its bit in that dword (h >> 23) & 31.

// PROBE_CONSTS_AVX2 sets Y15 to 31 and Y14 to 1 in every 32-bit lane.
// Clobbers AX.
#define PROBE_CONSTS_AVX2 \
	MOVL         $31, AX;  \
	VMOVD        AX, X15;  \
	VPBROADCASTD X15, Y15; \
	MOVL         $1, AX;   \
	VMOVD        AX, X14;  \
	VPBROADCASTD X14, Y14

// PROBE_CONSTS_AVX512 is PROBE_CONSTS_AVX2 for Z15 and Z14.
#define PROBE_CONSTS_AVX512 \
	MOVL         $31, AX; \
	VPBROADCASTD AX, Z15; \
	MOVL         $1, AX;  \
	VPBROADCASTD AX, Z14

// PROBE_BITS(AND, H, BIT, V31, V1) sets each lane of BIT to the bit of
// the probe whose product is in the same lane of H, in its dword:
// 1 << ((h >> 23) & 31). AND is VPAND (AVX2) or VPANDD (AVX-512); V31 and
// V1 hold PROBE_CONSTS.
#define PROBE_BITS(AND, H, BIT, V31, V1) \
	VPSRLD  $23, H, BIT;   \
	AND     V31, BIT, BIT; \
	VPSLLVD BIT, V1, BIT
