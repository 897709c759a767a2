//go:build !purego

#include "textflag.h"

// intersectBlocks walks two sorted arrays of distinct little-endian uint16
// eight values at a time. PCMPESTRM (SSE4.2, unsigned words, "equal any")
// compares all 64 pairs of two blocks in one instruction and leaves in X0
// a bit per value of b's block found in a's block. The block with the
// smaller last value is moved past (both when equal). A common value lies
// in one block of each array, and that pair of blocks meets exactly once,
// so it is found once. It stops when either array has fewer than eight
// values left and returns where (i, j), for the caller to finish.

// func intersectBlocks(a, b *byte, na, nb int, out *uint16) (n, i, j int)
//
// It returns the number n of common values found and, unless out is nil,
// stores them at out: each step packs the found values of b's block with
// PSHUFB (packWords[mask]) and stores all 16 bytes, so out needs room for
// eight values past the last one found.
TEXT ·intersectBlocks(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ na+16(FP), R8
	MOVQ nb+24(FP), R9
	MOVQ out+32(FP), R14
	XORQ R10, R10
	XORQ R11, R11
	XORQ R12, R12
	MOVL $8, AX
	MOVL $8, DX
	SUBQ $8, R8
	SUBQ $8, R9

interLoop:
	CMPQ R10, R8
	JGT  interDone
	CMPQ R11, R9
	JGT  interDone
	MOVOU (SI)(R10*2), X1
	MOVOU (DI)(R11*2), X2
	PCMPESTRM $0x01, X2, X1
	MOVQ X0, BX
	POPCNTL BX, R13
	TESTQ R14, R14
	JZ   interNext
	SHLQ $4, BX
	LEAQ ·packWords(SB), CX
	MOVOU (CX)(BX*1), X3
	PSHUFB X3, X2
	MOVOU X2, (R14)(R12*2)

interNext:
	ADDQ R13, R12
	MOVWLZX 14(SI)(R10*2), BX
	MOVWLZX 14(DI)(R11*2), CX
	CMPL BX, CX
	JA   interMoveB
	ADDQ $8, R10
	CMPL BX, CX
	JNE  interLoop

interMoveB:
	ADDQ $8, R11
	JMP  interLoop

interDone:
	MOVQ R12, n+40(FP)
	MOVQ R10, i+48(FP)
	MOVQ R11, j+56(FP)
	RET
