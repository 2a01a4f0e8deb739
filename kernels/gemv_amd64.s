//go:build amd64 && !purego

#include "textflag.h"

// Four-row matrix-vector kernels: out[i] = Σ_{c<n} w[i·ldw+c]·x[c], i < 4.
// Each x vector is loaded once for four rows of w, which keeps the loop
// bound by the weight stream. n is a multiple of the vector width (8 or 16);
// ldw is in elements and may be 0 (one row, four times: the Go driver's
// way to finish the last rows of a matrix).
//
// The four rows after these form one contiguous block (the next call's),
// and each step asks for as many bytes of it as it reads (PREFETCHT0 from
// R11 = w + 4·ldw), so the next block arrives while this one computes.
// Without it the four short streams restart cold at every block: measured
// on MatVecBF16 AVX-512, 19 → 25 GB/s by thread CPU time for 8960 × 1536,
// with 34 GB/s for a plain one-stream read on the same box.

#define OUT DX
#define W0 SI
#define W1 R8
#define W2 R9
#define W3 R10
#define LD BX
#define XP DI
#define N CX
#define I AX

// ROWS sets W1..W3 from W0 and the row stride LD in bytes.
#define ROWS \
	LEAQ (W0)(LD*1), W1 \
	LEAQ (W0)(LD*2), W2 \
	LEAQ (W1)(LD*2), W3

// HSUM4 reduces four 8-lane sums Y0..Y3 to X0 = [ΣY0, ΣY1, ΣY2, ΣY3].
// Y0 = [y0 pairs, y1 pairs] per 128-bit half; Y2 = [y2 pairs, y3 pairs];
// Y0 = [Σy0, Σy1, Σy2, Σy3] per half; X0 = sum of the two halves.
#define HSUM4 \
	VHADDPS      Y1, Y0, Y0 \
	VHADDPS      Y3, Y2, Y2 \
	VHADDPS      Y2, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS       X1, X0, X0

// FOLD4 halves four 16-lane sums Z0..Z3 into Y0..Y3.
#define FOLD4 \
	VEXTRACTF64X4 $1, Z0, Y4 \
	VEXTRACTF64X4 $1, Z1, Y5 \
	VEXTRACTF64X4 $1, Z2, Y6 \
	VEXTRACTF64X4 $1, Z3, Y7 \
	VADDPS        Y4, Y0, Y0 \
	VADDPS        Y5, Y1, Y1 \
	VADDPS        Y6, Y2, Y2 \
	VADDPS        Y7, Y3, Y3

// func gemv4F32AVX2(out *float32, w *float32, ldw int, x *float32, n int)
//
//	for i := range 4 {
//		var s float32
//		for c := range n { s += w[i*ldw+c] * x[c] }
//		out[i] = s
//	}
TEXT ·gemv4F32AVX2(SB), NOSPLIT, $0-40
	MOVQ   out+0(FP), OUT
	MOVQ   w+8(FP), W0
	MOVQ   ldw+16(FP), LD
	SHLQ   $2, LD // bytes per row
	MOVQ   x+24(FP), XP
	MOVQ   n+32(FP), N
	ROWS
	LEAQ   (W0)(LD*4), R11 // the next block, for the prefetch
	VXORPS Y0, Y0, Y0 // s0 = 0
	VXORPS Y1, Y1, Y1 // s1 = 0
	VXORPS Y2, Y2, Y2 // s2 = 0
	VXORPS Y3, Y3, Y3 // s3 = 0
	XORQ   I, I       // c = 0
	TESTQ  N, N
	JE     f32avx2sum

f32avx2loop:
	PREFETCHT0  (R11)
	PREFETCHT0  64(R11)
	ADDQ        $128, R11
	VMOVUPS     (XP)(I*4), Y4       // x[c:c+8]
	VFMADD231PS (W0)(I*4), Y4, Y0   // s0 += w0[c:c+8] * x[c:c+8]
	VFMADD231PS (W1)(I*4), Y4, Y1   // s1 += w1[c:c+8] * x[c:c+8]
	VFMADD231PS (W2)(I*4), Y4, Y2   // s2 += w2[c:c+8] * x[c:c+8]
	VFMADD231PS (W3)(I*4), Y4, Y3   // s3 += w3[c:c+8] * x[c:c+8]
	ADDQ        $8, I               // c += 8
	CMPQ        I, N
	JL          f32avx2loop

f32avx2sum:
	HSUM4
	VMOVUPS X0, (OUT) // out[0:4] = [Σs0, Σs1, Σs2, Σs3]
	VZEROUPPER
	RET

// func gemv4BF16AVX2(out *float32, w *BF16, ldw int, x *float32, n int)
//
//	for i := range 4 {
//		var s float32
//		for c := range n { s += w[i*ldw+c].Float32() * x[c] }
//		out[i] = s
//	}
//
// A bf16 is the high half of a float32: zero-extend each 16-bit word to 32
// bits and shift it up by 16 to get the float exactly.
TEXT ·gemv4BF16AVX2(SB), NOSPLIT, $0-40
	MOVQ   out+0(FP), OUT
	MOVQ   w+8(FP), W0
	MOVQ   ldw+16(FP), LD
	SHLQ   $1, LD // bytes per row
	MOVQ   x+24(FP), XP
	MOVQ   n+32(FP), N
	ROWS
	LEAQ   (W0)(LD*4), R11 // the next block, for the prefetch
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   I, I
	TESTQ  N, N
	JE     bf16avx2sum

