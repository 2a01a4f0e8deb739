// Package kernels holds the numeric inner loops of the engine: bf16 and f32
// weight × fp32 activation products, the block-quantised weights of GGUF
// files (quant.go: Q8_0, Q4_0, Q4_K, Q5_K, Q6_K, decoded in place, and
// quant8.go: their integer products with activations rounded to 8 bits),
// the fp32 products of attention (MatMulNN), RMSNorm, RoPE, softmax and
// SiLU·mul, and f16 conversion.
//
// Every family has a readable generic implementation (always compiled) and
// SIMD implementations chosen at run time from the CPU's features. The level
// in use can be forced with SetLevel, so a user can watch prefill slow down
// without AVX-512 while decode does not.
//
// Levels: generic (pure Go), avx2 (AVX2+FMA), avx512 (AVX-512F+VL) and
// avx512bf16 (adds VDPBF16PS for prefill, with activations rounded to bf16).
// The start-up level is Best(), or LOUPE_KERNELS=auto|exact|avx512bf16|
// avx512|avx2|generic ("exact": BestExact() with SetExact(true), every
// product in fp32); the purego build tag and non-amd64 builds have generic
// only.
//
// A family lives together: gemv.go (API, math, dispatch), gemv_generic.go
// (the reference loop), gemv_amd64.go + gemv_amd64.s (stubs, drivers,
// assembly); likewise gemm (prefill), gemmnn (MatMulNN, and the broadcast
// tiles that prefill uses from 16 tokens, 48 with f32 weights), vec (Dot,
// Axpy, Add), quant and quant8, norm (RMSNorm, softmax, SiLU) and peak.
// Assembly does whole vectors and Go finishes the tails.
//
// Conventions: matrices are row-major; a weight matrix W is rows × cols and a
// batch of activations X is n × cols (one row per token). Exported functions
// check lengths once (a violation panics: it is a bug in the caller) and
// then run without allocation or errors. Results do not depend on how the
// caller splits rows between workers.
package kernels

import "math"

// BF16 is a bfloat16 number: the top 16 bits of an IEEE-754 float32.
type BF16 uint16

// Float32 widens b exactly.
func (b BF16) Float32() float32 { return math.Float32frombits(uint32(b) << 16) }

// FromFloat32 rounds f to the nearest bf16, ties to even; NaN stays NaN.
func FromFloat32(f float32) BF16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 { // NaN: keep it quiet and non-zero
		return BF16(u>>16 | 0x40)
	}
	u += 0x7fff + (u>>16)&1
	return BF16(u >> 16)
}

// ToBF16 rounds src into dst element by element as FromFloat32 does, for
// i < len(src) (dst at least as long).
func ToBF16(dst []BF16, src []float32) {
	if len(dst) < len(src) {
		panic("kernels: ToBF16: dst shorter than src")
	}
	for i, v := range src {
		dst[i] = FromFloat32(v)
	}
}

// ToFloat32 widens src into dst exactly, for i < len(src).
func ToFloat32(dst []float32, src []BF16) {
	if len(dst) < len(src) {
		panic("kernels: ToFloat32: dst shorter than src")
	}
	for i, v := range src {
		dst[i] = v.Float32()
	}
}
