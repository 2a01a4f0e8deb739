package views

import (
	"strings"
	"testing"

	"loupe/trace"
	"loupe/viz"
)

// An MoE model's Model panel says how many experts each token runs and
// the active parameters against the total; a dense model's has no such row.
func TestModelRowsExperts(t *testing.T) {
	m := trace.ModelInfo{Name: "m", ParamsEmbedding: 100, ParamsAttention: 200, ParamsMLP: 1000, ParamsMLPActive: 150,
		ParamsNorm: 10, Experts: 64, ExpertsPerToken: 8}
	var row string
	for _, r := range ModelRows(m, "cpu", "kernels", viz.FromOne) {
		if r[0] == "Experts" {
			row = r[1]
		}
	}
	if !strings.Contains(row, "64 per MoE layer, 8 run per token") || !strings.Contains(row, "460 of the 1,310") {
		t.Errorf("Experts row %q", row)
	}
	m.Experts = 0
	for _, r := range ModelRows(m, "cpu", "kernels", viz.FromOne) {
		if r[0] == "Experts" {
			t.Errorf("a dense model shows %q", r[1])
		}
	}
}
