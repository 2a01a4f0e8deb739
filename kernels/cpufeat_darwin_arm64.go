//go:build !purego

package kernels

import "syscall"

// hasDotProd reports FEAT_DotProd (SDOT, UDOT) on macOS from sysctl
// hw.optional.arm.FEAT_DotProd (a 32-bit 0 or 1; syscall.Sysctl hands
// back its bytes, little-endian, with one trailing zero byte cut). macOS
// 11 lacks the name; every Mac that runs arm64 code has an Apple M chip
// (ARMv8.5-A and later) with the instructions, so a missing name means yes.
func hasDotProd() bool {
	v, err := syscall.Sysctl("hw.optional.arm.FEAT_DotProd")
	if err != nil {
		return true
	}
	return len(v) > 0 && v[0] != 0
}

// hasBF16 reports FEAT_BF16 (BFDOT, BFMMLA) from sysctl
// hw.optional.arm.FEAT_BF16: Apple M2 and later. A missing name (macOS
// before 12, or an M1) means no.
func hasBF16() bool {
	v, err := syscall.Sysctl("hw.optional.arm.FEAT_BF16")
	return err == nil && len(v) > 0 && v[0] != 0
}

// hasI8MM reports FEAT_I8MM (SMMLA) from sysctl hw.optional.arm.FEAT_I8MM:
// Apple M2 and later. A missing name means no.
func hasI8MM() bool {
	v, err := syscall.Sysctl("hw.optional.arm.FEAT_I8MM")
	return err == nil && len(v) > 0 && v[0] != 0
}
