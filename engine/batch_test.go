package engine

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"loupe/engine/genmodel"
	"loupe/kernels"
	"loupe/trace"
)

// batchPrompts are four prompts of different lengths (1 to 15 tokens with
// the Qwen tokenizer), so the sequences of a batch sit at different
// positions at every step.
var batchPrompts = []string{
	"Once upon a time, in a land far away, there lived a purple cat who",
	"The",
	"A batch of four",
	"My cat is purple. But my friends tell",
}

// batchShapes are gen-model's tiny shapes of every architecture the engine
// runs, F32 so that every product is fp32 (the exact arithmetic).
var batchShapes = []string{"tiny", "tiny-llama", "tiny-qwen3", "tiny-qwen35", "tiny-olmoe", "tiny-qwen3moe", "tiny-qwen35moe"}

// refLogitsOf is the float64 reference forward of the architecture of cfg
// over ids at positions 0…: the logits [T][V] of every position.
func refLogitsOf(cfg Config, w refTensors, ids []int) [][]float64 {
	const p35 = "model.language_model."
	switch {
	case cfg.MoE != nil && cfg.Qwen35 != nil:
		return ref35MoeForward(cfg, w, p35, ids, refMoEMutation{}).logits
	case cfg.MoE != nil:
		return refMoEForward(cfg, w, ids, refMoEMutation{}).logits
	case cfg.Qwen35 != nil:
		return ref35Forward(cfg, w, p35, ids).logits
	}
	return refForward(cfg, w, ids, refOptions{}).logits
}

// TestBatchMatchesSoloAndReference: every sequence of a batch of four
// prompts of different lengths, one of which stops early at an EOS id,
// writes its solo run's tokens with its solo run's top-10 within 1e-4, and
// both follow the float64 reference forward of the architecture, on every
// architecture.
func TestBatchMatchesSoloAndReference(t *testing.T) {
	for _, shape := range batchShapes {
		t.Run(shape, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), shape)
			if err := genmodel.Write(dir, shape, 6, "f32"); err != nil {
				t.Fatal(err)
			}
			m, err := Load(dir, LoadOptions{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			opt := greedy(6)
			eos, early := earlyEOS(t, m, opt)
			opt.EOS = []int{eos}
			solo := soloRuns(t, m, opt)
			got, err := m.GenerateBatch(context.Background(), batchPrompts, opt, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkStops(t, got.Runs, early, opt.Settings.MaxTokens)
			ref := readRefTensors(t, dir)
			for i, run := range got.Runs {
				checkSameSteps(t, i, run, solo[i])
				checkReference(t, i, m.Config(), ref, run)
			}
			checkExpertBytes(t, m, got.Timing)
			if got.Timing.DecodeTokens != stepsOf(got.Runs) || slices.Max(got.Timing.PassRows) != len(batchPrompts) {
				t.Errorf("timing %+v: want %d tokens and a pass of %d rows", got.Timing, stepsOf(got.Runs), len(batchPrompts))
			}
		})
	}
}

