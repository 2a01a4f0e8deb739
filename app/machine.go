package app

import (
	"fmt"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"loupe/kernels"
)

// levelLabels are the kernel levels as the menu shows them, fastest first.
var levelLabels = []struct {
	level kernels.Level
	label string
}{
	{kernels.AVX512BF16, "AVX-512-BF16"},
	{kernels.AVX512, "AVX-512"},
	{kernels.AVX2, "AVX2"},
	{kernels.Generic, "generic"},
}

// kernelOptions lists "auto" and the levels this CPU supports.
func kernelOptions() []string {
	opts := []string{"auto"}
	for _, l := range levelLabels {
		if kernels.Supported(l.level) {
			opts = append(opts, l.label)
		}
	}
	return opts
}

// kernelLabel is the menu name of l.
func kernelLabel(l kernels.Level) string {
	for _, x := range levelLabels {
		if x.level == l {
			return x.label
		}
	}
	return l.String()
}

// parseKernelLabel reads a menu name or a kernels.ParseLevel name.
func parseKernelLabel(s string) (kernels.Level, bool) {
	for _, x := range levelLabels {
		if strings.EqualFold(s, x.label) {
			return x.level, true
		}
	}
	return kernels.ParseLevel(strings.ToLower(s))
}

// cpuLine describes the processor and the SIMD features the kernels use.
func cpuLine() string {
	var feats []string
	for _, f := range []struct {
		id   cpuid.FeatureID
		name string
	}{{cpuid.AVX2, "AVX2"}, {cpuid.FMA3, "FMA"}, {cpuid.AVX512F, "AVX-512F"}, {cpuid.AVX512BF16, "AVX-512-BF16"}} {
		if cpuid.CPU.Supports(f.id) {
			feats = append(feats, f.name)
		}
	}
	if len(feats) == 0 {
		feats = []string{"no AVX2"}
	}
	return fmt.Sprintf("%s · %d cores / %d threads · %s", cpuid.CPU.BrandName, cpuid.CPU.PhysicalCores, cpuid.CPU.LogicalCores, strings.Join(feats, ", "))
}

// kernelLine says which kernels run and which the CPU could run.
func kernelLine() string {
	return fmt.Sprintf("%s in use (best on this CPU: %s)", kernelLabel(kernels.Active()), kernelLabel(kernels.Best()))
}
