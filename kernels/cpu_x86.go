//go:build amd64 && !purego

package kernels

// The arm64 levels do not exist in an amd64 build.
var (
	hasNEON, hasNEONDot, hasNEONBF16 = false, false, false
	neonSet, neondotSet, neonbf16Set *kernelSet
)
