//go:build amd64 && !purego

#include "textflag.h"

// Register-blocked micro-kernels for Y = X·Wᵀ (see gemm.go). One call
// computes a tile of R rows of W against T tokens of X over k columns, as
// R·T dot products held in vector accumulators:
//
//	for t := range T {
//		for r := range R {
//			var s float32
//			for c := range k { s += w[r*ldw+c] * x[t*ldx+c] }
//			if accum != 0 { out[t*ldo+r] += s } else { out[t*ldo+r] = s }
//		}
//	}
//
// Tiles: 4×3 (AVX2, 12 of 16 registers), 4×6 and 8×3 (AVX-512, 24 of 32)
// and 8×3 with VDPBF16PS. Per vector step a tile loads T vectors of x and
// R of w and issues R·T FMAs. The weight panel sits in L1 and x streams
// from L2, so the 8×3 tiles (8 FMAs per x load) beat 4×6 (4 per load).
// Every tile and the gemv kernels sum lane c mod width in column order and
// reduce the lanes with the same tree, so an output is bit-identical
// whichever kernel computes it. The sums of a token are adjacent outputs,
// stored four at a time. ldo, ldw and ldx are in elements.

#define W0 SI
#define W1 R8
#define W2 R9
#define W3 R10
#define LDW BX
#define XR0 DI
#define XR1 R12
#define XR2 R13
#define XR3 R12
#define LDX R11
#define N CX
#define I AX
#define OUT DX
#define LDO BX

// ZERO24 clears the 24 sums Z0..Z23 of a 4 × 6 tile.
#define ZERO24 \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15; \
	VPXORD Z16, Z16, Z16; \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18; \
	VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; \
	VPXORD Z21, Z21, Z21; \
	VPXORD Z22, Z22, Z22; \
	VPXORD Z23, Z23, Z23

// HSUMY(a, b, c, d, xa, xs): xa = [Σa, Σb, Σc, Σd] for 8-lane a..d (VEX
// registers), xs scratch.
#define HSUMY(a, b, c, d, xa, xs) \
	VHADDPS      b, a, a; \
	VHADDPS      d, c, c; \
	VHADDPS      c, a, a; \
	VEXTRACTF128 $1, a, xs; \
	VADDPS       xs, xa, xa

// FOLDZ(z) halves a 16-lane sum into its low 8 lanes, through Z24.
#define FOLDZ(z) \
	VEXTRACTF64X4 $1, z, Y24; \
	VADDPS        Z24, z, z

// HSUMZ(za, zb, zc, zd, ya, yb, yc, yd): low lanes of za = [Σza, Σzb, Σzc,
// Σzd] for 16-lane sums in Z0..Z15, through Z24.
#define HSUMZ(za, zb, zc, zd, ya, yb, yc, yd) \
	FOLDZ(za); \
	FOLDZ(zb); \
	FOLDZ(zc); \
	FOLDZ(zd); \
	VHADDPS       yb, ya, ya; \
	VHADDPS       yd, yc, yc; \
	VHADDPS       yc, ya, ya; \
	VEXTRACTF32X4 $1, za, X24; \
	VADDPS        Z24, za, za

// STORE4(xa, addr): out[addr:addr+4] = xa, or += xa when accum (in R12).
#define STORE4(xa, addr) \
	TESTQ   R12, R12; \
	JZ      2(PC); \
	VADDPS  addr, xa, xa; \
	VMOVUPS xa, addr

// func gemm4x3F32AVX2(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int)
//
// T = 3 tokens: 12 accumulators Y0..Y11 (token t, row r in Y(4t+r)), x in
// Y12..Y14, w in Y15: all 16 AVX2 registers. k is a multiple of 8.
TEXT ·gemm4x3F32AVX2(SB), NOSPLIT, $0-64
	MOVQ w+16(FP), W0
	MOVQ ldw+24(FP), LDW
	SHLQ $2, LDW
	LEAQ (W0)(LDW*1), W1
	LEAQ (W0)(LDW*2), W2
	LEAQ (W1)(LDW*2), W3
	MOVQ x+32(FP), XR0
	MOVQ ldx+40(FP), LDX
	SHLQ $2, LDX
	LEAQ (XR0)(LDX*1), XR1
	LEAQ (XR0)(LDX*2), XR2
	MOVQ k+48(FP), N
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ   I, I
	TESTQ  N, N
	JE     avx2sum

