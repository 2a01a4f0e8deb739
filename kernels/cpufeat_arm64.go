//go:build !windows && !purego

package kernels

import "github.com/klauspost/cpuid/v2"

// hasDotProd reports FEAT_DotProd (SDOT, UDOT). cpuid reads it from the
// kernel's HWCAP on Linux (HWCAP_ASIMDDP, which qemu-user sets from its
// -cpu model) and from sysctl hw.optional.arm.FEAT_DotProd on macOS.
func hasDotProd() bool { return cpuid.CPU.Supports(cpuid.ASIMDDP) }
