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

// func gemv4F32StreamsAVX2(out *float32, os int, w *float32, ldw int, x *float32, n int)
//
// gemv4F32AVX2 for four rows far apart (ldw elements between them: one
// row from each quarter of a matrix's rows, matVecF32By), each prefetched
// 8 KiB ahead of itself, and out[0], out[os/4], out[2·os/4], out[3·os/4]
// for the four sums. One core reads four streams far apart faster than
// one (kernels/quant8_amd64.go); each row's operations are
// gemv4F32AVX2's, so its sum keeps its bits.
TEXT ·gemv4F32StreamsAVX2(SB), NOSPLIT, $0-48
	MOVQ   out+0(FP), OUT
	MOVQ   os+8(FP), R11
	MOVQ   w+16(FP), W0
	MOVQ   ldw+24(FP), LD
	SHLQ   $2, LD // bytes between the rows
	MOVQ   x+32(FP), XP
	MOVQ   n+40(FP), N
	ROWS
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   I, I
	TESTQ  N, N
	JE     f32savx2sum

f32savx2loop:
	PREFETCHT0  8192(W0)(I*4)
	PREFETCHT0  8192(W1)(I*4)
	PREFETCHT0  8192(W2)(I*4)
	PREFETCHT0  8192(W3)(I*4)
	VMOVUPS     (XP)(I*4), Y4
	VFMADD231PS (W0)(I*4), Y4, Y0
	VFMADD231PS (W1)(I*4), Y4, Y1
	VFMADD231PS (W2)(I*4), Y4, Y2
	VFMADD231PS (W3)(I*4), Y4, Y3
	ADDQ        $8, I
	CMPQ        I, N
	JL          f32savx2loop

f32savx2sum:
	HSUM4
	VMOVSS     X0, (OUT)
	VEXTRACTPS $1, X0, (OUT)(R11*1)
	VEXTRACTPS $2, X0, (OUT)(R11*2)
	LEAQ       (R11)(R11*2), R11
	VEXTRACTPS $3, X0, (OUT)(R11*1)
	VZEROUPPER
	RET

// func gemv4F32StreamsAVX512(out *float32, os int, w *float32, ldw int, x *float32, n int):
// gemv4F32StreamsAVX2 with gemv4F32AVX512's 16 lanes.
TEXT ·gemv4F32StreamsAVX512(SB), NOSPLIT, $0-48
	MOVQ   out+0(FP), OUT
	MOVQ   os+8(FP), R11
	MOVQ   w+16(FP), W0
	MOVQ   ldw+24(FP), LD
	SHLQ   $2, LD
	MOVQ   x+32(FP), XP
	MOVQ   n+40(FP), N
	ROWS
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	XORQ   I, I
	TESTQ  N, N
	JE     f32savx512sum

f32savx512loop:
	PREFETCHT0  8192(W0)(I*4)
	PREFETCHT0  8192(W1)(I*4)
	PREFETCHT0  8192(W2)(I*4)
	PREFETCHT0  8192(W3)(I*4)
	VMOVUPS     (XP)(I*4), Z4
	VFMADD231PS (W0)(I*4), Z4, Z0
	VFMADD231PS (W1)(I*4), Z4, Z1
	VFMADD231PS (W2)(I*4), Z4, Z2
	VFMADD231PS (W3)(I*4), Z4, Z3
	ADDQ        $16, I
	CMPQ        I, N
	JL          f32savx512loop

f32savx512sum:
	FOLD4
	HSUM4
	VMOVSS     X0, (OUT)
	VEXTRACTPS $1, X0, (OUT)(R11*1)
	VEXTRACTPS $2, X0, (OUT)(R11*2)
	LEAQ       (R11)(R11*2), R11
	VEXTRACTPS $3, X0, (OUT)(R11*1)
	VZEROUPPER
	RET

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


