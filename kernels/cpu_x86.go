//go:build amd64 && !purego

package kernels

// The arm64 levels do not exist in an amd64 build.
var (
	hasNEON, hasNEONDot, hasNEONBF16, hasNEONI8MM = false, false, false, false
	neonSet, neondotSet, neonbf16Set, neoni8mmSet *kernelSet
)
