//go:build amd64 && !purego

#include "textflag.h"

// Element-wise kernels (norm.go) and the vector exp that Softmax and SiLUMul
// share. Whole vectors only: n is a multiple of 8 (AVX2) or 16 (AVX-512),
// n > 0; the Go drivers in norm_amd64.go finish the tails.
//
// The vector exp (EXPY, EXPZ) is exp32's algebra (exp.go) on 8 or 16 lanes
// with FMAs and without a branch:
//
//	x  = min(max(x, -88), 89)                  // NaN stays NaN
//	t  = x·log2e + (1.5·2²³ + 127)             // one rounding: t's low mantissa bits hold 127 + n, n = round(x·log2e)
//	kf = t − (1.5·2²³ + 127)                   // n as a float, exact
//	r  = x − kf·ln2Hi − kf·ln2Lo               // Cody–Waite, |r| ≤ ln2/2
//	p  = 1 + r(1 + r(c5 + r(c4 + … + r·c0)))  // e^r, exp32's degree-7 polynomial
//	e  = p · Float32frombits(bits(t) << 23)    // 2^n: the shift leaves 127 + n in the exponent field
//
// For -87.68 ≤ x < 88.38, -126 ≤ n ≤ 127, 2^n is a normal number and the
// one rounding of p·2^n keeps e within 2 ulp (subnormal results within 2 of
// the smallest). Below, down to the clamp at -88 and so for -Inf, n = -127:
// 2^n has bits 0 and e = +0 exactly. Above 127.5·ln2 ≈ 88.38, n = 128:
// 2^n has exponent field 255, e = +Inf (the true overflow is at 88.72).
// A NaN x makes r, p and e NaN.

#define SPLAT(off, v) \
	DATA expc<>+(off)(SB)/4, v; \
	DATA expc<>+(off+4)(SB)/4, v; \
	DATA expc<>+(off+8)(SB)/4, v; \
	DATA expc<>+(off+12)(SB)/4, v; \
	DATA expc<>+(off+16)(SB)/4, v; \
	DATA expc<>+(off+20)(SB)/4, v; \
	DATA expc<>+(off+24)(SB)/4, v; \
	DATA expc<>+(off+28)(SB)/4, v

// The constants, each in 8 lanes so that AVX2 can take it as a memory
// operand; AVX-512 broadcasts lane 0 into a register.
SPLAT(0, $0xc2b00000)   // -88
SPLAT(32, $0x42b20000)  // 89
SPLAT(64, $0x3fb8aa3b)  // log2e = 1.44269504
SPLAT(96, $0x4b40007f)  // 1.5·2²³ + 127 = 12583039
SPLAT(128, $0x3f318000) // ln2Hi = 0.693359375 (9 bits: kf·ln2Hi is exact)
SPLAT(160, $0xb95e8083) // ln2Lo = -2.12194440e-4
SPLAT(192, $0x39506967) // c0 = 1.9875691500e-4
SPLAT(224, $0x3ab743ce) // c1 = 1.3981999507e-3
SPLAT(256, $0x3c088908) // c2 = 8.3334519073e-3
SPLAT(288, $0x3d2aa9c1) // c3 = 4.1665795894e-2
SPLAT(320, $0x3e2aaaaa) // c4 = 1.6666665459e-1
SPLAT(352, $0x3f000000) // c5 = 5.0000001201e-1
SPLAT(384, $0x3f800000) // 1
SPLAT(416, $0x80000000) // sign bit
GLOBL expc<>(SB), RODATA|NOPTR, $448

#define cLO expc<>+0(SB)
#define cHI expc<>+32(SB)
#define cLOG2E expc<>+64(SB)
#define cMAGIC expc<>+96(SB)
#define cLN2HI expc<>+128(SB)
#define cLN2LO expc<>+160(SB)
#define cC0 expc<>+192(SB)
#define cC1 expc<>+224(SB)
#define cC2 expc<>+256(SB)
#define cC3 expc<>+288(SB)
#define cC4 expc<>+320(SB)
#define cC5 expc<>+352(SB)
#define cONE expc<>+384(SB)
#define cSIGN expc<>+416(SB)

#define X_ SI
#define G_ SI
#define U_ DI
#define W_ DI
#define O_ DX
#define N CX

// AVX2 keeps 11 constants in Y5..Y15; c0 and 1 come from memory.
#define LOY Y5
#define HIY Y6
#define LOG2EY Y7
#define MAGICY Y8
#define LN2HIY Y9
#define LN2LOY Y10
#define C1Y Y11
#define C2Y Y12
#define C3Y Y13
#define C4Y Y14
#define C5Y Y15

#define LOADEXPY \
	VMOVUPS cLO, LOY; \
	VMOVUPS cHI, HIY; \
	VMOVUPS cLOG2E, LOG2EY; \
	VMOVUPS cMAGIC, MAGICY; \
	VMOVUPS cLN2HI, LN2HIY; \
	VMOVUPS cLN2LO, LN2LOY; \
	VMOVUPS cC1, C1Y; \
	VMOVUPS cC2, C2Y; \
	VMOVUPS cC3, C3Y; \
	VMOVUPS cC4, C4Y; \
	VMOVUPS cC5, C5Y

// EXPY sets p = e^x on 8 lanes, clobbering x and t; one is 1 (a register or
// cONE). The operand order of VMAXPS and VMINPS (x second, in Intel's
// terms) is what lets a NaN x through.
#define EXPY(x, t, p, one) \
	VMAXPS       x, LOY, x;      /* x = max(x, -88) */ \
	VMINPS       x, HIY, x;      /* x = min(x, 89) */ \
	VMOVAPS      MAGICY, t;      /* t = 1.5·2²³ + 127 */ \
	VFMADD231PS  LOG2EY, x, t;   /* t += x·log2e: 127 + n in the low bits */ \
	VSUBPS       MAGICY, t, p;   /* p = kf = t − magic = n */ \
	VFNMADD231PS LN2HIY, p, x;   /* x -= kf·ln2Hi */ \
	VFNMADD231PS LN2LOY, p, x;   /* x = r = x − kf·ln2Lo */ \
	VPSLLD       $23, t, t;      /* t = 2^n */ \
	VMOVUPS      cC0, p;         /* p = c0 */ \
	VFMADD213PS  C1Y, x, p;      /* p = p·r + c1 */ \
	VFMADD213PS  C2Y, x, p;      /* p = p·r + c2 */ \
	VFMADD213PS  C3Y, x, p;      /* p = p·r + c3 */ \
	VFMADD213PS  C4Y, x, p;      /* p = p·r + c4 */ \
	VFMADD213PS  C5Y, x, p;      /* p = p·r + c5 */ \
	VFMADD213PS  one, x, p;      /* p = p·r + 1 */ \
	VFMADD213PS  one, x, p;      /* p = p·r + 1 = e^r */ \
	VMULPS       t, p, p         /* p = e^r · 2^n */

// AVX-512 keeps all 14 constants in Z16..Z29.
#define LOZ Z16
#define HIZ Z17
#define LOG2EZ Z18
#define MAGICZ Z19
#define LN2HIZ Z20
#define LN2LOZ Z21
#define C0Z Z22
#define C1Z Z23
#define C2Z Z24
#define C3Z Z25
#define C4Z Z26
#define C5Z Z27
#define ONEZ Z28
#define SIGNZ Z29

#define LOADEXPZ \
	VBROADCASTSS cLO, LOZ; \
	VBROADCASTSS cHI, HIZ; \
	VBROADCASTSS cLOG2E, LOG2EZ; \
	VBROADCASTSS cMAGIC, MAGICZ; \
	VBROADCASTSS cLN2HI, LN2HIZ; \
	VBROADCASTSS cLN2LO, LN2LOZ; \
	VBROADCASTSS cC0, C0Z; \
	VBROADCASTSS cC1, C1Z; \
	VBROADCASTSS cC2, C2Z; \
	VBROADCASTSS cC3, C3Z; \
	VBROADCASTSS cC4, C4Z; \
	VBROADCASTSS cC5, C5Z; \
	VBROADCASTSS cONE, ONEZ; \
	VBROADCASTSS cSIGN, SIGNZ

// EXPZ is EXPY on 16 lanes.
#define EXPZ(x, t, p) \
	VMAXPS       x, LOZ, x;      /* x = max(x, -88) */ \
	VMINPS       x, HIZ, x;      /* x = min(x, 89) */ \
	VMOVAPS      MAGICZ, t;      /* t = 1.5·2²³ + 127 */ \
	VFMADD231PS  LOG2EZ, x, t;   /* t += x·log2e: 127 + n in the low bits */ \
	VSUBPS       MAGICZ, t, p;   /* p = kf = n */ \
	VFNMADD231PS LN2HIZ, p, x;   /* x -= kf·ln2Hi */ \
	VFNMADD231PS LN2LOZ, p, x;   /* x = r = x − kf·ln2Lo */ \
	VPSLLD       $23, t, t;      /* t = 2^n */ \
	VMOVAPS      C0Z, p;         /* p = c0 */ \
	VFMADD213PS  C1Z, x, p;      /* p = p·r + c1 */ \
	VFMADD213PS  C2Z, x, p;      /* p = p·r + c2 */ \
	VFMADD213PS  C3Z, x, p;      /* p = p·r + c3 */ \
	VFMADD213PS  C4Z, x, p;      /* p = p·r + c4 */ \
	VFMADD213PS  C5Z, x, p;      /* p = p·r + c5 */ \
	VFMADD213PS  ONEZ, x, p;     /* p = p·r + 1 */ \
	VFMADD213PS  ONEZ, x, p;     /* p = p·r + 1 = e^r */ \
	VMULPS       t, p, p         /* p = e^r · 2^n */

// func maxAVX2(x *float32, n int) float32
//
//	m := x[0]
//	for i := range n { m = max(m, x[i]) }
//	return m
//
// A NaN may be dropped here; the exp pass then turns it into a NaN sum.
TEXT ·maxAVX2(SB), NOSPLIT, $0-20
	MOVQ    x+0(FP), X_
	MOVQ    n+8(FP), N
	VMOVUPS (X_), Y0 // m0 = x[0:8]: four maxima hide the latency
	VMOVAPS Y0, Y1   // m1 = m0
	VMOVAPS Y0, Y2   // m2 = m0
	VMOVAPS Y0, Y3   // m3 = m0
	CMPQ    N, $32
	JL      max8

max32:
	VMAXPS (X_), Y0, Y0   // m0 = max(m0, x[0:8])
	VMAXPS 32(X_), Y1, Y1 // m1 = max(m1, x[8:16])
	VMAXPS 64(X_), Y2, Y2 // m2 = max(m2, x[16:24])
	VMAXPS 96(X_), Y3, Y3 // m3 = max(m3, x[24:32])
	ADDQ   $128, X_       // x = x[32:]
	SUBQ   $32, N         // n -= 32
	CMPQ   N, $32
	JGE    max32

max8:
	CMPQ N, $8
	JL   maxfold

max8loop:
	VMAXPS (X_), Y0, Y0 // m0 = max(m0, x[0:8])
	ADDQ   $32, X_      // x = x[8:]
	SUBQ   $8, N        // n -= 8
	CMPQ   N, $8
	JGE    max8loop

maxfold:
	VMAXPS       Y1, Y0, Y0      // m0 = max(m0, m1)
	VMAXPS       Y3, Y2, Y2      // m2 = max(m2, m3)
	VMAXPS       Y2, Y0, Y0      // m0 = max(m0, m2)
	VEXTRACTF128 $1, Y0, X1      // m0[4:8]
	VMAXPS       X1, X0, X0      // 4 lanes
	VPERMILPS    $0x4e, X0, X1   // lanes 2 3 0 1
	VMAXPS       X1, X0, X0      // 2 lanes
	VPERMILPS    $0xb1, X0, X1   // lanes 1 0 3 2
	VMAXPS       X1, X0, X0      // 1 lane
	VZEROUPPER
	MOVSS        X0, ret+16(FP)
	RET

// func maxAVX512(x *float32, n int) float32: maxAVX2 with 16 lanes.
TEXT ·maxAVX512(SB), NOSPLIT, $0-20
	MOVQ    x+0(FP), X_
	MOVQ    n+8(FP), N
	VMOVUPS (X_), Z0 // m0 = x[0:16]
	VMOVAPS Z0, Z1   // m1 = m0
	VMOVAPS Z0, Z2   // m2 = m0
	VMOVAPS Z0, Z3   // m3 = m0
	CMPQ    N, $64
	JL      max16

max64:
	VMAXPS (X_), Z0, Z0    // m0 = max(m0, x[0:16])
	VMAXPS 64(X_), Z1, Z1  // m1 = max(m1, x[16:32])
	VMAXPS 128(X_), Z2, Z2 // m2 = max(m2, x[32:48])
	VMAXPS 192(X_), Z3, Z3 // m3 = max(m3, x[48:64])
	ADDQ   $256, X_        // x = x[64:]
	SUBQ   $64, N          // n -= 64
	CMPQ   N, $64
	JGE    max64

max16:
	CMPQ N, $16
	JL   max512fold

max16loop:
	VMAXPS (X_), Z0, Z0 // m0 = max(m0, x[0:16])
	ADDQ   $64, X_      // x = x[16:]
	SUBQ   $16, N       // n -= 16
	CMPQ   N, $16
	JGE    max16loop

max512fold:
	VMAXPS        Z1, Z0, Z0    // m0 = max(m0, m1)
	VMAXPS        Z3, Z2, Z2    // m2 = max(m2, m3)
	VMAXPS        Z2, Z0, Z0    // m0 = max(m0, m2)
	VEXTRACTF64X4 $1, Z0, Y1    // m0[8:16]
	VMAXPS        Y1, Y0, Y0    // 8 lanes
	VEXTRACTF128  $1, Y0, X1    // m0[4:8]
	VMAXPS        X1, X0, X0    // 4 lanes
	VPERMILPS     $0x4e, X0, X1 // lanes 2 3 0 1
	VMAXPS        X1, X0, X0    // 2 lanes
	VPERMILPS     $0xb1, X0, X1 // lanes 1 0 3 2
	VMAXPS        X1, X0, X0    // 1 lane
	VZEROUPPER
	MOVSS         X0, ret+16(FP)
	RET

// func expSubSumAVX2(x *float32, m float32, n int) float32
//
//	var s float32
//	for i := range n { x[i] = exp(x[i] - m); s += x[i] }
//	return s
//
// One sum suffices: its add waits on nothing but the exp of its own vector,
// and the loop is bound by the exp's 17 instructions, not by that latency.
TEXT ·expSubSumAVX2(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), X_
	VBROADCASTSS m+8(FP), Y3 // m in every lane
	MOVQ         n+16(FP), N
	LOADEXPY
	VXORPS       Y4, Y4, Y4  // s = 0
	CMPQ         N, $8
	JL           expsumfold

expsum8:
	VMOVUPS (X_), Y0             // x[0:8]
	VSUBPS  Y3, Y0, Y0           // x[0:8] - m
	EXPY(Y0, Y1, Y2, cONE)       // e = exp(x[0:8] - m)
	VMOVUPS Y2, (X_)             // x[0:8] = e
	VADDPS  Y2, Y4, Y4           // s += e
	ADDQ    $32, X_              // x = x[8:]
	SUBQ    $8, N                // n -= 8
	CMPQ    N, $8
	JGE     expsum8

expsumfold:
	VEXTRACTF128 $1, Y4, X1 // s[4:8]
	VADDPS       X1, X4, X0 // 4 lanes
	VHADDPS      X0, X0, X0 // 2 lanes
	VHADDPS      X0, X0, X0 // 1 lane
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func expSubSumAVX512(x *float32, m float32, n int) float32: expSubSumAVX2
// with 16 lanes.
TEXT ·expSubSumAVX512(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), X_
	VBROADCASTSS m+8(FP), Z3 // m in every lane
	MOVQ         n+16(FP), N
	LOADEXPZ
	VPXORD       Z4, Z4, Z4  // s = 0
	CMPQ         N, $16
	JL           expsum512fold

expsum16:
	VMOVUPS (X_), Z0   // x[0:16]
	VSUBPS  Z3, Z0, Z0 // x[0:16] - m
	EXPZ(Z0, Z1, Z2)   // e = exp(x[0:16] - m)
	VMOVUPS Z2, (X_)   // x[0:16] = e
	VADDPS  Z2, Z4, Z4 // s += e
	ADDQ    $64, X_    // x = x[16:]
	SUBQ    $16, N     // n -= 16
	CMPQ    N, $16
	JGE     expsum16

expsum512fold:
	VEXTRACTF64X4 $1, Z4, Y1 // s[8:16]
	VADDPS        Y1, Y4, Y0 // 8 lanes
	VEXTRACTF128  $1, Y0, X1 // s[4:8]
	VADDPS        X1, X0, X0 // 4 lanes
	VHADDPS       X0, X0, X0 // 2 lanes
	VHADDPS       X0, X0, X0 // 1 lane
	VZEROUPPER
	MOVSS         X0, ret+24(FP)
	RET

// func scaleAVX2(x *float32, a float32, n int)
//
//	for i := range n { x[i] *= a }
TEXT ·scaleAVX2(SB), NOSPLIT, $0-24
	MOVQ         x+0(FP), X_
	VBROADCASTSS a+8(FP), Y0 // a in every lane
	MOVQ         n+16(FP), N
	CMPQ         N, $8
	JL           scaledone

scale8:
	VMULPS  (X_), Y0, Y1 // x[0:8] * a
	VMOVUPS Y1, (X_)
	ADDQ    $32, X_      // x = x[8:]
	SUBQ    $8, N        // n -= 8
	CMPQ    N, $8
	JGE     scale8

scaledone:
	VZEROUPPER
	RET

// func scaleAVX512(x *float32, a float32, n int): scaleAVX2 with 16 lanes.
TEXT ·scaleAVX512(SB), NOSPLIT, $0-24
	MOVQ         x+0(FP), X_
	VBROADCASTSS a+8(FP), Z0 // a in every lane
	MOVQ         n+16(FP), N
	CMPQ         N, $16
	JL           scale512done

scale16:
	VMULPS  (X_), Z0, Z1 // x[0:16] * a
	VMOVUPS Z1, (X_)
	ADDQ    $64, X_      // x = x[16:]
	SUBQ    $16, N       // n -= 16
	CMPQ    N, $16
	JGE     scale16

scale512done:
	VZEROUPPER
	RET

// func siluMulAVX2(out, gate, up *float32, n int)
//
//	for i := range n { g := gate[i]; out[i] = g / (1 + exp(-g)) * up[i] }
//
// For g < -88.38, exp(-g) = +Inf and g/(1+Inf) = -0: no Inf reaches the
// product with up. The division is exact-rounded; out may alias gate.
TEXT ·siluMulAVX2(SB), NOSPLIT, $0-32
	MOVQ    out+0(FP), O_
	MOVQ    gate+8(FP), G_
	MOVQ    up+16(FP), U_
	MOVQ    n+24(FP), N
	LOADEXPY
	VMOVUPS cONE, Y4 // 1 in every lane
	CMPQ    N, $8
	JL      silu8done

silu8:
	VMOVUPS (G_), Y3        // g = gate[0:8]
	VXORPS  cSIGN, Y3, Y0   // -g
	EXPY(Y0, Y1, Y2, Y4)    // e = exp(-g)
	VADDPS  Y4, Y2, Y2      // 1 + e
	VDIVPS  Y2, Y3, Y2      // g / (1 + e)
	VMULPS  (U_), Y2, Y2    // g / (1 + e) * up[0:8]
	VMOVUPS Y2, (O_)        // out[0:8]
	ADDQ    $32, G_         // gate = gate[8:]
	ADDQ    $32, U_         // up = up[8:]
	ADDQ    $32, O_         // out = out[8:]
	SUBQ    $8, N           // n -= 8
	CMPQ    N, $8
	JGE     silu8

silu8done:
	VZEROUPPER
	RET

// func siluMulAVX512(out, gate, up *float32, n int): siluMulAVX2 with 16
// lanes.
TEXT ·siluMulAVX512(SB), NOSPLIT, $0-32
	MOVQ out+0(FP), O_
	MOVQ gate+8(FP), G_
	MOVQ up+16(FP), U_
	MOVQ n+24(FP), N
	LOADEXPZ
	CMPQ N, $16
	JL   silu16done

silu16:
	VMOVUPS (G_), Z3        // g = gate[0:16]
	VPXORD  SIGNZ, Z3, Z0   // -g
	EXPZ(Z0, Z1, Z2)        // e = exp(-g)
	VADDPS  ONEZ, Z2, Z2    // 1 + e
	VDIVPS  Z2, Z3, Z2      // g / (1 + e)
	VMULPS  (U_), Z2, Z2    // g / (1 + e) * up[0:16]
	VMOVUPS Z2, (O_)        // out[0:16]
	ADDQ    $64, G_         // gate = gate[16:]
	ADDQ    $64, U_         // up = up[16:]
	ADDQ    $64, O_         // out = out[16:]
	SUBQ    $16, N          // n -= 16
	CMPQ    N, $16
	JGE     silu16

silu16done:
	VZEROUPPER
	RET

// func sumSquaresAVX2(x *float32, n int) float64
//
//	var s float64
//	for i := range n { s += float64(x[i]) * float64(x[i]) }
//	return s
//
// In float64 like the generic loop (each square exact), four lanes a
// vector, four sums.
TEXT ·sumSquaresAVX2(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), X_
	MOVQ   n+8(FP), N
	VXORPD Y0, Y0, Y0 // s0 = 0
	VXORPD Y1, Y1, Y1 // s1 = 0
	VXORPD Y2, Y2, Y2 // s2 = 0
	VXORPD Y3, Y3, Y3 // s3 = 0
	CMPQ   N, $16
	JL     ss8

ss16:
	VCVTPS2PD   (X_), Y4    // float64(x[0:4])
	VCVTPS2PD   16(X_), Y5  // float64(x[4:8])
	VCVTPS2PD   32(X_), Y6  // float64(x[8:12])
	VCVTPS2PD   48(X_), Y7  // float64(x[12:16])
	VFMADD231PD Y4, Y4, Y0  // s0 += x[0:4]²
	VFMADD231PD Y5, Y5, Y1  // s1 += x[4:8]²
	VFMADD231PD Y6, Y6, Y2  // s2 += x[8:12]²
	VFMADD231PD Y7, Y7, Y3  // s3 += x[12:16]²
	ADDQ        $64, X_     // x = x[16:]
	SUBQ        $16, N      // n -= 16
	CMPQ        N, $16
	JGE         ss16

ss8:
	CMPQ N, $8
	JL   ssfold
	VCVTPS2PD   (X_), Y4   // float64(x[0:4])
	VCVTPS2PD   16(X_), Y5 // float64(x[4:8])
	VFMADD231PD Y4, Y4, Y0 // s0 += x[0:4]²
	VFMADD231PD Y5, Y5, Y1 // s1 += x[4:8]²

ssfold:
	VADDPD       Y1, Y0, Y0 // s0 += s1
	VADDPD       Y3, Y2, Y2 // s2 += s3
	VADDPD       Y2, Y0, Y0 // s0 += s2
	VEXTRACTF128 $1, Y0, X1 // s0[2:4]
	VADDPD       X1, X0, X0 // 2 lanes
	VHADDPD      X0, X0, X0 // 1 lane
	VZEROUPPER
	MOVSD        X0, ret+16(FP)
	RET

// func sumSquaresAVX512(x *float32, n int) float64: sumSquaresAVX2 with 8
// float64 lanes.
TEXT ·sumSquaresAVX512(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), X_
	MOVQ   n+8(FP), N
	VPXORQ Z0, Z0, Z0 // s0 = 0
	VPXORQ Z1, Z1, Z1 // s1 = 0
	VPXORQ Z2, Z2, Z2 // s2 = 0
	VPXORQ Z3, Z3, Z3 // s3 = 0
	CMPQ   N, $32
	JL     ss16z

ss32z:
	VCVTPS2PD   (X_), Z4    // float64(x[0:8])
	VCVTPS2PD   32(X_), Z5  // float64(x[8:16])
	VCVTPS2PD   64(X_), Z6  // float64(x[16:24])
	VCVTPS2PD   96(X_), Z7  // float64(x[24:32])
	VFMADD231PD Z4, Z4, Z0  // s0 += x[0:8]²
	VFMADD231PD Z5, Z5, Z1  // s1 += x[8:16]²
	VFMADD231PD Z6, Z6, Z2  // s2 += x[16:24]²
	VFMADD231PD Z7, Z7, Z3  // s3 += x[24:32]²
	ADDQ        $128, X_    // x = x[32:]
	SUBQ        $32, N      // n -= 32
	CMPQ        N, $32
	JGE         ss32z

ss16z:
	CMPQ N, $16
	JL   ss512fold
	VCVTPS2PD   (X_), Z4   // float64(x[0:8])
	VCVTPS2PD   32(X_), Z5 // float64(x[8:16])
	VFMADD231PD Z4, Z4, Z0 // s0 += x[0:8]²
	VFMADD231PD Z5, Z5, Z1 // s1 += x[8:16]²

ss512fold:
	VADDPD        Z1, Z0, Z0 // s0 += s1
	VADDPD        Z3, Z2, Z2 // s2 += s3
	VADDPD        Z2, Z0, Z0 // s0 += s2
	VEXTRACTF64X4 $1, Z0, Y1 // s0[4:8]
	VADDPD        Y1, Y0, Y0 // 4 lanes
	VEXTRACTF128  $1, Y0, X1 // s0[2:4]
	VADDPD        X1, X0, X0 // 2 lanes
	VHADDPD       X0, X0, X0 // 1 lane
	VZEROUPPER
	MOVSD         X0, ret+16(FP)
	RET

// func rmsScaleAVX2(out, x, w *float32, inv float32, n int)
//
//	for i := range n { out[i] = x[i] * inv * w[i] }
TEXT ·rmsScaleAVX2(SB), NOSPLIT, $0-40
	MOVQ         out+0(FP), O_
	MOVQ         x+8(FP), X_
	MOVQ         w+16(FP), W_
	VBROADCASTSS inv+24(FP), Y0 // inv in every lane
	MOVQ         n+32(FP), N
	CMPQ         N, $8
	JL           rmsdone

rms8:
	VMULPS  (X_), Y0, Y1 // x[0:8] * inv
	VMULPS  (W_), Y1, Y1 // x[0:8] * inv * w[0:8]
	VMOVUPS Y1, (O_)     // out[0:8]
	ADDQ    $32, X_      // x = x[8:]
	ADDQ    $32, W_      // w = w[8:]
	ADDQ    $32, O_      // out = out[8:]
	SUBQ    $8, N        // n -= 8
	CMPQ    N, $8
	JGE     rms8

rmsdone:
	VZEROUPPER
	RET

// func rmsScaleAVX512(out, x, w *float32, inv float32, n int): rmsScaleAVX2
// with 16 lanes.
TEXT ·rmsScaleAVX512(SB), NOSPLIT, $0-40
	MOVQ         out+0(FP), O_
	MOVQ         x+8(FP), X_
	MOVQ         w+16(FP), W_
	VBROADCASTSS inv+24(FP), Z0 // inv in every lane
	MOVQ         n+32(FP), N
	CMPQ         N, $16
	JL           rms512done

rms16:
	VMULPS  (X_), Z0, Z1 // x[0:16] * inv
	VMULPS  (W_), Z1, Z1 // x[0:16] * inv * w[0:16]
	VMOVUPS Z1, (O_)     // out[0:16]
	ADDQ    $64, X_      // x = x[16:]
	ADDQ    $64, W_      // w = w[16:]
	ADDQ    $64, O_      // out = out[16:]
	SUBQ    $16, N       // n -= 16
	CMPQ    N, $16
	JGE     rms16

rms512done:
	VZEROUPPER
	RET