avx2loop:
	VMOVUPS     (XR0)(I*4), Y12 // x0[c:c+8]
	VMOVUPS     (XR1)(I*4), Y13 // x1[c:c+8]
	VMOVUPS     (XR2)(I*4), Y14 // x2[c:c+8]
	VMOVUPS     (W0)(I*4), Y15 // w0[c:c+8]
	VFMADD231PS Y15, Y12, Y0   // s(0,0) += w0 * x0
	VFMADD231PS Y15, Y13, Y4   // s(1,0) += w0 * x1
	VFMADD231PS Y15, Y14, Y8   // s(2,0) += w0 * x2
	VMOVUPS     (W1)(I*4), Y15 // w1[c:c+8]
	VFMADD231PS Y15, Y12, Y1   // s(0,1) += w1 * x0
	VFMADD231PS Y15, Y13, Y5   // s(1,1) += w1 * x1
	VFMADD231PS Y15, Y14, Y9   // s(2,1) += w1 * x2
	VMOVUPS     (W2)(I*4), Y15 // w2[c:c+8]
	VFMADD231PS Y15, Y12, Y2   // s(0,2) += w2 * x0
	VFMADD231PS Y15, Y13, Y6   // s(1,2) += w2 * x1
	VFMADD231PS Y15, Y14, Y10  // s(2,2) += w2 * x2
	VMOVUPS     (W3)(I*4), Y15 // w3[c:c+8]
	VFMADD231PS Y15, Y12, Y3   // s(0,3) += w3 * x0
	VFMADD231PS Y15, Y13, Y7   // s(1,3) += w3 * x1
	VFMADD231PS Y15, Y14, Y11  // s(2,3) += w3 * x2
	ADDQ        $8, I          // c += 8
	CMPQ        I, N
	JL          avx2loop

avx2sum:
	HSUMY(Y0, Y1, Y2, Y3, X0, X12)   // X0 = token 0's four sums
	HSUMY(Y4, Y5, Y6, Y7, X4, X12)   // X4 = token 1's
	HSUMY(Y8, Y9, Y10, Y11, X8, X12) // X8 = token 2's
	MOVQ out+0(FP), OUT
	MOVQ ldo+8(FP), LDO
	SHLQ $2, LDO
	MOVQ accum+56(FP), R12
	STORE4(X0, (OUT))
	STORE4(X4, (OUT)(LDO*1))
	STORE4(X8, (OUT)(LDO*2))
	VZEROUPPER
	RET

// func gemm4x6F32AVX512(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int)
//
// T = 6 tokens: 24 accumulators Z0..Z23 (token t, row r in Z(4t+r)), x in
// Z24..Z29, w in Z30/Z31. Row pointers advance by one vector per step, rows
// 1, 2 (and 4, 5 of x) addressed through the stride. k is a multiple of 16.
TEXT ·gemm4x6F32AVX512(SB), NOSPLIT, $0-64
	MOVQ w+16(FP), W0      // w row 0
	MOVQ ldw+24(FP), LDW
	SHLQ $2, LDW           // row stride in bytes
	LEAQ (W0)(LDW*2), W3
	ADDQ LDW, W3           // w row 3
	MOVQ x+32(FP), XR0     // x row 0
	MOVQ ldx+40(FP), LDX
	SHLQ $2, LDX
	LEAQ (XR0)(LDX*2), XR3
	ADDQ LDX, XR3          // x row 3
	MOVQ k+48(FP), N
	ZERO24 // s(t, r) = 0 for t < 6, r < 4
	TESTQ N, N
	JE    avx512sum

