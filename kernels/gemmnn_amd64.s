//go:build amd64 && !purego

#include "textflag.h"

// The outer-product ("broadcast") micro-kernel for Y = X·B (gemmnn.go) and
// the packers that turn rows of W into its B operand, so that prefill
// Y = X·Wᵀ runs on it too (B = Wᵀ, one 32-row panel of W at a time).
//
// The dot-product tiles of gemm_amd64.s put the lanes along the columns of
// W and X and end every output in a horizontal sum. Here the lanes run
// along the outputs of a token: a vector of B (16 consecutive outputs j
// at one column c) is multiplied by x[t][c] broadcast to every lane, so each
// output is one sequential sum over c, finished in its lane, with no
// reduction at the end. The same tile in AVX2's 16 registers
// (gemmNN16x6AVX2) runs MatMulNN at that level.

// Register plan of gemmNN32x12AVX512: 24 sums Z0..Z23 (token t: Z(2t) holds
// outputs j = 0..15, Z(2t+1) j = 16..31), b[c][0:32] in Z24/Z25,
// broadcasts of x[t][c] in Z26..Z31 (six in flight, reused every six
// tokens). Per column c: 2 vector loads, 12 broadcast loads, 24 FMAs.
#define NB SI     // &b[c][0]
#define NLDB BX   // ldb in bytes
#define NX0 DI    // &x[0][c]; x[1], x[2] at +ldx, +2·ldx
#define NX3 R8    // &x[3][c]
#define NX6 R9    // &x[6][c]
#define NX9 R10   // &x[9][c]
#define NLDX R11  // ldx in bytes
#define NK CX     // columns left
#define NOUT DX   // &out[t][0]
#define NLDO R12  // ldo in bytes

// ZERO8, ZERO16, ZERO24 clear the sums Z0..Z7, Z0..Z15, Z0..Z23.
#define ZERO8 \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7

#define ZERO16 \
	ZERO8; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15

#define ZERO24 \
	ZERO16; \
	VPXORD Z16, Z16, Z16; \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18; \
	VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; \
	VPXORD Z21, Z21, Z21; \
	VPXORD Z22, Z22, Z22; \
	VPXORD Z23, Z23, Z23

// BCAST2(p, zx, za, zb): the two FMAs of token t (x[t][c] at p, sums za, zb):
// s(t, 0:16) += b[c][0:16]·x[t][c], s(t, 16:32) += b[c][16:32]·x[t][c].
#define BCAST2(p, zx, za, zb) \
	VBROADCASTSS p, zx; \
	VFMADD231PS  Z24, zx, za; \
	VFMADD231PS  Z25, zx, zb

// PREFETCHOUT1, PREFETCHOUT4: out[t][0:32] (128 bytes, up to 3 lines when
// unaligned) for one or four tokens, requested into L1 before the column
// loop, which outlasts the miss, instead of stalling the stores after it.
// Every column block reads and writes all of out (n × rows floats, 18 MB
// at n = 512 on 8960 × 1536): there this took 201-205 GFLOP/s to 226-229;
// on shapes whose out stays in cache it is within noise.
#define PREFETCHOUT1 \
	PREFETCHT0 (NOUT); \
	PREFETCHT0 64(NOUT); \
	PREFETCHT0 124(NOUT); \
	ADDQ       NLDO, NOUT

#define PREFETCHOUT4 \
	PREFETCHOUT1; \
	PREFETCHOUT1; \
	PREFETCHOUT1; \
	PREFETCHOUT1

// STORE2(za, zb): out[t][0:32] = s(t), then out moves to the next token.
#define STORE2(za, zb) \
	VMOVUPS za, (NOUT); \
	VMOVUPS zb, 64(NOUT); \
	ADDQ    NLDO, NOUT

// ADDSTORE2(za, zb): out[t][0:32] += s(t), then the next token.
#define ADDSTORE2(za, zb) \
	VADDPS  (NOUT), za, za; \
	VADDPS  64(NOUT), zb, zb; \
	VMOVUPS za, (NOUT); \
	VMOVUPS zb, 64(NOUT); \
	ADDQ    NLDO, NOUT

// func gemmNN32x12AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)
//
//	for t := range 12 {
//		for j := range 32 {
//			var s float32
//			for c := range k { s = fma(x[t*ldx+c], b[c*ldb+j], s) }
//			if accum != 0 { out[t*ldo+j] += s } else { out[t*ldo+j] = s }
//		}
//	}
//
// Any k ≥ 0 (k = 0 gives s = 0). The finished sum is added to out, never
// loaded into the sums, so a tile computed into scratch and added by Go
// (put) is bit-identical to one computed in place.
TEXT ·gemmNN32x12AVX512(SB), NOSPLIT, $0-64
	MOVQ b+16(FP), NB
	MOVQ ldb+24(FP), NLDB
	SHLQ $2, NLDB             // row stride of b in bytes
	MOVQ x+32(FP), NX0        // x row 0
	MOVQ ldx+40(FP), NLDX
	SHLQ $2, NLDX             // row stride of x in bytes
	LEAQ (NX0)(NLDX*2), NX3
	ADDQ NLDX, NX3            // x row 3
	LEAQ (NX3)(NLDX*2), NX6
	ADDQ NLDX, NX6            // x row 6
	LEAQ (NX6)(NLDX*2), NX9
	ADDQ NLDX, NX9            // x row 9
	MOVQ k+48(FP), NK
	MOVQ out+0(FP), NOUT
	MOVQ ldo+8(FP), NLDO
	SHLQ $2, NLDO             // row stride of out in bytes
	PREFETCHOUT4              // out rows 0..3
	PREFETCHOUT4              // 4..7
	PREFETCHOUT4              // 8..11
	ZERO24                    // s(t, j) = 0 for t < 12, j < 32
	TESTQ NK, NK
	JE    nnstore

