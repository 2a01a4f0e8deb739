//go:build !amd64 || purego

package kernels

// Without amd64 assembly only the generic level exists.
var (
	hasAVX2, hasAVX512, hasAVX512BF16 = false, false, false

	avx2Set, avx512Set, avx512bf16Set *kernelSet
)
