//go:build amd64 && gc && !purego

#include "textflag.h"
#include "kernel_amd64.h"

// The multi-layer kernels walk the layers newest first: LAYERS_FROM_END
// points R11 one record (96 bytes) past the last layer of SI and R15 at
// key R12 in the row (96 bytes) past the last of first (DI), with R13 = DX
// layers to go; NEXT_LAYER_LINE steps both back one layer and leaves in
// AX the address of the key's block in that layer.
#define LAYERS_FROM_END \
	MOVQ   DX, R13;           \
	IMUL3Q $96, DX, AX;       \
	LEAQ   (SI)(AX*1), R11;   \
	IMUL3Q $96, DX, AX;       \
	LEAQ   (DI)(AX*1), R15;   \
	LEAQ   (R15)(R12*8), R15

#define NEXT_LAYER_LINE \
	SUBQ $96, R11;  \
	SUBQ $96, R15;  \
	MOVQ (R15), AX; \
	SHRQ $3, AX;    \
	ADDQ (R11), AX

// func testLayersAVX512Asm(layers *Layer, nl int, first *uint64, gs *uint32, out *bool, n int, mults *uint32)
//
// A Layer is 96 bytes: the address of the layer's first word, its
// 32-bit lane mask, 4 bytes of padding, its number of blocks, 8 bytes of
// padding, and its lane mask as 16 32-bit lanes (all ones for a probe of
// the layer) at offset 32. first
// holds nl rows of ChunkKeys (12) words.
TEXT ·testLayersAVX512Asm(SB), NOSPLIT, $0-56
	MOVQ layers+0(FP), SI
	MOVQ nl+8(FP), DX
	MOVQ first+16(FP), DI
	MOVQ gs+24(FP), R8
	MOVQ out+32(FP), R9
	MOVQ n+40(FP), CX
	MOVQ mults+48(FP), R10

	VMOVDQU32 (R10), Z1
	PROBE_CONSTS_AVX512
	XORQ      R12, R12

key:
	// The 16 probes of g: dword (top 4 bits) and bit in it (next 5).
	VPBROADCASTD (R8)(R12*4), Z2
	VPMULLD      Z1, Z2, Z3
	VPSRLD       $28, Z3, Z4
	PROBE_BITS(VPANDD, Z3, Z9, Z15, Z14)

	LAYERS_FROM_END

layer:
	NEXT_LAYER_LINE
	VMOVDQU64 (AX), Z0
	VPERMD    Z0, Z4, Z5
	KMOVW     8(R11), K1
	VPTESTNMD Z9, Z5, K1, K2
	KORTESTW  K2, K2
	JZ        hit
	DECQ      R13
	JNZ       layer
	MOVB      $0, (R9)(R12*1)
	JMP       next

hit:
	MOVB $1, (R9)(R12*1)

next:
	INCQ R12
	CMPQ R12, CX
	JB   key

	VZEROUPPER
	RET

// func locateLayersAsm(layers *Layer, nl int, first *uint64, hs *uint64, n int)
//
// For each layer (96-byte records as above) and key: the block is the
// high word of hs[i] * nblocks (blockOf), its first bit is block * 512,
// and its line, at byte block * 64 of the words, is prefetched.
TEXT ·locateLayersAsm(SB), NOSPLIT, $0-40
	MOVQ layers+0(FP), SI
	MOVQ nl+8(FP), R8
	MOVQ first+16(FP), DI
	MOVQ hs+24(FP), R9
	MOVQ n+32(FP), CX

layer:
	MOVQ 0(SI), R10
	MOVQ 16(SI), R11
	XORQ BX, BX

key:
	MOVQ       (R9)(BX*8), AX
	MULQ       R11
	MOVQ       DX, AX
	SHLQ       $9, AX
	MOVQ       AX, (DI)(BX*8)
	SHLQ       $6, DX
	PREFETCHT0 (R10)(DX*1)
	INCQ       BX
	CMPQ       BX, CX
	JB         key

	ADDQ $96, SI
	ADDQ $96, DI
	DECQ R8
	JNZ  layer
	RET

// func testLayersAVX2Asm(layers *Layer, nl int, first *uint64, gs *uint32, out *bool, n int, mults *uint32)
//
// Per key (g broadcast in Y12): probes 0-7 (h in Y3, dword index Y4, bit
// Y8), as testBlocksAVX2Asm computes them, and probes 8-15 (Y9, Y10, Y11)
// the first time a layer has probes 0-7 (R14 set then). Per layer, newest
// first: the line in Y0, Y1; the dwords of probes 0-7 gathered by VPERMD
// and a blend on h's top bit, and tested against their wanted bits (the
// bits ANDed with the layer's 32-bit lane masks at offset 32); only when
// all are set, probes 8-15 likewise. A key absent from a layer about half
// full fails the first group with probability 1 - 2^-8: the branch is
// well predicted and most layers cost half the shuffles (VPERMD runs on
// one port). The layer holds the key when no wanted bit is clear.
TEXT ·testLayersAVX2Asm(SB), NOSPLIT, $0-56
	MOVQ layers+0(FP), SI
	MOVQ nl+8(FP), DX
	MOVQ first+16(FP), DI
	MOVQ gs+24(FP), R8
	MOVQ out+32(FP), R9
	MOVQ n+40(FP), CX
	MOVQ mults+48(FP), R10

	PROBE_CONSTS_AVX2
	XORQ         R12, R12

key2:
	VPBROADCASTD (R8)(R12*4), Y12
	VPMULLD      (R10), Y12, Y3
	VPSRLD       $28, Y3, Y4
	PROBE_BITS(VPAND, Y3, Y8, Y15, Y14)
	XORL         R14, R14

	LAYERS_FROM_END

layer2:
	NEXT_LAYER_LINE
	VMOVDQU      (AX), Y0
	VMOVDQU      32(AX), Y1
	VPERMD       Y0, Y4, Y7
	VPERMD       Y1, Y4, Y2
	VBLENDVPS    Y3, Y2, Y7, Y7
	VPAND        32(R11), Y8, Y5
	VPANDN       Y5, Y7, Y5
	VPTEST       Y5, Y5
	JNZ          miss2
	TESTL        R14, R14
	JNZ          high2
	VPMULLD      32(R10), Y12, Y9
	VPSRLD       $28, Y9, Y10
	PROBE_BITS(VPAND, Y9, Y11, Y15, Y14)
	MOVL         $1, R14

high2:
	VPERMD       Y0, Y10, Y7
	VPERMD       Y1, Y10, Y2
	VBLENDVPS    Y9, Y2, Y7, Y7
	VPAND        64(R11), Y11, Y6
	VPANDN       Y6, Y7, Y6
	VPTEST       Y6, Y6
	JZ           hit2

miss2:
	DECQ         R13
	JNZ          layer2
	MOVB         $0, (R9)(R12*1)
	JMP          next2

hit2:
	MOVB $1, (R9)(R12*1)

next2:
	INCQ R12
	CMPQ R12, CX
	JB   key2

	VZEROUPPER
	RET
