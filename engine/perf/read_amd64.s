#include "textflag.h"

// func readSumAVX2(p *uint64, n int) uint64
//
// Reference (readSumGeneric):
//	for i := 0; i < n; i++ { s += p[i] }
// Eight 256-bit accumulators, one 32-byte load each per 256-byte block, so
// eight loads are in flight and no add waits on another.

#define PTR SI
#define CNT CX

TEXT ·readSumAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), PTR
	MOVQ n+8(FP), CNT
	SHRQ $5, CNT                // blocks = n / 32 words
	VPXOR Y0, Y0, Y0            // acc0..acc7 = 0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	TESTQ CNT, CNT
	JZ    reduce

loop:
	VPADDQ 0(PTR), Y0, Y0       // acc0 += p[0:4]
	VPADDQ 32(PTR), Y1, Y1      // acc1 += p[4:8]
	VPADDQ 64(PTR), Y2, Y2
	VPADDQ 96(PTR), Y3, Y3
	VPADDQ 128(PTR), Y4, Y4
	VPADDQ 160(PTR), Y5, Y5
	VPADDQ 192(PTR), Y6, Y6
	VPADDQ 224(PTR), Y7, Y7     // acc7 += p[28:32]
	ADDQ   $256, PTR            // p += 32 words
	DECQ   CNT
	JNZ    loop

reduce:
	VPADDQ Y1, Y0, Y0           // fold the eight accumulators into Y0
	VPADDQ Y3, Y2, Y2
	VPADDQ Y5, Y4, Y4
	VPADDQ Y7, Y6, Y6
	VPADDQ Y2, Y0, Y0
	VPADDQ Y6, Y4, Y4
	VPADDQ Y4, Y0, Y0
	VEXTRACTI128 $1, Y0, X1     // high 128 bits
	VPADDQ X1, X0, X0
	VPSHUFD $0x4e, X0, X1       // swap the two 64-bit lanes
	VPADDQ X1, X0, X0
	VMOVQ  X0, AX
	VZEROUPPER
	MOVQ   AX, ret+16(FP)
	RET

// func readSumAVX512(p *uint64, n int) uint64
//
// readSumAVX2 with 64-byte loads: four 512-bit accumulators per 256-byte
// block. On Zen 5 a core issues two 64-byte loads a cycle, so the probe
// must not be bound by load count where the weight stream (read with
// 64-byte loads at the AVX-512 level) is not.
TEXT ·readSumAVX512(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), PTR
	MOVQ n+8(FP), CNT
	SHRQ $5, CNT                // blocks = n / 32 words
	VPXORQ Z0, Z0, Z0           // acc0..acc3 = 0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	TESTQ CNT, CNT
	JZ    reduce5

loop5:
	VPADDQ 0(PTR), Z0, Z0       // acc0 += p[0:8]
	VPADDQ 64(PTR), Z1, Z1      // acc1 += p[8:16]
	VPADDQ 128(PTR), Z2, Z2
	VPADDQ 192(PTR), Z3, Z3     // acc3 += p[24:32]
	ADDQ   $256, PTR            // p += 32 words
	DECQ   CNT
	JNZ    loop5

reduce5:
	VPADDQ Z1, Z0, Z0           // fold the four accumulators into Z0
	VPADDQ Z3, Z2, Z2
	VPADDQ Z2, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1    // high 256 bits
	VPADDQ Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1     // high 128 bits
	VPADDQ X1, X0, X0
	VPSHUFD $0x4e, X0, X1       // swap the two 64-bit lanes
	VPADDQ X1, X0, X0
	VMOVQ  X0, AX
	VZEROUPPER
	MOVQ   AX, ret+16(FP)
	RET