nnloop:
	VMOVUPS (NB), Z24                        // b[c][0:16]
	VMOVUPS 64(NB), Z25                      // b[c][16:32]
	BCAST2((NX0), Z26, Z0, Z1)               // s(0) += b[c]·x[0][c]
	BCAST2((NX0)(NLDX*1), Z27, Z2, Z3)       // s(1) += b[c]·x[1][c]
	BCAST2((NX0)(NLDX*2), Z28, Z4, Z5)       // s(2) += b[c]·x[2][c]
	BCAST2((NX3), Z29, Z6, Z7)               // s(3) += b[c]·x[3][c]
	BCAST2((NX3)(NLDX*1), Z30, Z8, Z9)       // s(4) += b[c]·x[4][c]
	BCAST2((NX3)(NLDX*2), Z31, Z10, Z11)     // s(5) += b[c]·x[5][c]
	BCAST2((NX6), Z26, Z12, Z13)             // s(6) += b[c]·x[6][c]
	BCAST2((NX6)(NLDX*1), Z27, Z14, Z15)     // s(7) += b[c]·x[7][c]
	BCAST2((NX6)(NLDX*2), Z28, Z16, Z17)     // s(8) += b[c]·x[8][c]
	BCAST2((NX9), Z29, Z18, Z19)             // s(9) += b[c]·x[9][c]
	BCAST2((NX9)(NLDX*1), Z30, Z20, Z21)     // s(10) += b[c]·x[10][c]
	BCAST2((NX9)(NLDX*2), Z31, Z22, Z23)     // s(11) += b[c]·x[11][c]
	ADDQ    NLDB, NB                         // b row c+1
	ADDQ    $4, NX0                          // x columns c+1
	ADDQ    $4, NX3
	ADDQ    $4, NX6
	ADDQ    $4, NX9
	DECQ    NK
	JNZ     nnloop

nnstore:
	MOVQ  out+0(FP), NOUT
	MOVQ  ldo+8(FP), NLDO
	SHLQ  $2, NLDO            // row stride of out in bytes
	MOVQ  accum+56(FP), AX
	TESTQ AX, AX
	JNZ   nnaccum
	STORE2(Z0, Z1)            // out[0][0:32] = s(0)
	STORE2(Z2, Z3)
	STORE2(Z4, Z5)
	STORE2(Z6, Z7)
	STORE2(Z8, Z9)
	STORE2(Z10, Z11)
	STORE2(Z12, Z13)
	STORE2(Z14, Z15)
	STORE2(Z16, Z17)
	STORE2(Z18, Z19)
	STORE2(Z20, Z21)
	STORE2(Z22, Z23)          // out[11][0:32] = s(11)
	VZEROUPPER
	RET

nnaccum:
	ADDSTORE2(Z0, Z1)         // out[0][0:32] += s(0)
	ADDSTORE2(Z2, Z3)
	ADDSTORE2(Z4, Z5)
	ADDSTORE2(Z6, Z7)
	ADDSTORE2(Z8, Z9)
	ADDSTORE2(Z10, Z11)
	ADDSTORE2(Z12, Z13)
	ADDSTORE2(Z14, Z15)
	ADDSTORE2(Z16, Z17)
	ADDSTORE2(Z18, Z19)
	ADDSTORE2(Z20, Z21)
	ADDSTORE2(Z22, Z23)       // out[11][0:32] += s(11)
	VZEROUPPER
	RET

// func gemmNN32x8AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)
//
// gemmNN32x12AVX512 for t < 8: the leftover tokens of a panel (8 FMAs per
// column and token pair of loads, still FMA-bound). Sums Z0..Z15.
TEXT ·gemmNN32x8AVX512(SB), NOSPLIT, $0-64
	MOVQ b+16(FP), NB
	MOVQ ldb+24(FP), NLDB
	SHLQ $2, NLDB             // row stride of b in bytes
	MOVQ x+32(FP), NX0        // x row 0
	MOVQ ldx+40(FP), NLDX
	SHLQ $2, NLDX             // row stride of x in bytes
	LEAQ (NX0)(NLDX*2), NX3
	ADDQ NLDX, NX3            // x row 3
	LEAQ (NX3)(NLDX*2), NX6
	ADDQ NLDX, NX6            // x row 6
	MOVQ k+48(FP), NK
	ZERO16                    // s(t, j) = 0 for t < 8, j < 32
	TESTQ NK, NK
	JE    nn8store