// Pair kernels: the bf16 MatVec without a widening shuffle per weight.
//
// A 32-bit lane of a bf16 row holds the pair (w[2j], w[2j+1]), low word
// first. As float32 the even one is lane << 16 and the odd one is
// lane & 0xFFFF0000, both exact, so a vector of weights costs a load, a
// shift, an AND and two FMAs, against the even and odd halves of x:
//
//	s = Σ_j w[2j]·x[2j] + Σ_j w[2j+1]·x[2j+1]
//
// with the two sums in separate accumulators, added at the end. The widening
// kernels above spend a VPMOVZXWD (a cross-lane shuffle) per weight vector.
//
// gemvRowsBF16PairAVX2 reads one row at a time from x split beforehand (the
// Go driver splits it once per call), so row after row the weights are read in
// address order, one stream through the whole matrix as in a plain read
// loop, with a PREFETCHT0 pf bytes ahead per line. gemv4BF16Pair* read four
// rows at once and split x themselves, two shuffles per step shared by the
// four rows; the driver uses them for rows too long to keep split x in L1
// beside the stream.
//
// Measured on the 2-core AMD EPYC (Zen 5) box, 1 thread. Kernels alone, GB/s
// of weights by thread CPU time, weights mapped from the model file (4 KiB
// pages), taking turns with a Dot over the same bytes (plain read, 34-39):
//
//	                 widening 4-row   pair 4-row   pair 1-row (16 lanes)
//	8960 × 1536           28-29          29-31       31-34
//	1536 × 1536           29-31          30-31       31-33
//	1536 × 8960           27-28          28-29       23-29
//
// So the shuffle was not the bound (the 4-row pair kernel gains 3-5 %);
// reading in address order is, and only with the prefetch: pf 0 gives 29
// for 8960 × 1536, 1 KiB 31, 4-64 KiB 32-34 (flat); PREFETCHNTA the same,
// PREFETCHT1 a little slower. Real decode of Qwen2.5-1.5B (bench, median
// of 3, 37.6 GB/s plain read): widening 4-row 27-28 GB/s; a 16-lane 1-row
// kernel, four lines a step, 26-28 despite the table above; this 8-lane one
// 31-33 (pf 4 KiB 30-31, 8 KiB 31-32, 16 KiB 31), so both AVX levels use
// it. Rows of 8960 columns stayed on the 4-row pair kernel on 4 KiB pages
// (1-row for them, 35 KiB of split x, gave 31.1-31.2 against 31.6-32.2);
// with the weights on 2 MiB pages 1-row wins for them too (gemv_amd64.go).
// On 2 MiB pages (plain read 41-43 GB/s), five alternating rounds over
// Qwen-shaped matrices: PREFETCHNTA against PREFETCHT0 at 8 KiB, 38.1-39.2
// against 37.9-38.5 GB/s overall (ffn_gate 41.0-42.6 against 39.7-40.6);
// real decode, 1 thread, 12.4-12.9 against 12.5-12.7 tok/s. PREFETCHT1 far
// with PREFETCHT0 near (1 KiB, 512 B), or a second PREFETCHT0 at 2 KiB:
// all slower (33-37).
//
// On a 2-core Intel Xeon VM (AVX-512, AVX512-BF16) the two hints part
// ways. Rows of 1536 and 8960 columns, 1 thread, 2 MiB pages, GB/s by
// thread CPU time (plain read of the same bytes 8.5-10.4): PREFETCHNTA
// 8 KiB ahead 4.0-4.9, no prefetch 5.9-7.0, PREFETCHT0 at 2, 4, 8 or
// 16 KiB 8.2-9.7. Real decode of Qwen2.5-1.5B, four alternating rounds:
// 1 thread 4.2-6.6 GB/s with NTA, 7.9-9.4 with T0; 2 threads 7.6-8.3 and
// 10.3-12.9. An NTA line skips L2 on that core, and it seems the L2
// streamer, untrained, leaves the whole stream to the fill buffers. So
// the kernel uses PREFETCHT0, equal to NTA on Zen 5 and twice as fast on
// the Xeon.