// earlyEOS picks a stop id that ends the first prompt's greedy run early:
// the first token it writes after its first that it has not written
// before. It returns the id and the steps that run then takes.
func earlyEOS(t *testing.T, m *Model, opt GenerateOptions) (id, steps int) {
	t.Helper()
	run, err := m.Generate(context.Background(), batchPrompts[0], opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, st := range run.Steps {
		ids = append(ids, st.Chosen.ID)
	}
	for k := 1; k < len(ids)-1; k++ {
		if !slices.Contains(ids[:k], ids[k]) {
			return ids[k], k + 1
		}
	}
	t.Fatalf("the first prompt's run %v repeats one token: choose another seed", ids)
	return 0, 0
}

func soloRuns(t *testing.T, m *Model, opt GenerateOptions) []*trace.Run {
	t.Helper()
	var out []*trace.Run
	for _, p := range batchPrompts {
		run, err := m.Generate(context.Background(), p, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, run)
	}
	return out
}

// checkStops: the first sequence left the batch at its EOS, another ran to
// max tokens, so passes ran with fewer rows after it left.
func checkStops(t *testing.T, runs []*trace.Run, early, maxTokens int) {
	t.Helper()
	if runs[0].StopReason != "eos" || len(runs[0].Steps) != early {
		t.Errorf("first sequence: stop %q after %d steps, want eos after %d", runs[0].StopReason, len(runs[0].Steps), early)
	}
	full := false
	for _, r := range runs {
		full = full || r.StopReason == "max_tokens" && len(r.Steps) == maxTokens
	}
	if !full {
		t.Error("no sequence ran to max tokens")
	}
}

func stepsOf(runs []*trace.Run) int {
	n := 0
	for _, r := range runs {
		n += len(r.Steps)
	}
	return n
}

// checkSameSteps: the batched sequence's tokens, positions and stop are
// the solo run's, its top-10 probabilities within 1e-4.
func checkSameSteps(t *testing.T, i int, got, want *trace.Run) {
	t.Helper()
	if got.StopReason != want.StopReason || len(got.Steps) != len(want.Steps) {
		t.Fatalf("sequence %d: stop %q after %d steps, solo %q after %d", i, got.StopReason, len(got.Steps), want.StopReason, len(want.Steps))
	}
	for s, g := range got.Steps {
		w := want.Steps[s]
		if g.Pos != w.Pos || g.Chosen.ID != w.Chosen.ID || len(g.Top) != 10 {
			t.Fatalf("sequence %d step %d: token %d at %d, solo %d at %d", i, s, g.Chosen.ID, g.Pos, w.Chosen.ID, w.Pos)
		}
		for k, c := range g.Top {
			if c.ID != w.Top[k].ID || math.Abs(c.P-w.Top[k].P) > 1e-4 {
				t.Errorf("sequence %d step %d candidate %d: %d p %.6f, solo %d p %.6f", i, s, k, c.ID, c.P, w.Top[k].ID, w.Top[k].P)
			}
		}
	}
}

// checkReference: at every step the written token is the float64
// reference's argmax (where its margin is above fp32 noise) and the top-10
// probabilities are the reference's within 1e-4.
func checkReference(t *testing.T, i int, cfg Config, w refTensors, run *trace.Run) {
	t.Helper()
	var ids []int
	for _, tok := range run.Tokens {
		ids = append(ids, tok.ID)
	}
	logits := refLogitsOf(cfg, w, ids[:len(ids)-1]) // the last token is written, never read
	for s, st := range run.Steps {
		row := logits[st.Pos-1]
		best, margin := argmax(row)
		if margin > 1e-3 && st.Chosen.ID != best {
			t.Errorf("sequence %d step %d: wrote %d, the reference's argmax is %d (margin %.2g)", i, s, st.Chosen.ID, best, margin)
		}
		p := refSoftmax(row)
		for _, c := range st.Top {
			if math.Abs(c.P-p[c.ID]) > 1e-4 {
				t.Errorf("sequence %d step %d: token %d p %.6f, reference %.6f", i, s, c.ID, c.P, p[c.ID])
			}
		}
	}
}

// TestBatchCancelStopsAll: a cancelled context stops every sequence, each
// keeping what it wrote.
func TestBatchCancelStopsAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 5, "f32"); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir, LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steps := 0
	got, err := m.GenerateBatch(ctx, batchPrompts, greedy(50), func(_ int, e Event) {
		if e.Step != nil {
			if steps++; steps == 6 { // the second pass's sampling
				cancel()
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got.Runs {
		if r.StopReason != "cancelled" || len(r.Steps) == 0 || len(r.Steps) > 2 {
			t.Errorf("sequence %d: stop %q after %d steps, want cancelled after 1 or 2", i, r.StopReason, len(r.Steps))
		}
	}
}

// TestBatchRefusals: settings a batch does not run are refused by name.
func TestBatchRefusals(t *testing.T) {
	m, _, _ := genModel(t)
	for name, edit := range map[string]func(o *GenerateOptions){
		"ablate":      func(o *GenerateOptions) { o.Ablate = []trace.Head{{Layer: 0, Head: 0}} },
		"branch":      func(o *GenerateOptions) { o.Branch = &trace.Branch{At: 0, Token: 1} },
		"reuse cache": func(o *GenerateOptions) { o.ReuseCache = true },
	} {
		o := greedy(4)
		edit(&o)
		if _, err := m.GenerateBatch(context.Background(), batchPrompts, o, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := m.GenerateBatch(context.Background(), nil, greedy(4), nil); err == nil {
		t.Error("no prompts: no error")
	}
}

// checkExpertBytes: an MoE model's passes read more experts than one
// token's k (four rows rarely agree), at most min(B·k, E) a layer.
func checkExpertBytes(t *testing.T, m *Model, tm BatchTiming) {
	t.Helper()
	mi := m.Info()
	if mi.Experts == 0 {
		if tm.ExpertBytes != 0 {
			t.Errorf("a dense model read %g bytes of experts", tm.ExpertBytes)
		}
		return
	}
	most := 0.0
	for _, rows := range tm.PassRows {
		most += float64(mi.MoELayers*(min(rows*mi.ExpertsPerToken, mi.Experts)-mi.ExpertsPerToken)) * float64(mi.ExpertBytes)
	}
	if !(tm.ExpertBytes > 0 && tm.ExpertBytes <= most) {
		t.Errorf("experts read beyond one token's: %g bytes, want 0 < … ≤ %g", tm.ExpertBytes, most)
	}
}

// TestBatchBF16MatchesSoloAtEveryArithmetic: on bf16 files, where prefill
// rounds some products' activations to bf16 (auto: the MoE experts;
// avx512bf16: every product), the batched rows are still computed as
// decode computes a written token, so each sequence gets its solo numbers.
func TestBatchBF16MatchesSoloAtEveryArithmetic(t *testing.T) {
	defer func() {
		kernels.SetLevel(kernels.BestExact())
		kernels.SetSelective(false)
	}()
	for _, shape := range []string{"tiny", "tiny-olmoe"} {
		dir := filepath.Join(t.TempDir(), shape)
		if err := genmodel.Write(dir, shape, 6, "bf16"); err != nil {
			t.Fatal(err)
		}
		m, err := Load(dir, LoadOptions{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		for _, level := range []string{"auto", "avx512bf16"} {
			if l, _ := kernels.ParseLevel(level); !kernels.Supported(l) {
				continue
			}
			if _, err := kernels.Choose(level); err != nil {
				t.Fatal(err)
			}
			t.Run(shape+"/"+level+"/"+m.Arithmetic(), func(t *testing.T) {
				opt := greedy(6)
				solo := soloRuns(t, m, opt)
				got, err := m.GenerateBatch(context.Background(), batchPrompts, opt, nil)
				if err != nil {
					t.Fatal(err)
				}
				for i, run := range got.Runs {
					checkSameSteps(t, i, run, solo[i])
				}
			})
		}
	}
}
