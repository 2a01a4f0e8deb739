package app

import (
	"strings"

	"github.com/klauspost/cpuid/v2"

	"loupe/i18n"
	"loupe/kernels"
	"loupe/views"
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

// exactLabel is the menu's name of `--kernels exact`: the fastest level
// with every product in fp32.
const exactLabel = "Exact arithmetic (fp32)"

// kernelOptions lists "auto" (the fastest, bf16 activations where the CPU
// has them), the exact arithmetic and the levels this CPU supports.
func kernelOptions() []string {
	opts := []string{"auto", exactLabel}
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
	return kernels.ParseLevel(kernelName(s))
}

// kernelName is the kernels.Choose name of a menu entry or flag value.
func kernelName(s string) string {
	if strings.EqualFold(s, exactLabel) {
		return "exact"
	}
	for _, x := range levelLabels {
		if strings.EqualFold(s, x.label) {
			return x.level.String()
		}
	}
	return strings.ToLower(s)
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
		feats = []string{tr("app.cpu.no_avx2", nil)}
	}
	return tr("app.cpu.line", i18n.Args{"CPU": cpuid.CPU.BrandName, "Cores": cpuid.CPU.PhysicalCores, "Threads": cpuid.CPU.LogicalCores, "Features": strings.Join(feats, ", ")})
}

// widestLevel is the level of this CPU's widest instructions, whatever
// its arithmetic: auto's, or the bf16 level auto passes over where its
// products are not faster (kernels.Best).
func widestLevel() kernels.Level {
	for l := kernels.AVX512BF16; l > kernels.Generic; l-- {
		if kernels.Supported(l) {
			return l
		}
	}
	return kernels.Generic
}

// modelKernelLine is kernelLine for the loaded model: it gives the
// model's arithmetic (engine.Model.Arithmetic: which parts auto rounds to
// bf16, whether decode rounds activations to 8 bits) and, for a quantised
// file, how each format is multiplied (QuantArithmetic), which the
// kernels alone cannot tell.
func modelKernelLine(b Backend) string {
	m, ok := b.(interface {
		Arithmetic() string
		QuantArithmetic() string
	})
	if !ok {
		return kernelLine()
	}
	arith := views.Lang.Arithmetic(m.Arithmetic())
	if q := m.QuantArithmetic(); q != "" {
		arith += "; " + q
	}
	return tr("app.kernels.line", i18n.Args{"Active": kernelLabel(kernels.Active()),
		"Arith": arith, "Auto": kernelLabel(kernels.Best()), "Widest": kernelLabel(widestLevel())})
}

// kernelLine says which kernels and arithmetic run and which the CPU could
// run.
func kernelLine() string {
	return tr("app.kernels.line", i18n.Args{"Active": kernelLabel(kernels.Active()),
		"Arith": views.Lang.Arithmetic(kernels.Arithmetic()), "Auto": kernelLabel(kernels.Best()), "Widest": kernelLabel(widestLevel())})
}