// gemv4BF16PairAVX2 registers: Y0..Y3 even sums, Y8..Y11 odd sums, Y6 / Y7
// the even / odd halves of x, Y15 the odd-word mask.
#define XE Y6
#define XO Y7
#define OMASK Y15

// PAIR8 adds row Wr's 16 columns at c = I to the sums se, so:
// Y12 = 8 pairs; Y13 = even weights; Y12 = odd weights.
#define PAIR8(Wr, se, so) \
	VMOVDQU     (Wr)(I*2), Y12 \
	VPSLLD      $16, Y12, Y13  \
	VPAND       OMASK, Y12, Y12 \
	VFMADD231PS Y13, XE, se    \
	VFMADD231PS Y12, XO, so

// func gemv4BF16PairAVX2(out *float32, os int, w *BF16, ldw int, x *float32, n int)
//
//	for i := range 4 {
//		var se, so float32
//		for c := 0; c < n; c += 2 {
//			se += w[i*ldw+c].Float32() * x[c]
//			so += w[i*ldw+c+1].Float32() * x[c+1]
//		}
//		out[i*os/4] = se + so
//	}
//
// The four rows are one from each quarter of a matrix's rows
// (matVecBF16Quads): four streams far apart, which one core reads faster
// than one; each prefetches 8 KiB ahead of itself. ldw = os = 0 gives one
// row's sum. n is a multiple of 16.
TEXT ·gemv4BF16PairAVX2(SB), NOSPLIT, $0-48
	MOVQ      out+0(FP), OUT
	MOVQ      os+8(FP), R11        // bytes between the sums
	MOVQ      w+16(FP), W0
	MOVQ      ldw+24(FP), LD
	SHLQ      $1, LD // bytes per row
	MOVQ      x+32(FP), XP
	MOVQ      n+40(FP), N
	ROWS
	VPCMPEQD  OMASK, OMASK, OMASK      // all ones
	VPSLLD    $16, OMASK, OMASK        // 0xFFFF0000 per lane
	VXORPS    Y0, Y0, Y0               // se0 = 0
	VXORPS    Y1, Y1, Y1               // se1 = 0
	VXORPS    Y2, Y2, Y2               // se2 = 0
	VXORPS    Y3, Y3, Y3               // se3 = 0
	VXORPS    Y8, Y8, Y8               // so0 = 0
	VXORPS    Y9, Y9, Y9               // so1 = 0
	VXORPS    Y10, Y10, Y10            // so2 = 0
	VXORPS    Y11, Y11, Y11            // so3 = 0
	XORQ      I, I                     // c = 0
	TESTQ     N, N
	JE        pairavx2sum

pairavx2loop:
	PREFETCHT0   8192(W0)(I*2)          // each row 8 KiB ahead of itself
	PREFETCHT0   8192(W1)(I*2)          // each row 8 KiB ahead of itself
	PREFETCHT0   8192(W2)(I*2)          // each row 8 KiB ahead of itself
	PREFETCHT0   8192(W3)(I*2)          // each row 8 KiB ahead of itself
	VMOVUPS      (XP)(I*4), X4          // Y4 = [x[c:c+4], ·]
	VINSERTF128  $1, 32(XP)(I*4), Y4, Y4 // Y4 = [x[c:c+4], x[c+8:c+12]]
	VMOVUPS      16(XP)(I*4), X5        // Y5 = [x[c+4:c+8], ·]
	VINSERTF128  $1, 48(XP)(I*4), Y5, Y5 // Y5 = [x[c+4:c+8], x[c+12:c+16]]
	VSHUFPS      $0x88, Y5, Y4, XE      // xe = x[c], x[c+2], …, x[c+14]
	VSHUFPS      $0xDD, Y5, Y4, XO      // xo = x[c+1], x[c+3], …, x[c+15]
	PAIR8(W0, Y0, Y8)                   // s0 += w0 · x
	PAIR8(W1, Y1, Y9)                   // s1 += w1 · x
	PAIR8(W2, Y2, Y10)                  // s2 += w2 · x
	PAIR8(W3, Y3, Y11)                  // s3 += w3 · x
	ADDQ         $16, I                 // c += 16
	CMPQ         I, N
	JL           pairavx2loop

