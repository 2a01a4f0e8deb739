package engine

// The measurement behind auto's arithmetic policy (arith.go): how far the
// top-10 probabilities move from a float64 forward when only some parts
// of the model (matrix roles) take bf16 activations, on the test models
// of every architecture (bf16bound_test.go's, and the MoE families'),
// through the engine's own kernels at AVX512BF16.

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"loupe/kernels"
)

// moeBoundCases are the tiny MoE models (OLMoE, Qwen3-MoE, Qwen3.5-MoE)
// with bf16 weights, prompts of the first n tokens from 16.
func moeBoundCases(t *testing.T) []boundCase {
	var cases []boundCase
	for _, tc := range moeCases() {
		ref, tok := tc.ref(moeSeed), moeTokens(tc.cfg.VocabSize)
		p, want := prefixes(tok, tc.run(ref, tok, refMoEMutation{}).logits, 16, 4)
		cfg := tc.cfg
		cases = append(cases, boundCase{tc.name, want,
			func(t *testing.T) [][]float32 { return lastLogitsOf(t, qwen35Model(t, cfg, ref, "BF16", 2), p) }})
	}
	return cases
}

// partRows are the sets of parts measured alone or together: each role,
// then the groups a policy could take.
var partRows = []partSet{
	partsOf(partQ), partsOf(partK), partsOf(partV), partsOf(partO),
	partsOf(partGate), partsOf(partUp), partsOf(partDown),
	partsOf(partDeltaZ), partsOf(partDeltaBA), partsOf(partDeltaOut), partsOf(partExperts),
	partsOf(partQ, partK, partV), partsOf(partGate, partUp), mlpParts,
	mlpParts | partsOf(partExperts), mlpParts | partsOf(partO),
}

// shiftsUnder runs every case with bf16 activations in the parts of s
// only (auto's selective arithmetic at AVX512BF16) and returns each
// case's largest top-10 shift from float64.
func shiftsUnder(t *testing.T, cases []boundCase, s partSet) []float64 {
	defer func(p partSet) { bf16Parts = p }(bf16Parts)
	bf16Parts = s
	out := make([]float64, len(cases))
	for i, c := range cases {
		out[i] = top10ShiftRows(c.want, c.run(t))
	}
	return out
}

// shiftTable formats rows of shifts under a header of case names.
func shiftTable(cases []boundCase, names []string, rows [][]float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-26s", "bf16 activations in")
	for _, c := range cases {
		fmt.Fprintf(&b, " %12.12s", c.name)
	}
	for i, r := range rows {
		fmt.Fprintf(&b, "\n%-26s", names[i])
		for _, x := range r {
			mark := " "
			if x > bf16Top10Bound {
				mark = "!"
			}
			fmt.Fprintf(&b, " %11.2e%s", x, mark)
		}
	}
	return b.String()
}

// TestBF16PartsTop10Bound measures the top-10 shift with bf16 activations
// in each part alone and in groups of parts, prints the table, and checks
// that auto's policy (bf16Parts, all its parts at once) keeps every test
// model within bf16Top10Bound. Set LOUPE_PARTS_TABLE=1 for the table
// (it runs every case 17 more times); the policy is always measured.
func TestBF16PartsTop10Bound(t *testing.T) {
	if testing.Short() || !kernels.Supported(kernels.AVX512BF16) {
		t.Skip("needs a CPU with AVX512-BF16 (the level whose arithmetic is bounded here)")
	}
	defer func(l kernels.Level, e, s bool) { kernels.SetLevel(l); kernels.SetExact(e); kernels.SetSelective(s) }(
		kernels.Active(), kernels.Exact(), kernels.Selective())
	// auto's arithmetic at the bf16 level, which auto is where bf16
	// products pay (AMD); on Intel auto runs fp32 and the policy is idle.
	if err := kernels.SetLevel(kernels.AVX512BF16); err != nil {
		t.Fatal(err)
	}
	kernels.SetExact(false)
	kernels.SetSelective(true)
	if !kernels.Selective() {
		t.Fatal("SetSelective(true) at avx512bf16 is not selective")
	}
	cases := append(boundCases(t), moeBoundCases(t)...)
	names, rows := []string{"none (fp32)"}, [][]float64{shiftsUnder(t, cases, 0)}
	if os.Getenv("LOUPE_PARTS_TABLE") != "" {
		for _, s := range partRows {
			names, rows = append(names, s.String()), append(rows, shiftsUnder(t, cases, s))
		}
	}
	policy := shiftsUnder(t, cases, bf16Parts)
	names, rows = append(names, "auto: "+bf16Parts.String()), append(rows, policy)
	t.Logf("largest top-10 shift from float64 (bound %.0e, ! over it):\n%s", bf16Top10Bound, shiftTable(cases, names, rows))
	for i, c := range cases {
		if policy[i] > bf16Top10Bound {
			t.Errorf("%s: auto's bf16 activations in %s move the top-10 by %.3g > %.0g", c.name, bf16Parts, policy[i], bf16Top10Bound)
		}
	}
}
