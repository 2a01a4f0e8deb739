//go:build amd64 && !purego

package kernels

import (
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// TestCPUWithout: LOUPE_CPU_DISABLE's list switches features off in the
// copy the kernels read, and leaves cpuid's own reading alone.
func TestCPUWithout(t *testing.T) {
	c := cpuWithout("SSE2, AVX2,NOSUCHFEATURE")
	if c.Supports(cpuid.SSE2) || c.Supports(cpuid.AVX2) {
		t.Errorf("SSE2 or AVX2 still on after disabling them")
	}
	if !cpuid.CPU.Supports(cpuid.SSE2) {
		t.Errorf("cpuid.CPU lost SSE2: the disabling reached the shared reading")
	}
	if cpuWithout("").Supports(cpuid.SSE2) != cpuid.CPU.Supports(cpuid.SSE2) {
		t.Errorf("an empty list changed the features")
	}
}