pairavx2sum:
	VADDPS  Y8, Y0, Y0 // s0 = se0 + so0
	VADDPS  Y9, Y1, Y1 // s1 = se1 + so1
	VADDPS  Y10, Y2, Y2 // s2 = se2 + so2
	VADDPS  Y11, Y3, Y3 // s3 = se3 + so3
	HSUM4
	VMOVSS     X0, (OUT)
	VEXTRACTPS $1, X0, (OUT)(R11*1)
	VEXTRACTPS $2, X0, (OUT)(R11*2)
	LEAQ       (R11)(R11*2), R11
	VEXTRACTPS $3, X0, (OUT)(R11*1)
	VZEROUPPER
	RET

#undef XE
#undef XO
#undef OMASK

// pairIdx holds the VPERMT2PS indices that gather the even (first 16) and
// odd (last 16) elements of a 32-float table.
DATA pairIdx<>+0(SB)/4, $0
DATA pairIdx<>+4(SB)/4, $2
DATA pairIdx<>+8(SB)/4, $4
DATA pairIdx<>+12(SB)/4, $6
DATA pairIdx<>+16(SB)/4, $8
DATA pairIdx<>+20(SB)/4, $10
DATA pairIdx<>+24(SB)/4, $12
DATA pairIdx<>+28(SB)/4, $14
DATA pairIdx<>+32(SB)/4, $16
DATA pairIdx<>+36(SB)/4, $18
DATA pairIdx<>+40(SB)/4, $20
DATA pairIdx<>+44(SB)/4, $22
DATA pairIdx<>+48(SB)/4, $24
DATA pairIdx<>+52(SB)/4, $26
DATA pairIdx<>+56(SB)/4, $28
DATA pairIdx<>+60(SB)/4, $30
DATA pairIdx<>+64(SB)/4, $1
DATA pairIdx<>+68(SB)/4, $3
DATA pairIdx<>+72(SB)/4, $5
DATA pairIdx<>+76(SB)/4, $7
DATA pairIdx<>+80(SB)/4, $9
DATA pairIdx<>+84(SB)/4, $11
DATA pairIdx<>+88(SB)/4, $13
DATA pairIdx<>+92(SB)/4, $15
DATA pairIdx<>+96(SB)/4, $17
DATA pairIdx<>+100(SB)/4, $19
DATA pairIdx<>+104(SB)/4, $21
DATA pairIdx<>+108(SB)/4, $23
DATA pairIdx<>+112(SB)/4, $25
DATA pairIdx<>+116(SB)/4, $27
DATA pairIdx<>+120(SB)/4, $29
DATA pairIdx<>+124(SB)/4, $31
GLOBL pairIdx<>(SB), RODATA|NOPTR, $128

// gemv4BF16PairAVX512 registers: Z0..Z3 even sums, Z8..Z11 odd sums, Z6 / Z7
// the even / odd halves of x, Z12 / Z13 their gather indices, Z15 the
// odd-word mask.
#define XE Z6
#define XO Z7
#define IDXE Z12
#define IDXO Z13
#define OMASK Z15

// PAIR16 is PAIR8 on 32 columns: Z16 = 16 pairs; Z17 = even; Z16 = odd.
#define PAIR16(Wr, se, so) \
	VMOVDQU32   (Wr)(I*2), Z16 \
	VPSLLD      $16, Z16, Z17  \
	VPANDD      OMASK, Z16, Z16 \
	VFMADD231PS Z17, XE, se    \
	VFMADD231PS Z16, XO, so

