package engine

import (
	"context"
	"math"
	"testing"

	"loupe/trace"
	"loupe/trace/stats"
)

// Each written token records the model's own probability of it (softmax
// at T = 1 of the logits, whatever the sampler did to them), and the
// run's perplexity is exp of the mean negative log of those: both against
// the float64 reference forward, for greedy, sampled-with-penalties and
// branched runs.
func TestModelPAndPerplexityMatchReference(t *testing.T) {
	m, ref, cfg := genModel(t)
	cases := map[string]func(*GenerateOptions){
		"greedy": func(*GenerateOptions) {},
		"sampled": func(o *GenerateOptions) {
			o.Settings.Temperature, o.Settings.Seed, o.Settings.RepeatPenalty, o.TopN = 1.7, 5, 1.3, 2
		},
		"branch": func(o *GenerateOptions) { o.Branch = &trace.Branch{At: 2, Token: 7} },
	}
	for name, set := range cases {
		opt := greedy(8)
		set(&opt)
		run, err := m.Generate(context.Background(), "Once upon a time", opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids := m.Encode("Once upon a time")
		var nll float64
		differs := false
		for i, step := range run.Steps {
			z := refForward(cfg, ref, ids, refOptions{}).logits[len(ids)-1]
			zmax, sum := math.Inf(-1), 0.0
			for _, v := range z {
				zmax = math.Max(zmax, v)
			}
			for _, v := range z {
				sum += math.Exp(v - zmax)
			}
			logp := z[step.Chosen.ID] - zmax - math.Log(sum)
			if want := math.Exp(logp); math.Abs(step.ModelP-want) > 1e-4*want+1e-9 {
				t.Fatalf("%s step %d: model p %.8g, reference %.8g", name, i, step.ModelP, want)
			}
			differs = differs || math.Abs(step.ModelP-step.Chosen.P) > 1e-3
			nll -= logp
			ids = append(ids, step.Chosen.ID)
		}
		want := math.Exp(nll / float64(len(run.Steps)))
		got, ok := stats.Perplexity(run.Steps)
		if !ok || math.Abs(got-want) > 1e-4*want {
			t.Errorf("%s: perplexity %.8g (%v), reference %.8g", name, got, ok, want)
		}
		if name == "sampled" && !differs {
			t.Errorf("sampled: the sampler's p equals the model's at every step: the test does not reach the case")
		}
	}
}
