//go:build amd64 && !purego

#include "textflag.h"

// The 512-bit product t0..t7 is in R8..R15. REDUCE folds t4..t7 back in
// with 2^256 = 0x1000003D1 (mod p), then the bits above 2^256 that this
// leaves (below 2^34), then a last carry, and stores the result (below
// 2^256) to r.
#define REDUCE \
	MOVQ  $0x1000003D1, DX \
	XORQ  AX, AX \
	MULXQ R12, AX, CX \
	ADCXQ AX, R8 \
	ADOXQ CX, R9 \
	MULXQ R13, AX, CX \
	ADCXQ AX, R9 \
	ADOXQ CX, R10 \
	MULXQ R14, AX, CX \
	ADCXQ AX, R10 \
	ADOXQ CX, R11 \
	MULXQ R15, AX, R12 \
	ADCXQ AX, R11 \
	MOVQ  $0, R13 \
	ADOXQ R13, R12 \
	ADCXQ R13, R12 \
	MULXQ R12, AX, CX \
	ADDQ  AX, R8 \
	ADCQ  CX, R9 \
	ADCQ  $0, R10 \
	ADCQ  $0, R11 \
	SBBQ  AX, AX \
	ANDQ  DX, AX \
	ADDQ  AX, R8 \
	ADCQ  $0, R9 \
	MOVQ  r+0(FP), DI \
	MOVQ  R8, 0(DI) \
	MOVQ  R9, 8(DI) \
	MOVQ  R10, 16(DI) \
	MOVQ  R11, 24(DI)

// func mulADX(r, a, b *fe)
TEXT ·mulADX(SB), NOSPLIT, $0-24
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX

	// a0 * b into R8..R12.
	MOVQ  0(SI), DX
	MULXQ 0(BX), R8, R9
	MULXQ 8(BX), AX, R10
	ADDQ  AX, R9
	MULXQ 16(BX), AX, R11
	ADCQ  AX, R10
	MULXQ 24(BX), AX, R12
	ADCQ  AX, R11
	ADCQ  $0, R12

	// a1 * b into R9..R13: low halves on the CF chain, high halves on
	// the OF chain.
	MOVQ  8(SI), DX
	XORQ  R13, R13
	MULXQ 0(BX), AX, CX
	ADCXQ AX, R9
	ADOXQ CX, R10
	MULXQ 8(BX), AX, CX
	ADCXQ AX, R10
	ADOXQ CX, R11
	MULXQ 16(BX), AX, CX
	ADCXQ AX, R11
	ADOXQ CX, R12
	MULXQ 24(BX), AX, CX
	ADCXQ AX, R12
	ADOXQ CX, R13
	ADCQ  $0, R13

	// a2 * b into R10..R14.
	MOVQ  16(SI), DX
	XORQ  R14, R14
	MULXQ 0(BX), AX, CX
	ADCXQ AX, R10
	ADOXQ CX, R11
	MULXQ 8(BX), AX, CX
	ADCXQ AX, R11
	ADOXQ CX, R12
	MULXQ 16(BX), AX, CX
	ADCXQ AX, R12
	ADOXQ CX, R13
	MULXQ 24(BX), AX, CX
	ADCXQ AX, R13
	ADOXQ CX, R14
	ADCQ  $0, R14

	// a3 * b into R11..R15.
	MOVQ  24(SI), DX
	XORQ  R15, R15
	MULXQ 0(BX), AX, CX
	ADCXQ AX, R11
	ADOXQ CX, R12
	MULXQ 8(BX), AX, CX
	ADCXQ AX, R12
	ADOXQ CX, R13
	MULXQ 16(BX), AX, CX
	ADCXQ AX, R13
	ADOXQ CX, R14
	MULXQ 24(BX), AX, CX
	ADCXQ AX, R14
	ADOXQ CX, R15
	ADCQ  $0, R15

	REDUCE
	RET

// func sqrADX(r, a *fe)
TEXT ·sqrADX(SB), NOSPLIT, $0-16
	MOVQ a+8(FP), SI

	// Cross products a_i*a_j (i < j) into R9..R14.
	MOVQ  0(SI), DX
	MULXQ 8(SI), R9, R10
	MULXQ 16(SI), AX, R11
	ADDQ  AX, R10
	MULXQ 24(SI), AX, R12
	ADCQ  AX, R11
	ADCQ  $0, R12
	MOVQ  8(SI), DX
	XORQ  R13, R13
	MULXQ 16(SI), AX, CX
	ADCXQ AX, R11
	ADOXQ CX, R12
	MULXQ 24(SI), AX, CX
	ADCXQ AX, R12
	ADOXQ CX, R13
	ADCQ  $0, R13
	MOVQ  16(SI), DX
	MULXQ 24(SI), AX, R14
	ADDQ  AX, R13
	ADCQ  $0, R14

	// Double them (the top bit goes to R15).
	XORQ R15, R15
	ADDQ R9, R9
	ADCQ R10, R10
	ADCQ R11, R11
	ADCQ R12, R12
	ADCQ R13, R13
	ADCQ R14, R14
	ADCQ $0, R15

	// Add the squares a_i^2.
	MOVQ  0(SI), DX
	MULXQ DX, R8, AX
	ADDQ  AX, R9
	MOVQ  8(SI), DX
	MULXQ DX, AX, CX
	ADCQ  AX, R10
	ADCQ  CX, R11
	MOVQ  16(SI), DX
	MULXQ DX, AX, CX
	ADCQ  AX, R12
	ADCQ  CX, R13
	MOVQ  24(SI), DX
	MULXQ DX, AX, CX
	ADCQ  AX, R14
	ADCQ  CX, R15

	REDUCE
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET
