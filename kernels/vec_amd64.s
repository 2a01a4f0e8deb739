//go:build amd64 && !purego

#include "textflag.h"

// Whole vectors only: n is a multiple of 8 (AVX2) or 16 (AVX-512); the Go
// wrappers in vec_amd64.go finish the tail.

#define A SI
#define B DI
#define N CX

// func dotAVX2(a, b *float32, n int) float32
//
//	var s float32
//	for i := range n { s += a[i] * b[i] }
//	return s
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), A
	MOVQ   b+8(FP), B
	MOVQ   n+16(FP), N
	VXORPS Y0, Y0, Y0 // s0 = 0: four sums hide the FMA latency
	VXORPS Y1, Y1, Y1 // s1 = 0
	VXORPS Y2, Y2, Y2 // s2 = 0
	VXORPS Y3, Y3, Y3 // s3 = 0
	CMPQ   N, $32
	JL     dot8

dot32:
	VMOVUPS     (A), Y4           // a[0:8]
	VMOVUPS     32(A), Y5         // a[8:16]
	VMOVUPS     64(A), Y6         // a[16:24]
	VMOVUPS     96(A), Y7         // a[24:32]
	VFMADD231PS (B), Y4, Y0       // s0 += a[0:8] * b[0:8]
	VFMADD231PS 32(B), Y5, Y1     // s1 += a[8:16] * b[8:16]
	VFMADD231PS 64(B), Y6, Y2     // s2 += a[16:24] * b[16:24]
	VFMADD231PS 96(B), Y7, Y3     // s3 += a[24:32] * b[24:32]
	ADDQ        $128, A           // a = a[32:]
	ADDQ        $128, B           // b = b[32:]
	SUBQ        $32, N            // n -= 32
	CMPQ        N, $32
	JGE         dot32

dot8:
	CMPQ N, $8
	JL   dotsum

dot8loop:
	VMOVUPS     (A), Y4     // a[0:8]
	VFMADD231PS (B), Y4, Y0 // s0 += a[0:8] * b[0:8]
	ADDQ        $32, A      // a = a[8:]
	ADDQ        $32, B      // b = b[8:]
	SUBQ        $8, N       // n -= 8
	CMPQ        N, $8
	JGE         dot8loop

dotsum:
	VADDPS       Y1, Y0, Y0 // s0 += s1
	VADDPS       Y3, Y2, Y2 // s2 += s3
	VADDPS       Y2, Y0, Y0 // s0 += s2
	VEXTRACTF128 $1, Y0, X1 // s0[4:8]
	VADDPS       X1, X0, X0 // 4 lanes
	VHADDPS      X0, X0, X0 // 2 lanes
	VHADDPS      X0, X0, X0 // 1 lane
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func dotAVX512(a, b *float32, n int) float32: dotAVX2 with 16 lanes.
TEXT ·dotAVX512(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), A
	MOVQ   b+8(FP), B
	MOVQ   n+16(FP), N
	VXORPS Z0, Z0, Z0 // s0 = 0
	VXORPS Z1, Z1, Z1 // s1 = 0
	VXORPS Z2, Z2, Z2 // s2 = 0
	VXORPS Z3, Z3, Z3 // s3 = 0
	CMPQ   N, $64
	JL     dot16

dot64:
	VMOVUPS     (A), Z4         // a[0:16]
	VMOVUPS     64(A), Z5       // a[16:32]
	VMOVUPS     128(A), Z6      // a[32:48]
	VMOVUPS     192(A), Z7      // a[48:64]
	VFMADD231PS (B), Z4, Z0     // s0 += a[0:16] * b[0:16]
	VFMADD231PS 64(B), Z5, Z1   // s1 += a[16:32] * b[16:32]
	VFMADD231PS 128(B), Z6, Z2  // s2 += a[32:48] * b[32:48]
	VFMADD231PS 192(B), Z7, Z3  // s3 += a[48:64] * b[48:64]
	ADDQ        $256, A         // a = a[64:]
	ADDQ        $256, B         // b = b[64:]
	SUBQ        $64, N          // n -= 64
	CMPQ        N, $64
	JGE         dot64

dot16:
	CMPQ N, $16
	JL   dot512sum

dot16loop:
	VMOVUPS     (A), Z4     // a[0:16]
	VFMADD231PS (B), Z4, Z0 // s0 += a[0:16] * b[0:16]
	ADDQ        $64, A      // a = a[16:]
	ADDQ        $64, B      // b = b[16:]
	SUBQ        $16, N      // n -= 16
	CMPQ        N, $16
	JGE         dot16loop

dot512sum:
	VADDPS        Z1, Z0, Z0 // s0 += s1
	VADDPS        Z3, Z2, Z2 // s2 += s3
	VADDPS        Z2, Z0, Z0 // s0 += s2
	VEXTRACTF64X4 $1, Z0, Y1 // s0[8:16]
	VADDPS        Y1, Y0, Y0 // 8 lanes
	VEXTRACTF128  $1, Y0, X1 // s0[4:8]
	VADDPS        X1, X0, X0 // 4 lanes
	VHADDPS       X0, X0, X0 // 2 lanes
	VHADDPS       X0, X0, X0 // 1 lane
	VZEROUPPER
	MOVSS         X0, ret+24(FP)
	RET