nn8loop:
	VMOVUPS (NB), Z24                        // b[c][0:16]
	VMOVUPS 64(NB), Z25                      // b[c][16:32]
	BCAST2((NX0), Z26, Z0, Z1)               // s(0) += b[c]·x[0][c]
	BCAST2((NX0)(NLDX*1), Z27, Z2, Z3)       // s(1) += b[c]·x[1][c]
	BCAST2((NX0)(NLDX*2), Z28, Z4, Z5)       // s(2) += b[c]·x[2][c]
	BCAST2((NX3), Z29, Z6, Z7)               // s(3) += b[c]·x[3][c]
	BCAST2((NX3)(NLDX*1), Z30, Z8, Z9)       // s(4) += b[c]·x[4][c]
	BCAST2((NX3)(NLDX*2), Z31, Z10, Z11)     // s(5) += b[c]·x[5][c]
	BCAST2((NX6), Z26, Z12, Z13)             // s(6) += b[c]·x[6][c]
	BCAST2((NX6)(NLDX*1), Z27, Z14, Z15)     // s(7) += b[c]·x[7][c]
	ADDQ    NLDB, NB                         // b row c+1
	ADDQ    $4, NX0                          // x columns c+1
	ADDQ    $4, NX3
	ADDQ    $4, NX6
	DECQ    NK
	JNZ     nn8loop

nn8store:
	MOVQ  out+0(FP), NOUT
	MOVQ  ldo+8(FP), NLDO
	SHLQ  $2, NLDO
	MOVQ  accum+56(FP), AX
	TESTQ AX, AX
	JNZ   nn8accum
	STORE2(Z0, Z1)            // out[0][0:32] = s(0)
	STORE2(Z2, Z3)
	STORE2(Z4, Z5)
	STORE2(Z6, Z7)
	STORE2(Z8, Z9)
	STORE2(Z10, Z11)
	STORE2(Z12, Z13)
	STORE2(Z14, Z15)          // out[7][0:32] = s(7)
	VZEROUPPER
	RET

nn8accum:
	ADDSTORE2(Z0, Z1)         // out[0][0:32] += s(0)
	ADDSTORE2(Z2, Z3)
	ADDSTORE2(Z4, Z5)
	ADDSTORE2(Z6, Z7)
	ADDSTORE2(Z8, Z9)
	ADDSTORE2(Z10, Z11)
	ADDSTORE2(Z12, Z13)
	ADDSTORE2(Z14, Z15)       // out[7][0:32] += s(7)
	VZEROUPPER
	RET

// func gemmNN32x4AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)
//
// gemmNN32x12AVX512 for t < 4. Sums Z0..Z7: eight independent FMA chains,
// just enough to cover the FMA latency on two pipes.
TEXT ·gemmNN32x4AVX512(SB), NOSPLIT, $0-64
	MOVQ b+16(FP), NB
	MOVQ ldb+24(FP), NLDB
	SHLQ $2, NLDB             // row stride of b in bytes
	MOVQ x+32(FP), NX0        // x row 0
	MOVQ ldx+40(FP), NLDX
	SHLQ $2, NLDX             // row stride of x in bytes
	LEAQ (NX0)(NLDX*2), NX3
	ADDQ NLDX, NX3            // x row 3
	MOVQ k+48(FP), NK
	ZERO8                     // s(t, j) = 0 for t < 4, j < 32
	TESTQ NK, NK
	JE    nn4store

nn4loop:
	VMOVUPS (NB), Z24                        // b[c][0:16]
	VMOVUPS 64(NB), Z25                      // b[c][16:32]
	BCAST2((NX0), Z26, Z0, Z1)               // s(0) += b[c]·x[0][c]
	BCAST2((NX0)(NLDX*1), Z27, Z2, Z3)       // s(1) += b[c]·x[1][c]
	BCAST2((NX0)(NLDX*2), Z28, Z4, Z5)       // s(2) += b[c]·x[2][c]
	BCAST2((NX3), Z29, Z6, Z7)               // s(3) += b[c]·x[3][c]
	ADDQ    NLDB, NB                         // b row c+1
	ADDQ    $4, NX0                          // x columns c+1
	ADDQ    $4, NX3
	DECQ    NK
	JNZ     nn4loop

nn4store:
	MOVQ  out+0(FP), NOUT
	MOVQ  ldo+8(FP), NLDO
	SHLQ  $2, NLDO
	MOVQ  accum+56(FP), AX
	TESTQ AX, AX
	JNZ   nn4accum
	STORE2(Z0, Z1)            // out[0][0:32] = s(0)
	STORE2(Z2, Z3)
	STORE2(Z4, Z5)
	STORE2(Z6, Z7)            // out[3][0:32] = s(3)
	VZEROUPPER
	RET

nn4accum:
	ADDSTORE2(Z0, Z1)         // out[0][0:32] += s(0)
	ADDSTORE2(Z2, Z3)
	ADDSTORE2(Z4, Z5)
	ADDSTORE2(Z6, Z7)         // out[3][0:32] += s(3)
	VZEROUPPER
	RET

