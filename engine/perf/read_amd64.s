#include "textflag.h"

#define PTR SI
#define CNT CX

// func readSumAVX2(p *uint64, n, stride int) uint64
//
// Reference (readSumGeneric):
//	for k := 0; k < 4; k++ { for i := 0; i < n; i++ { s += p[k·stride/8 + i] } }
// Four streams stride bytes apart, 64 bytes of each a step (two 32-byte
// loads into accumulators of their own), so eight loads are in flight and
// no add waits on another. n is a multiple of 8.
TEXT ·readSumAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), PTR
	MOVQ n+8(FP), CNT
	MOVQ stride+16(FP), DX
	LEAQ (DX)(DX*2), R8         // 3·stride
	SHRQ $3, CNT                // steps = n / 8 words
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
	VPADDQ 0(PTR), Y0, Y0       // stream 0
	VPADDQ 32(PTR), Y1, Y1
	VPADDQ 0(PTR)(DX*1), Y2, Y2 // stream 1
	VPADDQ 32(PTR)(DX*1), Y3, Y3
	VPADDQ 0(PTR)(DX*2), Y4, Y4 // stream 2
	VPADDQ 32(PTR)(DX*2), Y5, Y5
	VPADDQ 0(PTR)(R8*1), Y6, Y6 // stream 3
	VPADDQ 32(PTR)(R8*1), Y7, Y7
	ADDQ   $64, PTR
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
	MOVQ   AX, ret+24(FP)
	RET

// func readSumAVX512(p *uint64, n, stride int) uint64
//
// readSumAVX2 with 64-byte loads: one 512-bit accumulator a stream. On
// Zen 5 a core issues two 64-byte loads a cycle, so the probe must not be
// bound by load count where the weight stream (read with 64-byte loads at
// the AVX-512 level) is not.
TEXT ·readSumAVX512(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), PTR
	MOVQ n+8(FP), CNT
	MOVQ stride+16(FP), DX
	LEAQ (DX)(DX*2), R8         // 3·stride
	SHRQ $3, CNT                // steps = n / 8 words
	VPXORQ Z0, Z0, Z0           // acc0..acc3 = 0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	TESTQ CNT, CNT
	JZ    reduce5

loop5:
	VPADDQ 0(PTR), Z0, Z0       // stream 0
	VPADDQ 0(PTR)(DX*1), Z1, Z1 // stream 1
	VPADDQ 0(PTR)(DX*2), Z2, Z2 // stream 2
	VPADDQ 0(PTR)(R8*1), Z3, Z3 // stream 3
	ADDQ   $64, PTR
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
	MOVQ   AX, ret+24(FP)
	RET