// func gemv4BF16PairAVX512(out *float32, os int, w *BF16, ldw int, x *float32, n int):
// gemv4BF16PairAVX2 with 16 lanes; n is a multiple of 32.
TEXT ·gemv4BF16PairAVX512(SB), NOSPLIT, $0-48
	MOVQ       out+0(FP), OUT
	MOVQ       os+8(FP), R11        // bytes between the sums
	MOVQ       w+16(FP), W0
	MOVQ       ldw+24(FP), LD
	SHLQ       $1, LD
	MOVQ       x+32(FP), XP
	MOVQ       n+40(FP), N
	ROWS
	VMOVDQU32  pairIdx<>+0(SB), IDXE  // 0, 2, …, 30
	VMOVDQU32  pairIdx<>+64(SB), IDXO // 1, 3, …, 31
	VPTERNLOGD $0xFF, OMASK, OMASK, OMASK // all ones
	VPSLLD     $16, OMASK, OMASK      // 0xFFFF0000 per lane
	VXORPS     Z0, Z0, Z0
	VXORPS     Z1, Z1, Z1
	VXORPS     Z2, Z2, Z2
	VXORPS     Z3, Z3, Z3
	VXORPS     Z8, Z8, Z8
	VXORPS     Z9, Z9, Z9
	VXORPS     Z10, Z10, Z10
	VXORPS     Z11, Z11, Z11
	XORQ       I, I
	TESTQ      N, N
	JE         pairavx512sum

pairavx512loop:
	PREFETCHT0   8192(W0)(I*2)          // each row 8 KiB ahead of itself
	PREFETCHT0   8192(W1)(I*2)          // each row 8 KiB ahead of itself
	PREFETCHT0   8192(W2)(I*2)          // each row 8 KiB ahead of itself
	PREFETCHT0   8192(W3)(I*2)          // each row 8 KiB ahead of itself
	VMOVUPS    (XP)(I*4), XE                // xe = x[c:c+16]
	VMOVUPS    XE, XO                       // xo = x[c:c+16]
	VPERMT2PS  64(XP)(I*4), IDXE, XE        // xe = x[c], x[c+2], …, x[c+30]
	VPERMT2PS  64(XP)(I*4), IDXO, XO        // xo = x[c+1], x[c+3], …, x[c+31]
	PAIR16(W0, Z0, Z8)                      // s0 += w0 · x
	PAIR16(W1, Z1, Z9)                      // s1 += w1 · x
	PAIR16(W2, Z2, Z10)                     // s2 += w2 · x
	PAIR16(W3, Z3, Z11)                     // s3 += w3 · x
	ADDQ       $32, I                       // c += 32
	CMPQ       I, N
	JL         pairavx512loop

pairavx512sum:
	VADDPS  Z8, Z0, Z0
	VADDPS  Z9, Z1, Z1
	VADDPS  Z10, Z2, Z2
	VADDPS  Z11, Z3, Z3
	FOLD4
	HSUM4
	VMOVSS     X0, (OUT)
	VEXTRACTPS $1, X0, (OUT)(R11*1)
	VEXTRACTPS $2, X0, (OUT)(R11*2)
	LEAQ       (R11)(R11*2), R11
	VEXTRACTPS $3, X0, (OUT)(R11*1)
	VZEROUPPER
	RET

#undef XE
#undef XO
#undef IDXE
#undef IDXO
#undef OMASK

// gemv1BF16Pair registers.
#define SE0 Y0
#define SO0 Y1
#define SE1 Y2
#define SO1 Y3
#define XEP R8
#define XOP R9
#define NW R10
#define J AX
#define PFP R11
#define ROWSN R12
#define LDWB R13