#define Y_ DI
#define X_ SI

// func axpyAVX2(y, x *float32, a float32, n int)
//
//	for i := range n { y[i] += a * x[i] }
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	MOVQ         y+0(FP), Y_
	MOVQ         x+8(FP), X_
	VBROADCASTSS a+16(FP), Y0 // a in every lane
	MOVQ         n+24(FP), N
	CMPQ         N, $32
	JL           axpy8

axpy32:
	VMOVUPS     (Y_), Y1      // y[0:8]
	VMOVUPS     32(Y_), Y2    // y[8:16]
	VMOVUPS     64(Y_), Y3    // y[16:24]
	VMOVUPS     96(Y_), Y4    // y[24:32]
	VFMADD231PS (X_), Y0, Y1  // y[0:8] += a * x[0:8]
	VFMADD231PS 32(X_), Y0, Y2
	VFMADD231PS 64(X_), Y0, Y3
	VFMADD231PS 96(X_), Y0, Y4
	VMOVUPS     Y1, (Y_)
	VMOVUPS     Y2, 32(Y_)
	VMOVUPS     Y3, 64(Y_)
	VMOVUPS     Y4, 96(Y_)
	ADDQ        $128, Y_      // y = y[32:]
	ADDQ        $128, X_      // x = x[32:]
	SUBQ        $32, N
	CMPQ        N, $32
	JGE         axpy32

axpy8:
	CMPQ N, $8
	JL   axpydone

axpy8loop:
	VMOVUPS     (Y_), Y1     // y[0:8]
	VFMADD231PS (X_), Y0, Y1 // y[0:8] += a * x[0:8]
	VMOVUPS     Y1, (Y_)
	ADDQ        $32, Y_
	ADDQ        $32, X_
	SUBQ        $8, N
	CMPQ        N, $8
	JGE         axpy8loop

axpydone:
	VZEROUPPER
	RET

// func axpyAVX512(y, x *float32, a float32, n int): axpyAVX2 with 16 lanes.
TEXT ·axpyAVX512(SB), NOSPLIT, $0-32
	MOVQ         y+0(FP), Y_
	MOVQ         x+8(FP), X_
	VBROADCASTSS a+16(FP), Z0 // a in every lane
	MOVQ         n+24(FP), N
	CMPQ         N, $64
	JL           axpy16

axpy64:
	VMOVUPS     (Y_), Z1      // y[0:16]
	VMOVUPS     64(Y_), Z2    // y[16:32]
	VMOVUPS     128(Y_), Z3   // y[32:48]
	VMOVUPS     192(Y_), Z4   // y[48:64]
	VFMADD231PS (X_), Z0, Z1  // y[0:16] += a * x[0:16]
	VFMADD231PS 64(X_), Z0, Z2
	VFMADD231PS 128(X_), Z0, Z3
	VFMADD231PS 192(X_), Z0, Z4
	VMOVUPS     Z1, (Y_)
	VMOVUPS     Z2, 64(Y_)
	VMOVUPS     Z3, 128(Y_)
	VMOVUPS     Z4, 192(Y_)
	ADDQ        $256, Y_      // y = y[64:]
	ADDQ        $256, X_      // x = x[64:]
	SUBQ        $64, N
	CMPQ        N, $64
	JGE         axpy64

axpy16:
	CMPQ N, $16
	JL   axpy512done

axpy16loop:
	VMOVUPS     (Y_), Z1     // y[0:16]
	VFMADD231PS (X_), Z0, Z1 // y[0:16] += a * x[0:16]
	VMOVUPS     Z1, (Y_)
	ADDQ        $64, Y_
	ADDQ        $64, X_
	SUBQ        $16, N
	CMPQ        N, $16
	JGE         axpy16loop

axpy512done:
	VZEROUPPER
	RET

// func addAVX2(y, x *float32, n int)
//
//	for i := range n { y[i] += x[i] }
TEXT ·addAVX2(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), Y_
	MOVQ x+8(FP), X_
	MOVQ n+16(FP), N
	CMPQ N, $8
	JL   adddone

add8:
	VMOVUPS (Y_), Y1     // y[0:8]
	VADDPS  (X_), Y1, Y1 // y[0:8] + x[0:8]
	VMOVUPS Y1, (Y_)
	ADDQ    $32, Y_
	ADDQ    $32, X_
	SUBQ    $8, N
	CMPQ    N, $8
	JGE     add8

adddone:
	VZEROUPPER
	RET

// func addAVX512(y, x *float32, n int): addAVX2 with 16 lanes.
TEXT ·addAVX512(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), Y_
	MOVQ x+8(FP), X_
	MOVQ n+16(FP), N
	CMPQ N, $16
	JL   add512done

add16:
	VMOVUPS (Y_), Z1     // y[0:16]
	VADDPS  (X_), Z1, Z1 // y[0:16] + x[0:16]
	VMOVUPS Z1, (Y_)
	ADDQ    $64, Y_
	ADDQ    $64, X_
	SUBQ    $16, N
	CMPQ    N, $16
	JGE     add16

add512done:
	VZEROUPPER
	RET