// BCAST2Y(p, yx, ya, yb): BCAST2 for the AVX2 tile (16 outputs, b[c] in
// Y12/Y13).
#define BCAST2Y(p, yx, ya, yb) \
	VBROADCASTSS p, yx; \
	VFMADD231PS  Y12, yx, ya; \
	VFMADD231PS  Y13, yx, yb

// STORE2Y(ya, yb): out[t][0:16] = s(t), then the next token.
#define STORE2Y(ya, yb) \
	VMOVUPS ya, (NOUT); \
	VMOVUPS yb, 32(NOUT); \
	ADDQ    NLDO, NOUT

// ADDSTORE2Y(ya, yb): out[t][0:16] += s(t), then the next token.
#define ADDSTORE2Y(ya, yb) \
	VADDPS  (NOUT), ya, ya; \
	VADDPS  32(NOUT), yb, yb; \
	VMOVUPS ya, (NOUT); \
	VMOVUPS yb, 32(NOUT); \
	ADDQ    NLDO, NOUT

// func gemmNN16x6AVX2(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)
//
//	for t := range 6 {
//		for j := range 16 {
//			var s float32
//			for c := range k { s = fma(x[t*ldx+c], b[c*ldb+j], s) }
//			out[t*ldo+j] = s  // += s when accum != 0
//		}
//	}
//
// The broadcast tile in 16 AVX2 registers: 12 sums Y0..Y11 (token t:
// Y(2t) outputs 0..7, Y(2t+1) 8..15), b[c][0:16] in Y12/Y13, broadcasts
// in Y14/Y15. Per column: 2 vector loads, 6 broadcasts, 12 FMAs. Any
// k ≥ 0.
TEXT ·gemmNN16x6AVX2(SB), NOSPLIT, $0-64
	MOVQ b+16(FP), NB
	MOVQ ldb+24(FP), NLDB
	SHLQ $2, NLDB             // row stride of b in bytes
	MOVQ x+32(FP), NX0        // x row 0
	MOVQ ldx+40(FP), NLDX
	SHLQ $2, NLDX             // row stride of x in bytes
	LEAQ (NX0)(NLDX*2), NX3
	ADDQ NLDX, NX3            // x row 3
	MOVQ k+48(FP), NK
	VXORPS Y0, Y0, Y0         // s(t, j) = 0 for t < 6, j < 16
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
	TESTQ NK, NK
	JE    nn2store

nn2loop:
	VMOVUPS (NB), Y12                        // b[c][0:8]
	VMOVUPS 32(NB), Y13                      // b[c][8:16]
	BCAST2Y((NX0), Y14, Y0, Y1)              // s(0) += b[c]·x[0][c]
	BCAST2Y((NX0)(NLDX*1), Y15, Y2, Y3)      // s(1) += b[c]·x[1][c]
	BCAST2Y((NX0)(NLDX*2), Y14, Y4, Y5)      // s(2) += b[c]·x[2][c]
	BCAST2Y((NX3), Y15, Y6, Y7)              // s(3) += b[c]·x[3][c]
	BCAST2Y((NX3)(NLDX*1), Y14, Y8, Y9)      // s(4) += b[c]·x[4][c]
	BCAST2Y((NX3)(NLDX*2), Y15, Y10, Y11)    // s(5) += b[c]·x[5][c]
	ADDQ    NLDB, NB                         // b row c+1
	ADDQ    $4, NX0                          // x columns c+1
	ADDQ    $4, NX3
	DECQ    NK
	JNZ     nn2loop

nn2store:
	MOVQ  out+0(FP), NOUT
	MOVQ  ldo+8(FP), NLDO
	SHLQ  $2, NLDO
	MOVQ  accum+56(FP), AX
	TESTQ AX, AX
	JNZ   nn2accum
	STORE2Y(Y0, Y1)           // out[0][0:16] = s(0)
	STORE2Y(Y2, Y3)
	STORE2Y(Y4, Y5)
	STORE2Y(Y6, Y7)
	STORE2Y(Y8, Y9)
	STORE2Y(Y10, Y11)         // out[5][0:16] = s(5)
	VZEROUPPER
	RET

nn2accum:
	ADDSTORE2Y(Y0, Y1)        // out[0][0:16] += s(0)
	ADDSTORE2Y(Y2, Y3)
	ADDSTORE2Y(Y4, Y5)
	ADDSTORE2Y(Y6, Y7)
	ADDSTORE2Y(Y8, Y9)
	ADDSTORE2Y(Y10, Y11)      // out[5][0:16] += s(5)
	VZEROUPPER
	RET

// The packers transpose 16 rows × 16 lanes of 32 bits at a time in
// registers, the classic 4-stage transpose (64 shuffles).
// Rows r0..r15 arrive in Z0..Z15; a 128-bit block q of a register holds
// lanes 4q..4q+3.
//
//  1. VUNPCKL/HPS of rows (2i, 2i+1) → Z16..Z31: pairs of rows per lane pair.
//  2. VUNPCKL/HPD of those → Z(4g+e), g, e < 4: block q holds rows
//     4g..4g+3 of column 4q+e.
//  3. VSHUFF32X4 0x44 / 0xEE of groups (0,1) and (2,3) → Z16..Z31: blocks
//     of columns e, 4+e (0x44) or 8+e, 12+e (0xEE) for two row groups.
//  4. VSHUFF32X4 0x88 / 0xDD → Z(c) = column c, all 16 rows, for c < 16.

