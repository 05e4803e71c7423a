//go:build amd64 && gc && !purego

#include "textflag.h"
#include "kernel_amd64.h"

// func prefetchLines(words *uint64, bits *uint64, n int)
TEXT ·prefetchLines(SB), NOSPLIT, $0-24
	MOVQ words+0(FP), SI
	MOVQ bits+8(FP), DI
	MOVQ n+16(FP), CX

prefetch:
	MOVQ       (DI), AX
	SHRQ       $3, AX
	PREFETCHT0 (SI)(AX*1)
	ADDQ       $8, DI
	DECQ       CX
	JNZ        prefetch
	RET

// func testBlocksAVX2Asm(words *uint64, blocks *uint64, gs *uint32, out *bool, n, k int, mults *uint32, lanes *uint32)
//
// Per block: Y0, Y1 = its 16 32-bit words; per group of 8 probes:
// h = g * mults[j] (Y3), word = h >> 28 gathered from Y0 or Y1 by VPERMD
// and a blend on h's top bit, bit = 1 << ((h >> 23) & 31); Y13 collects
// the wanted bits that are clear. The block matches when Y13 is zero.
TEXT ·testBlocksAVX2Asm(SB), NOSPLIT, $0-64
	MOVQ words+0(FP), SI
	MOVQ blocks+8(FP), DI
	MOVQ gs+16(FP), R8
	MOVQ out+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ k+40(FP), DX
	MOVQ mults+48(FP), R10
	MOVQ lanes+56(FP), R11

	PROBE_CONSTS_AVX2
	XORQ R12, R12

line2:
	MOVQ         (DI)(R12*8), AX
	SHRQ         $3, AX
	ADDQ         SI, AX
	VMOVDQU      (AX), Y0
	VMOVDQU      32(AX), Y1
	VPBROADCASTD (R8)(R12*4), Y2
	VPXOR        Y13, Y13, Y13
	MOVQ         DX, BX
	MOVQ         R10, R13

group2:
	VPMULLD   (R13), Y2, Y3
	VPSRLD    $28, Y3, Y4
	VPERMD    Y0, Y4, Y5
	VPERMD    Y1, Y4, Y6
	VBLENDVPS Y3, Y6, Y5, Y7
	PROBE_BITS(VPAND, Y3, Y9, Y15, Y14)
	CMPQ      BX, $8
	JAE       full2
	MOVQ      BX, R14
	SHLQ      $5, R14
	VPAND     (R11)(R14*1), Y9, Y9

full2:
	VPANDN Y9, Y7, Y10
	VPOR   Y10, Y13, Y13
	ADDQ   $32, R13
	SUBQ   $8, BX
	JG     group2

	VPTEST Y13, Y13
	SETEQ  (R9)(R12*1)
	INCQ   R12
	CMPQ   R12, CX
	JB     line2

	VZEROUPPER
	RET

// func testBlocksAVX512Asm(words *uint64, blocks *uint64, gs *uint32, out *bool, n, k int, mults *uint32)
//
// Per block: Z0 = its 16 32-bit words; per group of 16 probes: h = g *
// mults[j], word = Z0 permuted by h >> 28, bit = 1 << ((h >> 23) & 31);
// VPTESTNMD under the mask of existing probes (K1) flags clear bits,
// collected in R15. The block matches when R15 is zero.
TEXT ·testBlocksAVX512Asm(SB), NOSPLIT, $0-56
	MOVQ words+0(FP), SI
	MOVQ blocks+8(FP), DI
	MOVQ gs+16(FP), R8
	MOVQ out+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ k+40(FP), DX
	MOVQ mults+48(FP), R10

	PROBE_CONSTS_AVX512
	XORQ R12, R12

line512:
	MOVQ         (DI)(R12*8), AX
	SHRQ         $3, AX
	ADDQ         SI, AX
	VMOVDQU64    (AX), Z0
	VPBROADCASTD (R8)(R12*4), Z2
	XORL         R15, R15
	MOVQ         DX, BX
	MOVQ         R10, R13

