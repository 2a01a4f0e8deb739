//go:build amd64 && !purego

package kernels

// The arm64 levels do not exist in an amd64 build.
var (
	hasNEON, hasNEONDot = false, false
	neonSet, neondotSet *kernelSet
)