// UNPACK1(ra, rb, ta, tb): ta = unpcklps(ra, rb), tb = unpckhps(ra, rb).
#define UNPACK1(ra, rb, ta, tb) \
	VUNPCKLPS rb, ra, ta; \
	VUNPCKHPS rb, ra, tb

// UNPACK2(t0, t1, t2, t3, u0, u1, u2, u3): the four columns e = 0..3 of a
// group of four rows, from the stage-1 pairs (t0, t1) rows 4g, 4g+1 and
// (t2, t3) rows 4g+2, 4g+3.
#define UNPACK2(t0, t1, t2, t3, u0, u1, u2, u3) \
	VUNPCKLPD t2, t0, u0; \
	VUNPCKHPD t2, t0, u1; \
	VUNPCKLPD t3, t1, u2; \
	VUNPCKHPD t3, t1, u3

// SHUF3(ua, ub, uc, ud, lo01, lo23, hi01, hi23): stage 3 for one e, from
// the e-registers of row groups 0..3.
#define SHUF3(ua, ub, uc, ud, lo01, lo23, hi01, hi23) \
	VSHUFF32X4 $0x44, ub, ua, lo01; \
	VSHUFF32X4 $0x44, ud, uc, lo23; \
	VSHUFF32X4 $0xee, ub, ua, hi01; \
	VSHUFF32X4 $0xee, ud, uc, hi23

// SHUF4(lo01, lo23, hi01, hi23, c0, c4, c8, c12): stage 4, columns e,
// 4+e, 8+e, 12+e.
#define SHUF4(lo01, lo23, hi01, hi23, c0, c4, c8, c12) \
	VSHUFF32X4 $0x88, lo23, lo01, c0; \
	VSHUFF32X4 $0xdd, lo23, lo01, c4; \
	VSHUFF32X4 $0x88, hi23, hi01, c8; \
	VSHUFF32X4 $0xdd, hi23, hi01, c12

// TRANSPOSE16 turns rows Z0..Z15 into columns Z0..Z15 (Z16..Z31 scratch).
#define TRANSPOSE16 \
	UNPACK1(Z0, Z1, Z16, Z17); \
	UNPACK1(Z2, Z3, Z18, Z19); \
	UNPACK1(Z4, Z5, Z20, Z21); \
	UNPACK1(Z6, Z7, Z22, Z23); \
	UNPACK1(Z8, Z9, Z24, Z25); \
	UNPACK1(Z10, Z11, Z26, Z27); \
	UNPACK1(Z12, Z13, Z28, Z29); \
	UNPACK1(Z14, Z15, Z30, Z31); \
	UNPACK2(Z16, Z17, Z18, Z19, Z0, Z1, Z2, Z3); \
	UNPACK2(Z20, Z21, Z22, Z23, Z4, Z5, Z6, Z7); \
	UNPACK2(Z24, Z25, Z26, Z27, Z8, Z9, Z10, Z11); \
	UNPACK2(Z28, Z29, Z30, Z31, Z12, Z13, Z14, Z15); \
	SHUF3(Z0, Z4, Z8, Z12, Z16, Z17, Z18, Z19); \
	SHUF3(Z1, Z5, Z9, Z13, Z20, Z21, Z22, Z23); \
	SHUF3(Z2, Z6, Z10, Z14, Z24, Z25, Z26, Z27); \
	SHUF3(Z3, Z7, Z11, Z15, Z28, Z29, Z30, Z31); \
	SHUF4(Z16, Z17, Z18, Z19, Z0, Z4, Z8, Z12); \
	SHUF4(Z20, Z21, Z22, Z23, Z1, Z5, Z9, Z13); \
	SHUF4(Z24, Z25, Z26, Z27, Z2, Z6, Z10, Z14); \
	SHUF4(Z28, Z29, Z30, Z31, Z3, Z7, Z11, Z15)

// STORE16 writes column c (Z(c)) of the block to dst[c][0:16], the packed
// rows being 32 floats (128 bytes) apart.
#define STORE16 \
	VMOVUPS Z0, (PD); \
	VMOVUPS Z1, 128(PD); \
	VMOVUPS Z2, 256(PD); \
	VMOVUPS Z3, 384(PD); \
	VMOVUPS Z4, 512(PD); \
	VMOVUPS Z5, 640(PD); \
	VMOVUPS Z6, 768(PD); \
	VMOVUPS Z7, 896(PD); \
	VMOVUPS Z8, 1024(PD); \
	VMOVUPS Z9, 1152(PD); \
	VMOVUPS Z10, 1280(PD); \
	VMOVUPS Z11, 1408(PD); \
	VMOVUPS Z12, 1536(PD); \
	VMOVUPS Z13, 1664(PD); \
	VMOVUPS Z14, 1792(PD); \
	VMOVUPS Z15, 1920(PD)