group512:
	VPMULLD   (R13), Z2, Z3
	VPSRLD    $28, Z3, Z4
	VPERMD    Z0, Z4, Z5
	PROBE_BITS(VPANDD, Z3, Z9, Z15, Z14)
	MOVL      $0xFFFF, AX
	BZHIL     BX, AX, AX
	KMOVW     AX, K1
	VPTESTNMD Z9, Z5, K1, K2
	KMOVW     K2, AX
	ORL       AX, R15
	ADDQ      $64, R13
	SUBQ      $16, BX
	JG        group512

	TESTL R15, R15
	SETEQ (R9)(R12*1)
	INCQ  R12
	CMPQ  R12, CX
	JB    line512

	VZEROUPPER
	RET

// laneOffsets holds the first bit of each 64-bit word of a block.
DATA laneOffsets<>+0(SB)/8, $0
DATA laneOffsets<>+8(SB)/8, $64
DATA laneOffsets<>+16(SB)/8, $128
DATA laneOffsets<>+24(SB)/8, $192
DATA laneOffsets<>+32(SB)/8, $256
DATA laneOffsets<>+40(SB)/8, $320
DATA laneOffsets<>+48(SB)/8, $384
DATA laneOffsets<>+56(SB)/8, $448
GLOBL laneOffsets<>(SB), RODATA|NOPTR, $64

// PROBE_MASK_512 builds in Z0 the 8-word probe mask of the in-block hash
// in R9, for DX probes with multipliers at R10; Z13 holds laneOffsets and
// Z14 ones. Each probe's bit position (g * mults[j]) >> 23 is broadcast to
// the 8 word lanes, and lane w shifts 1 left by position - 64w: 0 in every
// lane but the probe's word (counts above 63, negative ones included, give
// 0). Clobbers AX, BX, Z1.
#define PROBE_MASK_512(loop) \
	VPXORQ       Z0, Z0, Z0; \
	XORQ         BX, BX; \
loop: \
	MOVL         R9, AX; \
	IMULL        (R10)(BX*4), AX; \
	SHRL         $23, AX; \
	VPBROADCASTQ AX, Z1; \
	VPSUBQ       Z13, Z1, Z1; \
	VPSLLVQ      Z1, Z14, Z1; \
	VPORQ        Z1, Z0, Z0; \
	INCQ         BX; \
	CMPQ         BX, DX; \
	JB           loop

// MASK_CONSTS_512 sets Z14 to 1 in every 64-bit lane and Z13 to
// laneOffsets, as PROBE_MASK_512 needs them. Clobbers AX.
#define MASK_CONSTS_512 \
	MOVQ         $1, AX;  \
	VPBROADCASTQ AX, Z14; \
	VMOVDQU64    laneOffsets<>(SB), Z13

// BLOCK_LACKS_512(next) loads the block of the key at bit (DI) of the
// array at SI, given its probe mask in Z0: R11 = the block's address, Z1
// = its words, Z2 = the mask bits it lacks, K1 and AX = the words
// lacking any. It jumps to next when the block holds every bit, else
// counts the key in R14: the start of the add kernels' step per key.
#define BLOCK_LACKS_512(next) \
	MOVQ      (DI), R11;  \
	SHRQ      $3, R11;    \
	ADDQ      SI, R11;    \
	VMOVDQU64 (R11), Z1;  \
	VPANDNQ   Z0, Z1, Z2; \
	VPTESTMQ  Z2, Z2, K1; \
	KMOVW     K1, AX;     \
	TESTL     AX, AX;     \
	JZ        next;       \
	INCQ      R14

// func blockMasksAVX512(gs *uint32, masks *uint64, n, k int, mults *uint32)
//
// Per key: PROBE_MASK_512, then the mask is stored.
TEXT ·blockMasksAVX512(SB), NOSPLIT, $0-40
	MOVQ gs+0(FP), SI
	MOVQ masks+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ k+24(FP), DX
	MOVQ mults+32(FP), R10

	MASK_CONSTS_512

