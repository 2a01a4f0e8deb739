//go:build !purego

package kernels

// Every arm64 CPU has Advanced SIMD (Go requires ARMv8-A), so NEON is
// always there; NEONDot needs FEAT_DotProd, NEONBF16 FEAT_BF16 as well and
// NEONI8MM FEAT_I8MM besides (every CPU with I8MM Loupe targets has BF16),
// read once: Linux HWCAP and HWCAP2 (cpufeat_arm64.go), macOS sysctl
// (cpufeat_darwin_arm64.go), Windows IsProcessorFeaturePresent
// (cpufeat_windows_arm64.go, which has no flag for FEAT_BF16 or FEAT_I8MM).
var (
	hasAVX2, hasAVX512, hasAVX512BF16 = false, false, false
	avx2Set, avx512Set, avx512bf16Set *kernelSet

	hasNEON     = true
	hasNEONDot  = hasDotProd()
	hasNEONBF16 = hasNEONDot && hasBF16()
	hasNEONI8MM = hasNEONBF16 && hasI8MM()
)

// roundRowsBF16 rounds x to bf16 into xb (RoundedX, at NEONBF16).
func roundRowsBF16(xb []BF16, x []float32) {
	for i, v := range x {
		xb[i] = FromFloat32(v)
	}
}

var (
	// neonSet: the fp32 products of decode and prefill in FMLA, the
	// integer decode of quantised weights in SMULL + SADALP.
	neonSet = &kernelSet{
		matVecBF16: matVecBF16NEON,
		matVecF32:  matVecF32NEON,
		matVecF16:  matVecF16NEON,
		widenF16:   widenF16NEONL,
		matMulBF16: matMulBF16NEON,
		matMulF32:  matMulF32NEON,
		matMulNN:   matMulNNNEON,
		dot:        dotNEONSlice,
		axpy:       axpyNEONSlice,
		add:        addNEONSlice,
		fmaPeak:    fmaPeakNEONLoop,
		rmsNorm:    rmsNormNEON,
		softmax:    softmaxNEON,
		siluMul:    siluMulNEONSlice,
		matVecQ:    matVecQNEON,
		dequantRow: dequantRowNEON,
		quantizeX:  quantizeXArm,
		matVecQ8:   matVecQ8NEON,
		q8Name:     "NEON SMULL",
	}
	// neondotSet adds SDOT to the integer decode.
	neondotSet = withQ8(neonSet, matVecQ8SDOT, "NEON SDOT")
	// neonbf16Set differs from neondotSet in prefill only, as avx512bf16
	// from avx512: bf16 weights × activations rounded to bf16 in BFMMLA
	// (RoundsActivations); decode keeps x exact (widening FMLA).
	neonbf16Set = withBF16MMLA(neondotSet)
	// neoni8mmSet adds SMMLA to neonbf16Set for the int8 products of
	// several tokens at once (MatMulQ8: the MoE experts' prefill), the
	// arithmetic of decode (int8 activations per 32) kept.
	neoni8mmSet = withQ8MMLA(neonbf16Set)
)

// withQ8MMLA is s with MatMulQ8 in SMMLA tiles.
func withQ8MMLA(s *kernelSet) *kernelSet {
	c := *s
	c.matMulQ8, c.q8Name = matMulQ8MMLA, s.q8Name+", SMMLA for several tokens"
	return &c
}

// withBF16MMLA is s with its bf16 prefill in BFMMLA tiles, and the BFMMLA
// loop as its compute peak (s's FMLA loop as the fp32 one).
func withBF16MMLA(s *kernelSet) *kernelSet {
	c := *s
	c.matMulBF16, c.matMulBF16X = matMulBF16MMLA, matMulBF16MMLAX
	c.fmaPeak, c.fp32Peak = bfmmlaPeakNEONLoop, s.fmaPeak
	return &c
}

// withQ8 is s with its integer decode replaced.
func withQ8(s *kernelSet, mv func(Quant, []float32, []byte, *QuantizedX), name string) *kernelSet {
	c := *s
	c.matVecQ8, c.q8Name = mv, name
	return &c
}

// roundingPays: every level of this build that rounds activations is
// faster than the fp32 level below it (Best's question).
func roundingPays(Level) bool { return true }