avx512loop:
	VMOVUPS     (XR0), Z24          // x0[c:c+16]
	VMOVUPS     (XR0)(LDX*1), Z25   // x1[c:c+16]
	VMOVUPS     (XR0)(LDX*2), Z26   // x2[c:c+16]
	VMOVUPS     (XR3), Z27          // x3[c:c+16]
	VMOVUPS     (XR3)(LDX*1), Z28   // x4[c:c+16]
	VMOVUPS     (XR3)(LDX*2), Z29   // x5[c:c+16]
	VMOVUPS     (W0), Z30          // w0[c:c+16]
	VMOVUPS     (W0)(LDW*1), Z31   // w1[c:c+16]
	VFMADD231PS Z30, Z24, Z0       // s(0,0) += w0 * x0
	VFMADD231PS Z30, Z25, Z4       // s(1,0) += w0 * x1
	VFMADD231PS Z30, Z26, Z8       // s(2,0) += w0 * x2
	VFMADD231PS Z30, Z27, Z12      // s(3,0) += w0 * x3
	VFMADD231PS Z30, Z28, Z16      // s(4,0) += w0 * x4
	VFMADD231PS Z30, Z29, Z20      // s(5,0) += w0 * x5
	VMOVUPS     (W0)(LDW*2), Z30   // w2[c:c+16]
	VFMADD231PS Z31, Z24, Z1       // s(0,1) += w1 * x0
	VFMADD231PS Z31, Z25, Z5       // s(1,1) += w1 * x1
	VFMADD231PS Z31, Z26, Z9       // s(2,1) += w1 * x2
	VFMADD231PS Z31, Z27, Z13      // s(3,1) += w1 * x3
	VFMADD231PS Z31, Z28, Z17      // s(4,1) += w1 * x4
	VFMADD231PS Z31, Z29, Z21      // s(5,1) += w1 * x5
	VMOVUPS     (W3), Z31          // w3[c:c+16]
	VFMADD231PS Z30, Z24, Z2       // s(0,2) += w2 * x0
	VFMADD231PS Z30, Z25, Z6       // s(1,2) += w2 * x1
	VFMADD231PS Z30, Z26, Z10      // s(2,2) += w2 * x2
	VFMADD231PS Z30, Z27, Z14      // s(3,2) += w2 * x3
	VFMADD231PS Z30, Z28, Z18      // s(4,2) += w2 * x4
	VFMADD231PS Z30, Z29, Z22      // s(5,2) += w2 * x5
	VFMADD231PS Z31, Z24, Z3       // s(0,3) += w3 * x0
	VFMADD231PS Z31, Z25, Z7       // s(1,3) += w3 * x1
	VFMADD231PS Z31, Z26, Z11      // s(2,3) += w3 * x2
	VFMADD231PS Z31, Z27, Z15      // s(3,3) += w3 * x3
	VFMADD231PS Z31, Z28, Z19      // s(4,3) += w3 * x4
	VFMADD231PS Z31, Z29, Z23      // s(5,3) += w3 * x5
	ADDQ        $64, XR0            // x rows advance 16 columns
	ADDQ        $64, XR3
	ADDQ        $64, W0            // w rows advance 16 columns
	ADDQ        $64, W3
	SUBQ        $16, N             // k -= 16
	JNZ         avx512loop

avx512sum:
	HSUMZ(Z0, Z1, Z2, Z3, Y0, Y1, Y2, Y3)         // X0 = token 0's four sums
	HSUMZ(Z4, Z5, Z6, Z7, Y4, Y5, Y6, Y7)         // X4 = token 1's
	HSUMZ(Z8, Z9, Z10, Z11, Y8, Y9, Y10, Y11)     // X8 = token 2's
	HSUMZ(Z12, Z13, Z14, Z15, Y12, Y13, Y14, Y15) // X12 = token 3's
	VMOVAPS Z16, Z1 // tokens 4 and 5 move to VEX-reachable registers
	VMOVAPS Z17, Z2
	VMOVAPS Z18, Z3
	VMOVAPS Z19, Z5
	VMOVAPS Z20, Z6
	VMOVAPS Z21, Z7
	VMOVAPS Z22, Z9
	VMOVAPS Z23, Z10
	HSUMZ(Z1, Z2, Z3, Z5, Y1, Y2, Y3, Y5)   // X1 = token 4's
	HSUMZ(Z6, Z7, Z9, Z10, Y6, Y7, Y9, Y10) // X6 = token 5's
	MOVQ out+0(FP), OUT
	MOVQ ldo+8(FP), LDO
	SHLQ $2, LDO
	MOVQ accum+56(FP), R12
	LEAQ (OUT)(LDO*2), R13
	ADDQ LDO, R13 // R13 = out + 3·ldo
	STORE4(X0, (OUT))
	STORE4(X4, (OUT)(LDO*1))
	STORE4(X8, (OUT)(LDO*2))
	STORE4(X12, (R13))
	STORE4(X1, (R13)(LDO*1))
	STORE4(X6, (R13)(LDO*2))
	VZEROUPPER
	RET

