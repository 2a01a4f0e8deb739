//go:build (!amd64 && !arm64) || purego

package kernels

// Without amd64 or arm64 assembly only the generic level exists.
var (
	hasAVX2, hasAVX512, hasAVX512BF16             = false, false, false
	hasNEON, hasNEONDot, hasNEONBF16, hasNEONI8MM = false, false, false, false

	avx2Set, avx512Set, avx512bf16Set             *kernelSet
	neonSet, neondotSet, neonbf16Set, neoni8mmSet *kernelSet
)

// roundRowsBF16 rounds x to bf16 into xb (RoundedX; unused here: no level
// of this build multiplies bf16 activations).
func roundRowsBF16(xb []BF16, x []float32) {
	for i, v := range x {
		xb[i] = FromFloat32(v)
	}
}

// roundingPays: every level of this build that rounds activations is
// faster than the fp32 level below it (Best's question).
func roundingPays(Level) bool { return true }