#define PD DI     // &dst[c][16h]
#define PS0 SI    // &src[16h+0][c]; rows +1, +2, +3 through LDS, LDS3
#define PS4 R8    // &src[16h+4][c]
#define PS8 R9    // &src[16h+8][c]
#define PS12 R10  // &src[16h+12][c]
#define LDS R11   // lds in bytes
#define LDS3 R12  // 3·lds in bytes
#define PK CX     // columns left in this half
#define PH R13    // halves left
#define PD0 AX    // &dst[0][16h]

// PACKROWS: the row pointers of this half from PS0 (vet's asmdecl reads
// a macro as part of the TEXT above it, so the arguments are loaded in the
// functions themselves).
#define PACKROWS \
	LEAQ (PS0)(LDS*4), PS4; \
	LEAQ (PS4)(LDS*4), PS8; \
	LEAQ (PS8)(LDS*4), PS12

// LOAD16(mov, off): the 16 rows of this half at byte offset off, into
// Z0..Z15 (mov VMOVDQU32 for 64 bytes, VMOVDQU for 32 into Y, the upper
// lanes zeroed).
#define LOAD16(mov, z0, z1, z2, z3, z4, z5, z6, z7, z8, z9, z10, z11, z12, z13, z14, z15) \
	mov (PS0), z0; \
	mov (PS0)(LDS*1), z1; \
	mov (PS0)(LDS*2), z2; \
	mov (PS0)(LDS3*1), z3; \
	mov (PS4), z4; \
	mov (PS4)(LDS*1), z5; \
	mov (PS4)(LDS*2), z6; \
	mov (PS4)(LDS3*1), z7; \
	mov (PS8), z8; \
	mov (PS8)(LDS*1), z9; \
	mov (PS8)(LDS*2), z10; \
	mov (PS8)(LDS3*1), z11; \
	mov (PS12), z12; \
	mov (PS12)(LDS*1), z13; \
	mov (PS12)(LDS*2), z14; \
	mov (PS12)(LDS3*1), z15

// WIDEN2(q, even, odd): q holds, for the half's 16 rows, the bf16 pair of
// columns (c+2q, c+2q+1) as one 32-bit lane (low half the even column);
// dst[c+2q][16h:] = float32(even), dst[c+2q+1][16h:] = float32(odd). Z31
// holds 0xffff0000 in every lane.
#define WIDEN2(q, even, odd) \
	VPSLLD  $16, q, Z16; \
	VPANDD  Z31, q, q; \
	VMOVUPS Z16, even(PD); \
	VMOVUPS q, odd(PD)

// HIMASK: Z31 = 0xffff0000 in every lane (the transpose uses Z31 as
// scratch, so it is set again after each).
#define HIMASK \
	VPTERNLOGD $0xff, Z31, Z31, Z31; \
	VPSLLD     $16, Z31, Z31

// func packT32BF16AVX512(dst *float32, src *BF16, lds int, k int)
//
//	for c := range k { for j := range 32 { dst[c*32+j] = src[j*lds+c].Float32() } }
//
// k a multiple of 16. The 32 rows go as two halves of 16 (j < 16, then
// 16 ≤ j < 32). A pair of bf16 columns is one 32-bit lane, so one 16 × 16
// transpose of 64-byte row pieces turns 32 columns around, and the pairs
// are widened after it by shift (even column) and mask (odd): 64 shuffles
// per 512 values, where widening first (VPMOVZXWD, itself a shuffle) and
// transposing 16 columns at a time took 160: a 32 × 256 panel in L1 packs
// in 232 ns instead of 321 (BenchmarkPackT32). In the whole product the
// difference is within noise: there the packer waits on W's cache misses.
// A last 16 columns (k not a multiple of 32) go through the same steps
// from 32-byte pieces.
TEXT ·packT32BF16AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), PD
	MOVQ src+8(FP), PS0
	MOVQ lds+16(FP), LDS
	SHLQ $1, LDS             // row stride in bytes
	LEAQ (LDS)(LDS*2), LDS3
	MOVQ $2, PH               // halves: rows 0..15, 16..31

pbhalf:
	PACKROWS
	MOVQ k+24(FP), PK
	MOVQ PD, PD0              // dst[0][16h]: this half's first block
	CMPQ PK, $32
	JL   pbtail

pbloop:
	LOAD16(VMOVDQU32, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15) // rows 16h..16h+15, columns c..c+31
	TRANSPOSE16               // Z(q) = columns c+2q, c+2q+1 of the 16 rows
	HIMASK
	WIDEN2(Z0, 0, 128)        // dst[c+0], dst[c+1]
	WIDEN2(Z1, 256, 384)
	WIDEN2(Z2, 512, 640)
	WIDEN2(Z3, 768, 896)
	WIDEN2(Z4, 1024, 1152)
	WIDEN2(Z5, 1280, 1408)
	WIDEN2(Z6, 1536, 1664)
	WIDEN2(Z7, 1792, 1920)
	WIDEN2(Z8, 2048, 2176)
	WIDEN2(Z9, 2304, 2432)
	WIDEN2(Z10, 2560, 2688)
	WIDEN2(Z11, 2816, 2944)
	WIDEN2(Z12, 3072, 3200)
	WIDEN2(Z13, 3328, 3456)
	WIDEN2(Z14, 3584, 3712)
	WIDEN2(Z15, 3840, 3968)   // dst[c+30], dst[c+31]
	ADDQ $4096, PD            // dst row c+32
	ADDQ $64, PS0             // src columns c+32
	ADDQ $64, PS4
	ADDQ $64, PS8
	ADDQ $64, PS12
	SUBQ $32, PK
	CMPQ PK, $32
	JGE  pbloop

