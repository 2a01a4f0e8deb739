//go:build !purego

package kernels

import "syscall"

// pfARMv82DP is PF_ARM_V82_DP_INSTRUCTIONS_AVAILABLE (winnt.h): SDOT and
// UDOT.
const pfARMv82DP = 43

// hasDotProd reports FEAT_DotProd (SDOT, UDOT) as Windows does, through
// kernel32's IsProcessorFeaturePresent: the CPU's ID registers are not
// readable from user mode there. The package keeps to the standard library
// and cpuid, hence syscall rather than golang.org/x/sys/windows.
func hasDotProd() bool {
	proc := syscall.NewLazyDLL("kernel32.dll").NewProc("IsProcessorFeaturePresent")
	if proc.Find() != nil {
		return false
	}
	r, _, _ := proc.Call(pfARMv82DP)
	return r != 0
}

// hasBF16 reports FEAT_BF16 as absent: IsProcessorFeaturePresent names
// the SVE forms of BF16 only (PF_ARM_SVE_BF16_INSTRUCTIONS_AVAILABLE),
// not the Advanced SIMD BFMMLA, and an SVE flag would say nothing of it
// on a CPU without SVE (Snapdragon X). The level stays off on Windows.
func hasBF16() bool { return false }

// hasI8MM reports FEAT_I8MM as absent, for the same reason: Windows names
// SVE's I8MM only (PF_ARM_SVE_I8MM_INSTRUCTIONS_AVAILABLE).
func hasI8MM() bool { return false }