key512:
	MOVL (SI), R9
	PROBE_MASK_512(probe512)

	VMOVDQU64 Z0, (DI)
	ADDQ      $4, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       key512

	VZEROUPPER
	RET

// PROBE_MASK_AVX2 is PROBE_MASK_512 with the 8 word lanes in two
// registers: it builds the probe mask of the in-block hash in R9 in Y0
// (words 0-3) and Y15 (words 4-7), for DX probes with multipliers at
// R10; Y13 and Y12 hold laneOffsets' two halves, Y14 ones. Clobbers AX,
// BX, Y1-Y3.
#define PROBE_MASK_AVX2(loop) \
	VPXOR        Y0, Y0, Y0;   \
	VPXOR        Y15, Y15, Y15; \
	XORQ         BX, BX;       \
loop: \
	MOVL         R9, AX;       \
	IMULL        (R10)(BX*4), AX; \
	SHRL         $23, AX;      \
	VMOVQ        AX, X1;       \
	VPBROADCASTQ X1, Y1;       \
	VPSUBQ       Y13, Y1, Y2;  \
	VPSUBQ       Y12, Y1, Y3;  \
	VPSLLVQ      Y2, Y14, Y2;  \
	VPSLLVQ      Y3, Y14, Y3;  \
	VPOR         Y2, Y0, Y0;   \
	VPOR         Y3, Y15, Y15; \
	INCQ         BX;           \
	CMPQ         BX, DX;       \
	JB           loop

// MASK_CONSTS_AVX2 sets Y14 to 1 in every 64-bit lane and Y13, Y12 to
// laneOffsets' halves, as PROBE_MASK_AVX2 needs them. Clobbers AX.
#define MASK_CONSTS_AVX2 \
	MOVQ         $1, AX;                    \
	VMOVQ        AX, X14;                   \
	VPBROADCASTQ X14, Y14;                  \
	VMOVDQU      laneOffsets<>+0(SB), Y13;  \
	VMOVDQU      laneOffsets<>+32(SB), Y12

// func blockMasksAVX2(gs *uint32, masks *uint64, n, k int, mults *uint32)
//
// As blockMasksAVX512, with the 8 word lanes in two registers: Y0 for
// words 0-3, Y15 for words 4-7.
TEXT ·blockMasksAVX2(SB), NOSPLIT, $0-40
	MOVQ gs+0(FP), SI
	MOVQ masks+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ k+24(FP), DX
	MOVQ mults+32(FP), R10

	MASK_CONSTS_AVX2

key2:
	MOVL (SI), R9
	PROBE_MASK_AVX2(probe2)

	VMOVDQU Y0, (DI)
	VMOVDQU Y15, 32(DI)
	ADDQ    $4, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     key2

	VZEROUPPER
	RET

// LOCK_OR_WORD(off) ORs the word at off(SP) into the word at off(R11)
// with one LOCK OR.
#define LOCK_OR_WORD(off) \
	MOVQ off(SP), R12; \
	LOCK;              \
	ORQ  R12, off(R11)

// LOCK_OR_LINE ORs the 8 words at 0(SP) into the 8 words at (R11), one
// LOCK OR each (LOCK_OR_WORD).
#define LOCK_OR_LINE \
	LOCK_OR_WORD(0);  \
	LOCK_OR_WORD(8);  \
	LOCK_OR_WORD(16); \
	LOCK_OR_WORD(24); \
	LOCK_OR_WORD(32); \
	LOCK_OR_WORD(40); \
	LOCK_OR_WORD(48); \
	LOCK_OR_WORD(56)