pbtail:
	TESTQ PK, PK
	JE    pbnext
	LOAD16(VMOVDQU, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15) // columns c..c+15, upper lanes 0
	TRANSPOSE16               // Z(q) = columns c+2q, c+2q+1 for q < 8
	HIMASK
	WIDEN2(Z0, 0, 128)        // dst[c+0], dst[c+1]
	WIDEN2(Z1, 256, 384)
	WIDEN2(Z2, 512, 640)
	WIDEN2(Z3, 768, 896)
	WIDEN2(Z4, 1024, 1152)
	WIDEN2(Z5, 1280, 1408)
	WIDEN2(Z6, 1536, 1664)
	WIDEN2(Z7, 1792, 1920)    // dst[c+14], dst[c+15]

pbnext:
	LEAQ 64(PD0), PD             // dst[0][16]: second half
	MOVQ src+8(FP), PS0
	LEAQ (PS0)(LDS*8), PS0
	LEAQ (PS0)(LDS*8), PS0       // src row 16
	DECQ PH
	JNZ  pbhalf
	VZEROUPPER
	RET

// func packT32F32AVX512(dst *float32, src *float32, lds int, k int)
//
//	for c := range k { for j := range 32 { dst[c*32+j] = src[j*lds+c] } }
//
// packT32BF16AVX512 without the widening; k a multiple of 16.
TEXT ·packT32F32AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), PD
	MOVQ src+8(FP), PS0
	MOVQ lds+16(FP), LDS
	SHLQ $2, LDS             // row stride in bytes
	LEAQ (LDS)(LDS*2), LDS3
	MOVQ $2, PH               // halves: rows 0..15, 16..31

pfhalf:
	PACKROWS
	MOVQ k+24(FP), PK
	MOVQ PD, PD0
	TESTQ PK, PK
	JE    pfnext

pfloop:
	VMOVUPS (PS0), Z0            // row 16h+0, columns c..c+15
	VMOVUPS (PS0)(LDS*1), Z1
	VMOVUPS (PS0)(LDS*2), Z2
	VMOVUPS (PS0)(LDS3*1), Z3
	VMOVUPS (PS4), Z4
	VMOVUPS (PS4)(LDS*1), Z5
	VMOVUPS (PS4)(LDS*2), Z6
	VMOVUPS (PS4)(LDS3*1), Z7
	VMOVUPS (PS8), Z8
	VMOVUPS (PS8)(LDS*1), Z9
	VMOVUPS (PS8)(LDS*2), Z10
	VMOVUPS (PS8)(LDS3*1), Z11
	VMOVUPS (PS12), Z12
	VMOVUPS (PS12)(LDS*1), Z13
	VMOVUPS (PS12)(LDS*2), Z14
	VMOVUPS (PS12)(LDS3*1), Z15  // row 16h+15
	TRANSPOSE16                  // Z(i) = column c+i, rows 16h..16h+15
	STORE16                      // dst[c+i][16h:16h+16] = Z(i)
	ADDQ $2048, PD               // dst row c+16
	ADDQ $64, PS0                // src columns c+16
	ADDQ $64, PS4
	ADDQ $64, PS8
	ADDQ $64, PS12
	SUBQ $16, PK
	JNZ  pfloop

pfnext:
	LEAQ 64(PD0), PD             // dst[0][16]: second half
	MOVQ src+8(FP), PS0
	LEAQ (PS0)(LDS*8), PS0
	LEAQ (PS0)(LDS*8), PS0       // src row 16
	DECQ PH
	JNZ  pfhalf
	VZEROUPPER
	RET

// TRANSPOSE8(r0..r7, t0..t7): the 8 × 8 floats in rows r0..r7 become
// columns: afterwards t0..t7 hold columns 0..7 (unpack pairs of rows,
// shuffle pairs of pairs, then swap 128-bit halves).
#define TRANSPOSE8(r0, r1, r2, r3, r4, r5, r6, r7, t0, t1, t2, t3, t4, t5, t6, t7) \
	VUNPCKLPS  r1, r0, t0; \
	VUNPCKHPS  r1, r0, t1; \
	VUNPCKLPS  r3, r2, t2; \
	VUNPCKHPS  r3, r2, t3; \
	VUNPCKLPS  r5, r4, t4; \
	VUNPCKHPS  r5, r4, t5; \
	VUNPCKLPS  r7, r6, t6; \
	VUNPCKHPS  r7, r6, t7; \
	VSHUFPS    $0x44, t2, t0, r0; \
	VSHUFPS    $0xEE, t2, t0, r1; \
	VSHUFPS    $0x44, t3, t1, r2; \
	VSHUFPS    $0xEE, t3, t1, r3; \
	VSHUFPS    $0x44, t6, t4, r4; \
	VSHUFPS    $0xEE, t6, t4, r5; \
	VSHUFPS    $0x44, t7, t5, r6; \
	VSHUFPS    $0xEE, t7, t5, r7; \
	VPERM2F128 $0x20, r4, r0, t0; \
	VPERM2F128 $0x20, r5, r1, t1; \
	VPERM2F128 $0x20, r6, r2, t2; \
	VPERM2F128 $0x20, r7, r3, t3; \
	VPERM2F128 $0x31, r4, r0, t4; \
	VPERM2F128 $0x31, r5, r1, t5; \
	VPERM2F128 $0x31, r6, r2, t6; \
	VPERM2F128 $0x31, r7, r3, t7