// func roundBF16DP(dst *BF16, src *float32, n int)
//
//	for i := range n { dst[i] = FromFloat32(src[i]) }
//
// except that VCVTNEPS2BF16 treats subnormal inputs as zero (and so
// returns ±0 for them). Only activations go through it. n is a multiple
// of 16.
TEXT ·roundBF16DP(SB), NOSPLIT, $0-24
	MOVQ  dst+0(FP), DI
	MOVQ  src+8(FP), SI
	MOVQ  n+16(FP), N
	XORQ  I, I
	TESTQ N, N
	JE    rounddone

roundloop:
	VMOVUPS (SI)(I*4), Z0 // src[i:i+16]
	BYTE $0x62; BYTE $0xf2; BYTE $0x7e; BYTE $0x48; BYTE $0x72; BYTE $0xc0 // VCVTNEPS2BF16 Z0, Y0
	VMOVDQU Y0, (DI)(I*2) // dst[i:i+16]
	ADDQ    $16, I
	CMPQ    I, N
	JL      roundloop

rounddone:
	VZEROUPPER
	RET

// func prefetch4(p unsafe.Pointer, ld int, n int)
//
// Asks for the four rows p, p+ld, p+2·ld, p+3·ld (n bytes each, ld in
// bytes) to be brought into L2 while the current panel computes: the next
// weight panel lies in rows far apart, where the hardware prefetcher does
// not look ahead. A hint only; it never faults.
TEXT ·prefetch4(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ ld+8(FP), BX
	MOVQ n+16(FP), CX
	LEAQ (SI)(BX*1), R8 // row 1
	LEAQ (SI)(BX*2), R9 // row 2
	LEAQ (R8)(BX*2), R10 // row 3
	XORQ AX, AX

prefetchloop:
	PREFETCHT1 (SI)(AX*1)
	PREFETCHT1 (R8)(AX*1)
	PREFETCHT1 (R9)(AX*1)
	PREFETCHT1 (R10)(AX*1)
	ADDQ       $64, AX // one cache line
	CMPQ       AX, CX
	JL         prefetchloop
	RET

#define W6 R13

// func gemm8x3F32AVX512(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int, tiles int)
//
// Runs tiles ≥ 1 tiles in a row, tokens 3i..3i+2 for i < tiles: one call
// per panel rather than per tile (measured gain small, 0–3 %).
// The 8-row × 3-token tile, same sums as gemm4x6F32AVX512 (same lanes,
// same reduction tree, so an output is bit-identical whichever tile makes
// it). Each x vector now feeds 8 FMAs instead of 4: x streams from L2 while
// the widened weight panel sits in L1, and halving the x bytes per FMA is
// what lifts the tile from ~72 % to ~80 % of FMA peak (n = 128). 24 sums
// Z0..Z23 (token t, row r in Z(8t+r)), x in Z24..Z26, w in Z27..Z30.
TEXT ·gemm8x3F32AVX512(SB), NOSPLIT, $0-72
	MOVQ tiles+64(FP), R8 // tiles left
	MOVQ x+32(FP), R9     // x rows of this tile
	MOVQ out+0(FP), AX    // out rows of this tile

tF32AVX512tile:
	MOVQ w+16(FP), W0      // w row 0
	MOVQ ldw+24(FP), LDW
	SHLQ $2, LDW           // row stride in bytes
	LEAQ (W0)(LDW*2), W3
	ADDQ LDW, W3           // w row 3
	LEAQ (W3)(LDW*2), W6
	ADDQ LDW, W6           // w row 6
	MOVQ R9, XR0           // x row 0
	MOVQ ldx+40(FP), LDX
	SHLQ $2, LDX
	MOVQ k+48(FP), N
	ZERO24 // s(t, r) = 0 for t < 3, r < 8
	TESTQ N, N
	JE    t83sum

t83loop:
	VMOVUPS     (XR0), Z24        // x0[c:c+16]
	VMOVUPS     (XR0)(LDX*1), Z25 // x1[c:c+16]
	VMOVUPS     (XR0)(LDX*2), Z26 // x2[c:c+16]
	VMOVUPS     (W0), Z27         // w0[c:c+16]
	VMOVUPS     (W0)(LDW*1), Z28  // w1[c:c+16]
	VMOVUPS     (W0)(LDW*2), Z29  // w2[c:c+16]
	VMOVUPS     (W3), Z30         // w3[c:c+16]
	VFMADD231PS Z27, Z24, Z0      // s(0,0) += w0 * x0
	VFMADD231PS Z27, Z25, Z8      // s(1,0) += w0 * x1
	VFMADD231PS Z27, Z26, Z16     // s(2,0) += w0 * x2
	VMOVUPS     (W3)(LDW*1), Z27  // w4[c:c+16]
	VFMADD231PS Z28, Z24, Z1      // s(0,1) += w1 * x0
	VFMADD231PS Z28, Z25, Z9      // s(1,1) += w1 * x1
	VFMADD231PS Z28, Z26, Z17     // s(2,1) += w1 * x2
	VMOVUPS     (W3)(LDW*2), Z28  // w5[c:c+16]
	VFMADD231PS Z29, Z24, Z2      // s(0,2) += w2 * x0
	VFMADD231PS Z29, Z25, Z10     // s(1,2) += w2 * x1
	VFMADD231PS Z29, Z26, Z18     // s(2,2) += w2 * x2
	VMOVUPS     (W6), Z29         // w6[c:c+16]
	VFMADD231PS Z30, Z24, Z3      // s(0,3) += w3 * x0
	VFMADD231PS Z30, Z25, Z11     // s(1,3) += w3 * x1
	VFMADD231PS Z30, Z26, Z19     // s(2,3) += w3 * x2
	VMOVUPS     (W6)(LDW*1), Z30  // w7[c:c+16]
	VFMADD231PS Z27, Z24, Z4      // s(0,4) += w4 * x0
	VFMADD231PS Z27, Z25, Z12     // s(1,4) += w4 * x1
	VFMADD231PS Z27, Z26, Z20     // s(2,4) += w4 * x2
	VFMADD231PS Z28, Z24, Z5      // s(0,5) += w5 * x0
	VFMADD231PS Z28, Z25, Z13     // s(1,5) += w5 * x1
	VFMADD231PS Z28, Z26, Z21     // s(2,5) += w5 * x2
	VFMADD231PS Z29, Z24, Z6      // s(0,6) += w6 * x0
	VFMADD231PS Z29, Z25, Z14     // s(1,6) += w6 * x1
	VFMADD231PS Z29, Z26, Z22     // s(2,6) += w6 * x2
	VFMADD231PS Z30, Z24, Z7      // s(0,7) += w7 * x0
	VFMADD231PS Z30, Z25, Z15     // s(1,7) += w7 * x1
	VFMADD231PS Z30, Z26, Z23     // s(2,7) += w7 * x2
	ADDQ        $64, XR0          // x rows advance 16 columns
	ADDQ        $64, W0           // w rows advance 16 columns
	ADDQ        $64, W3
	ADDQ        $64, W6
	SUBQ        $16, N            // k -= 16
	JNZ         t83loop

t83sum:
	HSUMZ(Z0, Z1, Z2, Z3, Y0, Y1, Y2, Y3)         // X0 = token 0, rows 0..3
	HSUMZ(Z4, Z5, Z6, Z7, Y4, Y5, Y6, Y7)         // X4 = token 0, rows 4..7
	HSUMZ(Z8, Z9, Z10, Z11, Y8, Y9, Y10, Y11)     // X8 = token 1, rows 0..3
	HSUMZ(Z12, Z13, Z14, Z15, Y12, Y13, Y14, Y15) // X12 = token 1, rows 4..7
	VMOVAPS Z16, Z1 // token 2 moves to VEX-reachable registers
	VMOVAPS Z17, Z2
	VMOVAPS Z18, Z3
	VMOVAPS Z19, Z5
	VMOVAPS Z20, Z6
	VMOVAPS Z21, Z7
	VMOVAPS Z22, Z9
	VMOVAPS Z23, Z10
	HSUMZ(Z1, Z2, Z3, Z5, Y1, Y2, Y3, Y5)   // X1 = token 2, rows 0..3
	HSUMZ(Z6, Z7, Z9, Z10, Y6, Y7, Y9, Y10) // X6 = token 2, rows 4..7
	MOVQ AX, OUT
	MOVQ ldo+8(FP), LDO
	SHLQ $2, LDO
	MOVQ accum+56(FP), R12
	STORE4(X0, (OUT))
	STORE4(X4, 16(OUT))
	STORE4(X8, (OUT)(LDO*1))
	STORE4(X12, 16(OUT)(LDO*1))
	STORE4(X1, (OUT)(LDO*2))
	STORE4(X6, 16(OUT)(LDO*2))
	LEAQ (R9)(LDX*2), R9 // next tile: x += 3 rows
	ADDQ LDX, R9
	LEAQ (AX)(LDO*2), AX // out += 3 rows
	ADDQ LDO, AX
	DECQ R8
	JNZ  tF32AVX512tile
	VZEROUPPER
	RET

// func gemm8x3BF16DP(out *float32, ldo int, w *BF16, ldw int, x *BF16, ldx int, k int, accum int, tiles int)
//
// The AVX512_BF16 tile: x is already rounded to bf16, and VDPBF16PS adds
// the products of adjacent bf16 pairs into each fp32 lane, so one
// instruction does 32 multiply-adds:
//
//	s[i] += float32(w[2i])·float32(x[2i]) + float32(w[2i+1])·float32(x[2i+1])
//
// Same register plan as gemm8x3F32AVX512 with 32 columns per step; k is a
// multiple of 32. The Go assembler lacks VDPBF16PS, so it is emitted as
// EVEX bytes (from GNU as) with the mnemonic beside; the tests check it.
TEXT ·gemm8x3BF16DP(SB), NOSPLIT, $0-72
	MOVQ tiles+64(FP), R8 // tiles left
	MOVQ x+32(FP), R9     // x rows of this tile
	MOVQ out+0(FP), AX    // out rows of this tile

tBF16DPtile:
	MOVQ w+16(FP), W0      // w row 0
	MOVQ ldw+24(FP), LDW
	SHLQ $1, LDW           // row stride in bytes (bf16)
	LEAQ (W0)(LDW*2), W3
	ADDQ LDW, W3           // w row 3
	LEAQ (W3)(LDW*2), W6
	ADDQ LDW, W6           // w row 6
	MOVQ R9, XR0           // x row 0 (bf16)
	MOVQ ldx+40(FP), LDX
	SHLQ $1, LDX
	MOVQ k+48(FP), N
	ZERO24 // s(t, r) = 0 for t < 3, r < 8
	TESTQ N, N
	JE    dp83sum

dp83loop:
	VMOVDQU32 (XR0), Z24        // x0[c:c+32]
	VMOVDQU32 (XR0)(LDX*1), Z25 // x1[c:c+32]
	VMOVDQU32 (XR0)(LDX*2), Z26 // x2[c:c+32]
	VMOVDQU32 (W0), Z27         // w0[c:c+32]
	VMOVDQU32 (W0)(LDW*1), Z28  // w1[c:c+32]
	VMOVDQU32 (W0)(LDW*2), Z29  // w2[c:c+32]
	VMOVDQU32 (W3), Z30         // w3[c:c+32]
	BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xc3 // VDPBF16PS Z27, Z24, Z0: s(0,0) += w0 · x0
	BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xc3 // VDPBF16PS Z27, Z25, Z8: s(1,0) += w0 · x1
	BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xc3 // VDPBF16PS Z27, Z26, Z16: s(2,0) += w0 · x2
	VMOVDQU32 (W3)(LDW*1), Z27  // w4[c:c+32]
	BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xcc // VDPBF16PS Z28, Z24, Z1: s(0,1) += w1 · x0
	BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xcc // VDPBF16PS Z28, Z25, Z9: s(1,1) += w1 · x1
	BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xcc // VDPBF16PS Z28, Z26, Z17: s(2,1) += w1 · x2
	VMOVDQU32 (W3)(LDW*2), Z28  // w5[c:c+32]
	BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xd5 // VDPBF16PS Z29, Z24, Z2: s(0,2) += w2 · x0
	BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xd5 // VDPBF16PS Z29, Z25, Z10: s(1,2) += w2 · x1
	BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xd5 // VDPBF16PS Z29, Z26, Z18: s(2,2) += w2 · x2
	VMOVDQU32 (W6), Z29         // w6[c:c+32]
	BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xde // VDPBF16PS Z30, Z24, Z3: s(0,3) += w3 · x0
	BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xde // VDPBF16PS Z30, Z25, Z11: s(1,3) += w3 · x1
	BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xde // VDPBF16PS Z30, Z26, Z19: s(2,3) += w3 · x2
	VMOVDQU32 (W6)(LDW*1), Z30  // w7[c:c+32]
	BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe3 // VDPBF16PS Z27, Z24, Z4: s(0,4) += w4 · x0
	BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xe3 // VDPBF16PS Z27, Z25, Z12: s(1,4) += w4 · x1
	BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xe3 // VDPBF16PS Z27, Z26, Z20: s(2,4) += w4 · x2
	BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xec // VDPBF16PS Z28, Z24, Z5: s(0,5) += w5 · x0
	BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xec // VDPBF16PS Z28, Z25, Z13: s(1,5) += w5 · x1
	BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xec // VDPBF16PS Z28, Z26, Z21: s(2,5) += w5 · x2
	BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xf5 // VDPBF16PS Z29, Z24, Z6: s(0,6) += w6 · x0
	BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xf5 // VDPBF16PS Z29, Z25, Z14: s(1,6) += w6 · x1
	BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xf5 // VDPBF16PS Z29, Z26, Z22: s(2,6) += w6 · x2
	BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xfe // VDPBF16PS Z30, Z24, Z7: s(0,7) += w7 · x0
	BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xfe // VDPBF16PS Z30, Z25, Z15: s(1,7) += w7 · x1
	BYTE $0x62; BYTE $0x82; BYTE $0x2e; BYTE $0x40; BYTE $0x52; BYTE $0xfe // VDPBF16PS Z30, Z26, Z23: s(2,7) += w7 · x2
	ADDQ $64, XR0 // x rows advance 32 columns
	ADDQ $64, W0  // w rows advance 32 columns
	ADDQ $64, W3
	ADDQ $64, W6
	SUBQ $32, N   // k -= 32
	JNZ  dp83loop

dp83sum:
	HSUMZ(Z0, Z1, Z2, Z3, Y0, Y1, Y2, Y3)         // X0 = token 0, rows 0..3
	HSUMZ(Z4, Z5, Z6, Z7, Y4, Y5, Y6, Y7)         // X4 = token 0, rows 4..7
	HSUMZ(Z8, Z9, Z10, Z11, Y8, Y9, Y10, Y11)     // X8 = token 1, rows 0..3
	HSUMZ(Z12, Z13, Z14, Z15, Y12, Y13, Y14, Y15) // X12 = token 1, rows 4..7
	VMOVAPS Z16, Z1 // token 2 moves to VEX-reachable registers
	VMOVAPS Z17, Z2
	VMOVAPS Z18, Z3
	VMOVAPS Z19, Z5
	VMOVAPS Z20, Z6
	VMOVAPS Z21, Z7
	VMOVAPS Z22, Z9
	VMOVAPS Z23, Z10
	HSUMZ(Z1, Z2, Z3, Z5, Y1, Y2, Y3, Y5)   // X1 = token 2, rows 0..3
	HSUMZ(Z6, Z7, Z9, Z10, Y6, Y7, Y9, Y10) // X6 = token 2, rows 4..7
	MOVQ AX, OUT
	MOVQ ldo+8(FP), LDO
	SHLQ $2, LDO
	MOVQ accum+56(FP), R12
	STORE4(X0, (OUT))
	STORE4(X4, 16(OUT))
	STORE4(X8, (OUT)(LDO*1))
	STORE4(X12, 16(OUT)(LDO*1))
	STORE4(X1, (OUT)(LDO*2))
	STORE4(X6, 16(OUT)(LDO*2))
	LEAQ (R9)(LDX*2), R9 // next tile: x += 3 rows
	ADDQ LDX, R9
	LEAQ (AX)(LDO*2), AX // out += 3 rows
	ADDQ LDO, AX
	DECQ R8
	JNZ  tBF16DPtile
	VZEROUPPER
	RET