// func addBlocksAVX512(words *uint64, blocks *uint64, gs *uint32, n, k int, mults *uint32) (added int)
//
// Per key: Z0 = the probe mask (PROBE_MASK_512), Z2 = the mask bits
// its block lacks (BLOCK_LACKS_512); a block that holds every bit is not
// written at all, and each word of one that lacks some gets one LOCK OR
// of its word of Z2 (0 where the word lacks none: its line is written
// anyway). Eight ORs in a row cost less than a loop over the words that
// lack bits, whose exit the branch predictor misses (BenchmarkAddFloor,
// BENCHMARKS.md). R14 counts the keys that lacked a bit. The 64-byte
// frame holds Z2 for the scalar ORs.
TEXT ·addBlocksAVX512(SB), NOSPLIT, $64-56
	MOVQ words+0(FP), SI
	MOVQ blocks+8(FP), DI
	MOVQ gs+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ k+32(FP), DX
	MOVQ mults+40(FP), R10

	MASK_CONSTS_512
	XORQ R14, R14

keyAdd:
	MOVL (R8), R9
	PROBE_MASK_512(probeAdd)

	BLOCK_LACKS_512(nextAdd)
	VMOVDQU64 Z2, 0(SP)
	LOCK_OR_LINE

nextAdd:
	ADDQ $4, R8
	ADDQ $8, DI
	DECQ CX
	JNZ  keyAdd

	MOVQ R14, added+48(FP)
	VZEROUPPER
	RET

// func addBlocksAVX2(words *uint64, blocks *uint64, gs *uint32, n, k int, mults *uint32) (added int)
//
// As addBlocksAVX512 with AVX2: per key, the probe mask in Y0 (words
// 0-3) and Y15 (words 4-7), built as blockMasksAVX2 builds it; the
// bits its block lacks in Y2 and Y3. A block that holds every bit is not
// written; each word of one that lacks some gets one LOCK OR of its word
// of Y2:Y3, from the 64-byte frame. R14 counts the keys that lacked a bit.
TEXT ·addBlocksAVX2(SB), NOSPLIT, $64-56
	MOVQ words+0(FP), SI
	MOVQ blocks+8(FP), DI
	MOVQ gs+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ k+32(FP), DX
	MOVQ mults+40(FP), R10

	MASK_CONSTS_AVX2
	XORQ R14, R14

keyAdd2:
	MOVL (R8), R9
	PROBE_MASK_AVX2(probeAdd2)

	MOVQ    (DI), R11
	SHRQ    $3, R11
	ADDQ    SI, R11
	VMOVDQU (R11), Y4
	VMOVDQU 32(R11), Y5
	VPANDN  Y0, Y4, Y2
	VPANDN  Y15, Y5, Y3
	VPOR    Y2, Y3, Y1
	VPTEST  Y1, Y1
	JZ      nextAdd2
	INCQ    R14
	VMOVDQU Y2, 0(SP)
	VMOVDQU Y3, 32(SP)
	LOCK_OR_LINE

nextAdd2:
	ADDQ $4, R8
	ADDQ $8, DI
	DECQ CX
	JNZ  keyAdd2

	MOVQ R14, added+48(FP)
	VZEROUPPER
	RET

// func orBlocksAVX512(words *uint64, blocks *uint64, gs *uint32, n, k int, mults *uint32) (added int)
//
// As addBlocksAVX512, for one writer alone: per key, Z0 = the probe mask
// (PROBE_MASK_512), K1 flags the words of its block that lack a bit of
// it (BLOCK_LACKS_512), and the block ORed with the mask is stored into
// those words only, with plain stores. R14 counts the keys that lacked
// a bit.
TEXT ·orBlocksAVX512(SB), NOSPLIT, $0-56
	MOVQ words+0(FP), SI
	MOVQ blocks+8(FP), DI
	MOVQ gs+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ k+32(FP), DX
	MOVQ mults+40(FP), R10

	MASK_CONSTS_512
	XORQ R14, R14

keyOr:
	MOVL (R8), R9
	PROBE_MASK_512(probeOr)

	BLOCK_LACKS_512(nextOr)
	VPORQ     Z0, Z1, Z1
	VMOVDQU64 Z1, K1, (R11)

nextOr:
	ADDQ $4, R8
	ADDQ $8, DI
	DECQ CX
	JNZ  keyOr

	MOVQ R14, added+48(FP)
	VZEROUPPER
	RET