// func gemvRowsBF16PairAVX2(out *float32, rows int, w *BF16, ldw int, xe, xo *float32, n, pf int)
//
//	for r := range rows {
//		var se, so float32
//		for j := range n / 2 {
//			se += w[r*ldw+2*j].Float32() * xe[j]
//			so += w[r*ldw+2*j+1].Float32() * xo[j]
//		}
//		out[r] = se + so
//	}
//
// n is a multiple of 16, rows ≥ 1. The loop over rows is here rather than
// in Go: Qwen2.5-1.5B's decode step runs 800 k rows (the output head alone
// 152 k), and a Go call per row cost about 1 % of decode.
TEXT ·gemvRowsBF16PairAVX2(SB), NOSPLIT, $0-64
	MOVQ     out+0(FP), OUT
	MOVQ     rows+8(FP), ROWSN
	MOVQ     w+16(FP), W0
	MOVQ     ldw+24(FP), LDWB
	SHLQ     $1, LDWB              // row stride in bytes
	MOVQ     xe+32(FP), XEP
	MOVQ     xo+40(FP), XOP
	MOVQ     n+48(FP), N
	MOVQ     pf+56(FP), PFP
	ADDQ     W0, PFP               // the stream, pf bytes ahead
	SHRQ     $1, N                 // pairs
	VPCMPEQD Y15, Y15, Y15         // all ones
	VPSLLD   $16, Y15, Y15         // 0xFFFF0000 per lane

p1avx2row:
	VXORPS   SE0, SE0, SE0         // se = 0 (two accumulators each,
	VXORPS   SO0, SO0, SO0         // so = 0  for the FMA latency)
	VXORPS   SE1, SE1, SE1
	VXORPS   SO1, SO1, SO1
	XORQ     J, J                  // j = 0
	MOVQ     N, NW
	ANDQ     $-16, NW              // pairs in whole 64-byte lines
	JE       p1avx2tail

p1avx2loop:
	PREFETCHT0  (PFP)(J*4)          // w[2j+pf/2 …]
	VMOVDQU     (W0)(J*4), Y4       // pairs j … j+7
	VMOVDQU     32(W0)(J*4), Y6     // pairs j+8 … j+15
	VPSLLD      $16, Y4, Y5         // float32(w[2j … 2j+14 by 2])
	VPSLLD      $16, Y6, Y7         // float32(w[2j+16 … by 2])
	VPAND       Y15, Y4, Y4         // float32(w[2j+1 … 2j+15 by 2])
	VPAND       Y15, Y6, Y6         // float32(w[2j+17 … by 2])
	VFMADD231PS (XEP)(J*4), Y5, SE0   // se += w even · xe[j:j+8]
	VFMADD231PS (XOP)(J*4), Y4, SO0   // so += w odd · xo[j:j+8]
	VFMADD231PS 32(XEP)(J*4), Y7, SE1 // se += w even · xe[j+8:j+16]
	VFMADD231PS 32(XOP)(J*4), Y6, SO1 // so += w odd · xo[j+8:j+16]
	ADDQ        $16, J              // j += 16
	CMPQ        J, NW
	JL          p1avx2loop

p1avx2tail:
	CMPQ        J, N                // a last half line?
	JGE         p1avx2sum
	VMOVDQU     (W0)(J*4), Y4
	VPSLLD      $16, Y4, Y5
	VPAND       Y15, Y4, Y4
	VFMADD231PS (XEP)(J*4), Y5, SE0
	VFMADD231PS (XOP)(J*4), Y4, SO0

p1avx2sum:
	VADDPS       SO0, SE0, Y0       // s = se + so
	VADDPS       SO1, SE1, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1         // fold 8 lanes to 4
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0         // to 2
	VHADDPS      X0, X0, X0         // to 1
	VMOVSS       X0, (OUT)          // out[r] = s
	ADDQ         $4, OUT            // next row
	ADDQ         LDWB, W0
	ADDQ         LDWB, PFP
	DECQ         ROWSN
	JNZ          p1avx2row
	VZEROUPPER
	RET

#undef SE0
#undef SO0
#undef SE1
#undef SO1

#undef XEP
#undef XOP
#undef NW
#undef J
#undef PFP
#undef ROWSN
#undef LDWB
