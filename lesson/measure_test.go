package lesson

import (
	"context"
	"testing"

	"loupe/engine"
	"loupe/engine/chat"
	"loupe/engine/genmodel"
	"loupe/kernels"
	"loupe/trace"
)

// watchedRunner is a Runner that notes, at every event of every run, the
// kernel choice the dispatch runs (kernels.Current): what the run
// computed with, whatever it reports.
type watchedRunner struct {
	*engine.Model
	ran [][]kernels.Choice // one list per run
}

func (w *watchedRunner) watch(on func(engine.Event)) func(engine.Event) {
	w.ran = append(w.ran, nil)
	i := len(w.ran) - 1
	return func(e engine.Event) {
		w.ran[i] = append(w.ran[i], kernels.Current())
		if on != nil {
			on(e)
		}
	}
}

func (w *watchedRunner) Generate(ctx context.Context, prompt string, opt engine.GenerateOptions, on func(engine.Event)) (*trace.Run, error) {
	return w.Model.Generate(ctx, prompt, opt, w.watch(on))
}

func (w *watchedRunner) GenerateChat(ctx context.Context, msgs []chat.Message, think chat.Think, opt engine.GenerateOptions, on func(engine.Event)) (*trace.Run, error) {
	return w.Model.GenerateChat(ctx, msgs, think, opt, w.watch(on))
}

// TestMeasureRunsTheWindowsKernels: whatever kernels another run left in
// use (generic here), the timing chapters' runs compute with the window's
// choice (MeasureOptions.Kernels), the second level's with AVX2's own,
// and each KernelRun reports the level and arithmetic its run computed
// with, seen from inside the run.
func TestMeasureRunsTheWindowsKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("reads The Gold-Bug passage twice")
	}
	dir := t.TempDir()
	if err := genmodel.Write(dir, "tiny", 41, "bf16"); err != nil {
		t.Fatal(err)
	}
	m, err := engine.Load(dir, engine.LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	window, _ := kernels.ChoiceOf("exact")
	if window.Level() <= kernels.AVX2 {
		window, _ = kernels.ChoiceOf("auto") // one level only: still not generic
	}
	prompt := "My cat is purple. But my friend's cat is"
	ids := m.Encode(prompt)
	insp, err := m.Inspect(context.Background(), ids, len(ids)-1, engine.InspectOptions{Kernels: window})
	if err != nil {
		t.Fatal(err)
	}
	eo := engine.DefaultGenerateOptions()
	eo.Settings.MaxTokens, eo.Kernels = 4, window
	run, err := m.Generate(context.Background(), prompt, eo, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Model: m.Info(), Run: run, Inspect: insp, SourceRow: m.Embedding}
	defer kernels.Use(kernels.Current())
	g, _ := kernels.ChoiceOf("generic")
	kernels.Use(g) // what another chapter or run left in use
	w := &watchedRunner{Model: m}
	opt := MeasureOptions{Settings: run.Settings, Kernels: window}
	opt.Settings.MaxTokens = 4
	e, err := Measure(context.Background(), w, in, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := levels(window)
	if len(e.Kernels) != len(want) {
		t.Fatalf("%d kernel runs, want %d (%v)", len(e.Kernels), len(want), want)
	}
	// Runs watched: the Gold-Bug at each level, then the prompt with heads
	// off (the window's); WarmUp calls the model itself.
	gold := w.ran[:len(want)]
	for i, c := range want {
		for _, s := range gold[i] {
			if s != c {
				t.Errorf("Gold-Bug run %d: computed with %v, want %v", i, s, c)
				break
			}
		}
		got := gold[i][0]
		r := e.Kernels[i]
		if r.Level != got.Level().String() || r.Arithmetic != m.ArithmeticOf(got) {
			t.Errorf("Gold-Bug run %d reports %s %s; it computed with %s (%s)", i, r.Level, r.Arithmetic, got.Level(), m.ArithmeticOf(got))
		}
	}
	for _, s := range w.ran[len(w.ran)-1] {
		if s != window {
			t.Errorf("the prompt with heads off computed with %v, want the window's %v", s, window)
			break
		}
	}
	if kernels.Current() != g {
		t.Errorf("Measure left %v in use, was %v", kernels.Current(), g)
	}
}
