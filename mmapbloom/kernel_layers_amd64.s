//go:build amd64 && gc && !purego

#include "textflag.h"

// func testLayersAVX512Asm(layers *fusedLayer, nl int, first *uint64, gs *uint32, out *bool, n int, mults *uint32)
//
// A fusedLayer is 24 bytes: the address of the layer's first word, its
// 32-bit lane mask, 4 bytes of padding, its number of blocks. first
// holds nl rows of chunkKeys (12) words.
TEXT ·testLayersAVX512Asm(SB), NOSPLIT, $0-56
	MOVQ layers+0(FP), SI
	MOVQ nl+8(FP), DX
	MOVQ first+16(FP), DI
	MOVQ gs+24(FP), R8
	MOVQ out+32(FP), R9
	MOVQ n+40(FP), CX
	MOVQ mults+48(FP), R10

	VMOVDQU32    (R10), Z1
	MOVL         $31, AX
	VPBROADCASTD AX, Z15
	MOVL         $1, AX
	VPBROADCASTD AX, Z14
	XORQ         R12, R12

key:
	// The 16 probes of g: dword (top 4 bits) and bit in it (next 5).
	VPBROADCASTD (R8)(R12*4), Z2
	VPMULLD      Z1, Z2, Z3
	VPSRLD       $28, Z3, Z4
	VPSRLD       $23, Z3, Z8
	VPANDD       Z15, Z8, Z8
	VPSLLVD      Z8, Z14, Z9

	// R11 walks the layer records and R15 the rows of first from one
	// past the last, so that the newest layer is asked first.
	MOVQ   DX, R13
	IMUL3Q $24, DX, AX
	LEAQ   (SI)(AX*1), R11
	IMUL3Q $96, DX, AX
	LEAQ   (DI)(AX*1), R15
	LEAQ   (R15)(R12*8), R15

layer:
	SUBQ      $24, R11
	SUBQ      $96, R15
	MOVQ      (R15), AX
	SHRQ      $3, AX
	ADDQ      (R11), AX
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

// func locateLayersAsm(layers *fusedLayer, nl int, first *uint64, hs *uint64, n int)
//
// For each layer (24-byte records as above) and key: the block is the
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

	ADDQ $24, SI
	ADDQ $96, DI
	DECQ R8
	JNZ  layer
	RET
