package engine_test

// The trained demo model (assets/demo) against the PyTorch model that
// produced it: testdata/demo-reference.json holds, for three prompts, the
// top-10 probabilities at the last prompt position and the greedy
// continuation computed by tools/train/eval.py in float32 from the same
// BF16 weights, and the ids of 300 lines under tools/train/bpe.py's
// rank-based BPE. None of it comes from this engine.

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"loupe/engine"
	"loupe/trace"
)

type demoCase struct {
	Prompt       string    `json:"prompt"`
	PromptIDs    []int     `json:"prompt_ids"`
	Top10IDs     []int     `json:"top10_ids"`
	Top10Probs   []float64 `json:"top10_probs"`
	GreedyIDs    []int     `json:"greedy_ids"`
	GreedyText   string    `json:"greedy_text"`
	GreedyMargin float64   `json:"greedy_min_logit_margin"`
}

type demoReference struct {
	Cases    []demoCase `json:"cases"`
	Tokenize []struct {
		Text string `json:"text"`
		IDs  []int  `json:"ids"`
	} `json:"tokenize"`
}

// demoProbTol bounds |p_engine − p_torch| per top-10 entry: both run float32
// from identical weights; only summation order differs.
const demoProbTol = 1e-3

func loadDemo(t *testing.T) (*engine.Model, demoReference) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "demo-reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref demoReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatalf("demo-reference.json: %v", err)
	}
	if len(ref.Cases) == 0 || len(ref.Tokenize) == 0 {
		t.Fatalf("demo-reference.json: %d cases, %d tokenizer lines", len(ref.Cases), len(ref.Tokenize))
	}
	m, err := engine.Load(filepath.Join("..", "assets", "demo"), engine.LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, ref
}

func TestDemoModelMatchesPyTorch(t *testing.T) {
	m, ref := loadDemo(t)
	for _, c := range ref.Cases {
		t.Run(c.Prompt[:min(len(c.Prompt), 20)], func(t *testing.T) {
			if got := m.Encode(c.Prompt); !slices.Equal(got, c.PromptIDs) {
				t.Fatalf("prompt ids %v, want %v", got, c.PromptIDs)
			}
			opt := engine.DefaultGenerateOptions()
			opt.Settings.MaxTokens = len(c.GreedyIDs)
			opt.Attn = engine.AttnCapture{}
			run, err := m.Generate(context.Background(), c.Prompt, opt, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkTop10(t, run.Steps[0].Top, c)
			var ids []int
			for _, s := range run.Steps {
				ids = append(ids, s.Chosen.ID)
			}
			if !slices.Equal(ids, c.GreedyIDs) {
				t.Errorf("greedy ids\n got %v\nwant %v (%q; smallest top-1 margin %.3g logits)",
					ids, c.GreedyIDs, c.GreedyText, c.GreedyMargin)
			}
		})
	}
}

// checkTop10 compares the first step's candidates with the reference's
// top-10 at the last prompt position: same ids in the same order (where
// the probabilities are not within the tolerance of each other) and
// probabilities within demoProbTol.
func checkTop10(t *testing.T, top []trace.Candidate, c demoCase) {
	t.Helper()
	if len(top) < len(c.Top10IDs) {
		t.Fatalf("%d candidates recorded, want %d", len(top), len(c.Top10IDs))
	}
	worst := 0.0
	defer func() { t.Logf("largest |p_engine - p_torch| over the top-10: %.2g", worst) }()
	for i, id := range c.Top10IDs {
		if top[i].ID != id {
			// A swap is acceptable only between near-equal probabilities.
			j := slices.IndexFunc(c.Top10IDs, func(x int) bool { return x == top[i].ID })
			if j < 0 || math.Abs(c.Top10Probs[j]-c.Top10Probs[i]) > demoProbTol {
				t.Errorf("candidate %d: id %d, want %d (p %.5f)", i, top[i].ID, id, c.Top10Probs[i])
			}
			continue
		}
		d := math.Abs(top[i].P - c.Top10Probs[i])
		worst = max(worst, d)
		if d > demoProbTol {
			t.Errorf("candidate %d (id %d): p %.6f, want %.6f (|diff| %.2g > %g)",
				i, id, top[i].P, c.Top10Probs[i], d, demoProbTol)
		}
	}
}

func TestDemoTokenizerMatchesTraining(t *testing.T) {
	m, ref := loadDemo(t)
	bad := 0
	for _, l := range ref.Tokenize {
		if got := m.Encode(l.Text); !slices.Equal(got, l.IDs) {
			if bad++; bad <= 5 {
				t.Errorf("%q:\n got %v\nwant %v", l.Text, got, l.IDs)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d lines tokenized differently from the training tokenizer", bad, len(ref.Tokenize))
	}
}
