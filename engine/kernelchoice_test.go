package engine

import (
	"context"
	"testing"
	"unsafe"

	"loupe/kernels"
)

// supportedChoices are the kernel choices this CPU runs, by their
// --kernels names: every level, exact and auto.
func supportedChoices(t *testing.T) []kernels.Choice {
	t.Helper()
	var out []kernels.Choice
	for _, name := range []string{"generic", "avx2", "avx512", "avx512bf16", "exact", "auto"} {
		if c, ok := kernels.ChoiceOf(name); ok && c.Supported() {
			out = append(out, c)
		}
	}
	return out
}

// TestRunComputesItsKernelChoice: a run given GenerateOptions.Kernels
// computes with that choice whatever the kernels in use were (each run
// starts from another choice), seen from inside the run (kernels.Current
// at every event: what the dispatch runs), reports it (Settings.Kernels
// and Settings.Arithmetic, the run's timing), and leaves the kernels in
// use as they were. Runs at two levels differ in their probabilities'
// last bits, so the choice reaches the products.
func TestRunComputesItsKernelChoice(t *testing.T) {
	cfg := loadConfig()
	m, err := Load(writeModel(t, cfg, randomTensors(cfg, 44), "BF16", nil), LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer kernels.Use(kernels.Current())
	cs := supportedChoices(t)
	probs := map[string]float64{}
	for i, c := range cs {
		before := cs[(i+1)%len(cs)]
		if err := kernels.Use(before); err != nil {
			t.Fatal(err)
		}
		opt := DefaultGenerateOptions()
		opt.Settings.MaxTokens, opt.Kernels = 3, c
		var seen []kernels.Choice
		run, err := m.Generate(context.Background(), "The gold-bug was found on the island.", opt, func(Event) {
			seen = append(seen, kernels.Current())
		})
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if len(seen) == 0 {
			t.Fatalf("%v: no event", c)
		}
		for _, s := range seen {
			if s != c {
				t.Errorf("run given %v computed with %v", c, s)
				break
			}
		}
		s := run.Settings
		if s.Kernels != c.Level().String() || s.Arithmetic != m.ArithmeticOf(c) ||
			run.Timing.Kernels != s.Kernels || run.Timing.Arithmetic != s.Arithmetic {
			t.Errorf("run given %v reports kernels %q arithmetic %q (timing %q %q), want %q %q", c,
				s.Kernels, s.Arithmetic, run.Timing.Kernels, run.Timing.Arithmetic, c.Level(), m.ArithmeticOf(c))
		}
		if now := kernels.Current(); now != before {
			t.Errorf("after a run given %v the kernels in use are %v, were %v", c, now, before)
		}
		probs[c.Level().String()] = run.Steps[0].Top[0].P
	}
	if p, ok := probs["generic"]; ok && len(probs) > 1 {
		same := true
		for _, q := range probs {
			same = same && q == p
		}
		if same {
			t.Errorf("every level gives the same probability bits %v: the test cannot tell them apart", probs)
		}
	}
}

// TestInspectComputesItsKernelChoice: Inspect and TimeAtContext switch
// to their options' choice and back; an unsupported one is refused.
func TestInspectComputesItsKernelChoice(t *testing.T) {
	cfg := loadConfig()
	m, err := Load(writeModel(t, cfg, randomTensors(cfg, 45), "BF16", nil), LoadOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer kernels.Use(kernels.Current())
	g, _ := kernels.ChoiceOf("generic")
	best, _ := kernels.ChoiceOf("auto")
	kernels.Use(best)
	ids := m.Encode("The gold-bug was found")
	a, err := m.Inspect(context.Background(), ids, len(ids)-1, InspectOptions{Kernels: g})
	if err != nil {
		t.Fatal(err)
	}
	kernels.Use(g)
	b, err := m.Inspect(context.Background(), ids, len(ids)-1, InspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	la, lb := a.Lens[len(a.Lens)-1].Top[0], b.Lens[len(b.Lens)-1].Top[0]
	if la != lb {
		t.Errorf("Inspect given generic: top %v; with generic in use: %v", la, lb)
	}
	kernels.Use(best)
	if _, err := m.Inspect(context.Background(), ids, len(ids)-1, InspectOptions{Kernels: g}); err != nil || kernels.Current() != best {
		t.Errorf("after Inspect given generic: %v, kernels in use %v", err, kernels.Current())
	}
	if _, err := m.TimeAtContext(context.Background(), DeepOptions{Context: 8, Ids: ids, Prefill: 2, Decode: 2, Kernels: g}); err != nil || kernels.Current() != best {
		t.Errorf("after TimeAtContext given generic: %v, kernels in use %v", err, kernels.Current())
	}
	opt := DefaultGenerateOptions()
	opt.Kernels = kernels.AtLevel(kernels.Level(99))
	if _, err := m.Generate(context.Background(), "x", opt, nil); err == nil {
		t.Error("a run at level 99 was not refused")
	}
}

// TestWeightPages: the views cover every weight matrix and the output
// head once, in place (the first is the first layer's q_proj itself).
func TestWeightPages(t *testing.T) {
	cfg := loadConfig()
	m, err := Load(writeModel(t, cfg, randomTensors(cfg, 46), "BF16", nil), LoadOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	pages := m.WeightPages()
	var got, want int64
	for _, p := range pages {
		got += int64(len(p))
	}
	for _, w := range m.allMatrices() {
		want += w.bytes()
	}
	want += m.w.output.bytes()
	if got != want || len(pages) != len(m.allMatrices())+1 {
		t.Errorf("%d pages of %d bytes, want %d matrices of %d", len(pages), got, len(m.allMatrices())+1, want)
	}
	if q := m.w.layers[0].wq.bf; &pages[0][0] != (*byte)(unsafe.Pointer(&q[0])) {
		t.Error("the first page is a copy, not layer 0's q_proj")
	}
}
