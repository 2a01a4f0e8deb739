//go:build !windows && !darwin && !purego

package kernels

import "github.com/klauspost/cpuid/v2"

// hasDotProd reports FEAT_DotProd (SDOT, UDOT). cpuid reads it from the
// kernel's HWCAP on Linux (HWCAP_ASIMDDP, which qemu-user sets from its
// -cpu model).
func hasDotProd() bool { return cpuid.CPU.Supports(cpuid.ASIMDDP) }

// hasBF16 reports FEAT_BF16 (BFDOT, BFMMLA, BFCVT): HWCAP2_BF16 on Linux.
func hasBF16() bool { return cpuid.CPU.Supports(cpuid.BF16) }

// hasI8MM reports FEAT_I8MM (SMMLA, UMMLA, USMMLA): HWCAP2_I8MM on Linux.
func hasI8MM() bool { return cpuid.CPU.Supports(cpuid.I8MM) }