// STORECOLS8(off): the eight columns t0..t7 (Y8..Y15) to dst rows c..c+7
// (64 bytes apart), at byte offset off (0: rows 0-7 of W, 32: rows 8-15).
#define STORECOLS8(off) \
	VMOVUPS Y8, off(DI); \
	VMOVUPS Y9, off+64(DI); \
	VMOVUPS Y10, off+128(DI); \
	VMOVUPS Y11, off+192(DI); \
	VMOVUPS Y12, off+256(DI); \
	VMOVUPS Y13, off+320(DI); \
	VMOVUPS Y14, off+384(DI); \
	VMOVUPS Y15, off+448(DI)

// LOADBF16(p, y): 8 bf16 at p widened to fp32 in y.
#define LOADBF16(p, y) \
	VPMOVZXWD p, y; \
	VPSLLD    $16, y, y

// func packT16BF16AVX2(dst *float32, src *BF16, lds int, k int)
//
//	for c := range k { for j := range 16 { dst[c*16+j] = src[j*lds+c].Float32() } }
//
// The AVX2 packer: 8 columns of 16 rows at a time, as two 8 × 8
// transposes in registers. k is a multiple of 8.
TEXT ·packT16BF16AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R8
	SHLQ $1, R8               // row stride in bytes
	LEAQ (R8)(R8*2), R9       // 3 rows
	MOVQ k+24(FP), CX
	SHRQ $3, CX               // groups of 8 columns
	JZ   pk2bdone

pk2bloop:
	LEAQ (SI)(R8*4), R10      // row 4
	LEAQ (R10)(R8*4), R11     // row 8
	LEAQ (R11)(R8*4), R12     // row 12
	LOADBF16((SI), Y0)
	LOADBF16((SI)(R8*1), Y1)
	LOADBF16((SI)(R8*2), Y2)
	LOADBF16((SI)(R9*1), Y3)
	LOADBF16((R10), Y4)
	LOADBF16((R10)(R8*1), Y5)
	LOADBF16((R10)(R8*2), Y6)
	LOADBF16((R10)(R9*1), Y7)
	TRANSPOSE8(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	STORECOLS8(0)
	LOADBF16((R11), Y0)
	LOADBF16((R11)(R8*1), Y1)
	LOADBF16((R11)(R8*2), Y2)
	LOADBF16((R11)(R9*1), Y3)
	LOADBF16((R12), Y4)
	LOADBF16((R12)(R8*1), Y5)
	LOADBF16((R12)(R8*2), Y6)
	LOADBF16((R12)(R9*1), Y7)
	TRANSPOSE8(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	STORECOLS8(32)
	ADDQ $16, SI              // 8 columns of bf16
	ADDQ $512, DI             // 8 rows of dst
	DECQ CX
	JNZ  pk2bloop

pk2bdone:
	VZEROUPPER
	RET

// func packT16F32AVX2(dst *float32, src *float32, lds int, k int)
//
// packT16BF16AVX2 for float32 rows. k is a multiple of 8.
TEXT ·packT16F32AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R8
	SHLQ $2, R8               // row stride in bytes
	LEAQ (R8)(R8*2), R9       // 3 rows
	MOVQ k+24(FP), CX
	SHRQ $3, CX               // groups of 8 columns
	JZ   pk2fdone

pk2floop:
	LEAQ    (SI)(R8*4), R10   // row 4
	LEAQ    (R10)(R8*4), R11  // row 8
	LEAQ    (R11)(R8*4), R12  // row 12
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (SI)(R9*1), Y3
	VMOVUPS (R10), Y4
	VMOVUPS (R10)(R8*1), Y5
	VMOVUPS (R10)(R8*2), Y6
	VMOVUPS (R10)(R9*1), Y7
	TRANSPOSE8(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	STORECOLS8(0)
	VMOVUPS (R11), Y0
	VMOVUPS (R11)(R8*1), Y1
	VMOVUPS (R11)(R8*2), Y2
	VMOVUPS (R11)(R9*1), Y3
	VMOVUPS (R12), Y4
	VMOVUPS (R12)(R8*1), Y5
	VMOVUPS (R12)(R8*2), Y6
	VMOVUPS (R12)(R9*1), Y7
	TRANSPOSE8(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	STORECOLS8(32)
	ADDQ $32, SI              // 8 columns of float32
	ADDQ $512, DI
	DECQ CX
	JNZ  pk2floop

pk2fdone:
	VZEROUPPER
	RET