bf16avx2loop:
	PREFETCHT0  (R11)
	ADDQ        $64, R11
	VMOVUPS     (XP)(I*4), Y4     // x[c:c+8]
	VPMOVZXWD   (W0)(I*2), Y5     // uint32(w0[c:c+8])
	VPMOVZXWD   (W1)(I*2), Y6     // uint32(w1[c:c+8])
	VPMOVZXWD   (W2)(I*2), Y7     // uint32(w2[c:c+8])
	VPMOVZXWD   (W3)(I*2), Y8     // uint32(w3[c:c+8])
	VPSLLD      $16, Y5, Y5       // float32(w0[c:c+8])
	VPSLLD      $16, Y6, Y6       // float32(w1[c:c+8])
	VPSLLD      $16, Y7, Y7       // float32(w2[c:c+8])
	VPSLLD      $16, Y8, Y8       // float32(w3[c:c+8])
	VFMADD231PS Y5, Y4, Y0        // s0 += w0 * x
	VFMADD231PS Y6, Y4, Y1        // s1 += w1 * x
	VFMADD231PS Y7, Y4, Y2        // s2 += w2 * x
	VFMADD231PS Y8, Y4, Y3        // s3 += w3 * x
	ADDQ        $8, I             // c += 8
	CMPQ        I, N
	JL          bf16avx2loop

bf16avx2sum:
	HSUM4
	VMOVUPS X0, (OUT)
	VZEROUPPER
	RET

// func gemv4F32AVX512(out *float32, w *float32, ldw int, x *float32, n int):
// gemv4F32AVX2 with 16 lanes.
TEXT ·gemv4F32AVX512(SB), NOSPLIT, $0-40
	MOVQ   out+0(FP), OUT
	MOVQ   w+8(FP), W0
	MOVQ   ldw+16(FP), LD
	SHLQ   $2, LD
	MOVQ   x+24(FP), XP
	MOVQ   n+32(FP), N
	ROWS
	LEAQ   (W0)(LD*4), R11 // the next block, for the prefetch
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	XORQ   I, I
	TESTQ  N, N
	JE     f32avx512sum

f32avx512loop:
	PREFETCHT0  (R11)
	PREFETCHT0  64(R11)
	PREFETCHT0  128(R11)
	PREFETCHT0  192(R11)
	ADDQ        $256, R11
	VMOVUPS     (XP)(I*4), Z4     // x[c:c+16]
	VFMADD231PS (W0)(I*4), Z4, Z0 // s0 += w0[c:c+16] * x[c:c+16]
	VFMADD231PS (W1)(I*4), Z4, Z1 // s1 += w1[c:c+16] * x[c:c+16]
	VFMADD231PS (W2)(I*4), Z4, Z2 // s2 += w2[c:c+16] * x[c:c+16]
	VFMADD231PS (W3)(I*4), Z4, Z3 // s3 += w3[c:c+16] * x[c:c+16]
	ADDQ        $16, I            // c += 16
	CMPQ        I, N
	JL          f32avx512loop

f32avx512sum:
	FOLD4
	HSUM4
	VMOVUPS X0, (OUT)
	VZEROUPPER
	RET

// func gemv4BF16AVX512(out *float32, w *BF16, ldw int, x *float32, n int):
// gemv4BF16AVX2 with 16 lanes.
TEXT ·gemv4BF16AVX512(SB), NOSPLIT, $0-40
	MOVQ   out+0(FP), OUT
	MOVQ   w+8(FP), W0
	MOVQ   ldw+16(FP), LD
	SHLQ   $1, LD
	MOVQ   x+24(FP), XP
	MOVQ   n+32(FP), N
	ROWS
	LEAQ   (W0)(LD*4), R11 // the next four rows, one contiguous block
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	XORQ   I, I
	TESTQ  N, N
	JE     bf16avx512sum

bf16avx512loop:
	PREFETCHT0  (R11)   // as many bytes of the next block as this
	PREFETCHT0  64(R11) // step reads of the current one
	ADDQ        $128, R11
	VMOVUPS     (XP)(I*4), Z4 // x[c:c+16]
	VPMOVZXWD   (W0)(I*2), Z5 // uint32(w0[c:c+16])
	VPMOVZXWD   (W1)(I*2), Z6 // uint32(w1[c:c+16])
	VPMOVZXWD   (W2)(I*2), Z7 // uint32(w2[c:c+16])
	VPMOVZXWD   (W3)(I*2), Z8 // uint32(w3[c:c+16])
	VPSLLD      $16, Z5, Z5   // float32(w0[c:c+16])
	VPSLLD      $16, Z6, Z6   // float32(w1[c:c+16])
	VPSLLD      $16, Z7, Z7   // float32(w2[c:c+16])
	VPSLLD      $16, Z8, Z8   // float32(w3[c:c+16])
	VFMADD231PS Z5, Z4, Z0    // s0 += w0 * x
	VFMADD231PS Z6, Z4, Z1    // s1 += w1 * x
	VFMADD231PS Z7, Z4, Z2    // s2 += w2 * x
	VFMADD231PS Z8, Z4, Z3    // s3 += w3 * x
	ADDQ        $16, I        // c += 16
	CMPQ        I, N
	JL          bf16avx512loop

bf16avx512sum:
	FOLD4
	HSUM4
	VMOVUPS X0, (OUT)
	VZEROUPPER
	RET

