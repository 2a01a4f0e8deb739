package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine"
	"loupe/engine/fingerprint"
	"loupe/engine/genmodel"
	"loupe/kernels"
	"loupe/trace"
)

const prompt = "The cat sat on the mat and looked at the dog, who looked back at the cat."

// load writes a generated model of shape and loads it on 2 threads.
func load(t *testing.T, shape string) (*engine.Model, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), shape)
	if err := genmodel.Write(dir, shape, 7, "bf16"); err != nil {
		t.Fatal(err)
	}
	m, err := engine.Load(dir, engine.LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, dir
}

func fixedBandwidth(int) (float64, error) { return 50, nil }

// The context sweep stops at the model's context (tiny: 4,096) and says
// so; each point's bytes per token are the weights plus the KV cache of
// that many positions, from the config.
func TestContextSweep(t *testing.T) {
	m, _ := load(t, "tiny")
	s, _ := genmodel.Lookup("tiny")
	r, err := Run(context.Background(), m, Options{What: Context, Prompt: prompt, PromptTokens: 16, DecodeTokens: 4, Bandwidth: fixedBandwidth})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{256, 1024, 4092}
	if len(r.Points) != len(want) {
		t.Fatalf("%d points, want %v", len(r.Points), want)
	}
	kvPerPos := 2 * s.NumHiddenLayers * s.NumKeyValueHeads * s.HeadDim() * 4
	weights := float64(m.Info().WeightBytesPerTok)
	for i, p := range r.Points {
		if p.Value != want[i] {
			t.Errorf("point %d: value %v, want %d", i, p.Value, want[i])
		}
		if wantB := weights + float64(kvPerPos*want[i]); p.BytesPerToken != wantB {
			t.Errorf("context %d: %v bytes per token, want %v", want[i], p.BytesPerToken, wantB)
		}
		if p.PredictedDecodeTokS != 50e9/p.BytesPerToken || p.DecodeTokS <= 0 || p.PrefillTokS <= 0 {
			t.Errorf("context %d: %+v", want[i], p)
		}
	}
	if !strings.Contains(r.Stopped, "4,096") || r.BandwidthGBs != 50 {
		t.Errorf("stopped %q, bandwidth %v", r.Stopped, r.BandwidthGBs)
	}
	if Reading(r) == "" {
		t.Error("no reading sentence")
	}
}

// A cancelled sweep stops within one forward step and keeps the points
// done.
func TestSweepCancels(t *testing.T) {
	m, _ := load(t, "tiny")
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	r, err := Run(ctx, m, Options{What: Context, Values: []string{"64", "128", "256"}, Prompt: prompt, DecodeTokens: 2,
		Progress: func(frac float64, what string) {
			if calls++; calls == 2 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cancelled || len(r.Points) != 1 {
		t.Fatalf("cancelled %v with %d points, want true with 1", r.Cancelled, len(r.Points))
	}
	if s := Cancelled(r); strings.Contains(s, "removed") {
		t.Errorf("a context sweep writes no copy: %q", s)
	}
}

func TestKernelsAndThreadsSweeps(t *testing.T) {
	m, _ := load(t, "tiny")
	r, err := Run(context.Background(), m, Options{What: Kernels, Prompt: prompt, DecodeTokens: 3, Bandwidth: fixedBandwidth})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) < 1 || r.Points[0].Value != "generic" {
		t.Fatalf("kernel points %+v, want generic first", r.Points)
	}
	r, err = Run(context.Background(), m, Options{What: Threads, Values: []string{"2", "1"}, Prompt: prompt, DecodeTokens: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 2 || r.Points[0].Value != 1 || r.Points[1].Value != 2 || m.Threads() != 2 {
		t.Fatalf("thread points %+v, model threads %d afterwards", r.Points, m.Threads())
	}
	if runs := r.Runs(); len(runs) != 2 || runs[0] != r.Points[0].Run || runs[1].Origin != "2 threads (threads experiment)" {
		t.Errorf("runs for the history %v", runs)
	}
	one, two, four := &trace.Run{}, &trace.Run{}, &trace.Run{}
	r3 := Result{What: Threads, Points: []Point{{Run: one}, {Run: two}, {Run: four}}}
	if runs := r3.Runs(); len(runs) != 2 || runs[0] != one || runs[1] != four {
		t.Errorf("a threads sweep of 3 points keeps %v, want the first and the last", runs)
	}
	for _, v := range [][]string{{"mmx"}, {"0"}} {
		what := Kernels
		if v[0] == "0" {
			what = Threads
		}
		if _, err := Run(context.Background(), m, Options{What: what, Values: v, Prompt: prompt}); err == nil {
			t.Errorf("%s %v: no error", what, v)
		}
	}
}

// The quant sweep writes Q8_0 and Q4_K_M copies into its cache folder,
// loads them and writes with them; the user's folder gains nothing.
func TestQuantSweep(t *testing.T) {
	m, src := load(t, "tiny-llama")
	before, _ := os.ReadDir(src)
	cache := t.TempDir()
	r, err := Run(context.Background(), m, Options{What: Quant, Prompt: prompt, DecodeTokens: 4, CacheDir: cache, Bandwidth: fixedBandwidth})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 3 || r.Points[0].Value != "bf16" || r.Points[1].Value != "q8_0" || r.Points[2].Value != "q4_k_m" {
		t.Fatalf("points %+v", r.Points)
	}
	for _, p := range r.Points {
		if p.DecodeTokS <= 0 || len(p.Ids) != 4 {
			t.Errorf("%s: decode %v tok/s, %d tokens", p.Label, p.DecodeTokS, len(p.Ids))
		}
	}
	if !(r.Points[2].BytesPerToken < r.Points[1].BytesPerToken && r.Points[1].BytesPerToken < r.Points[0].BytesPerToken) {
		t.Errorf("bytes per token %v, %v, %v: want falling", r.Points[0].BytesPerToken, r.Points[1].BytesPerToken, r.Points[2].BytesPerToken)
	}
	copies, _ := filepath.Glob(filepath.Join(cache, "*", "*.gguf"))
	if len(copies) != 2 {
		t.Errorf("cache holds %v, want the two copies", copies)
	}
	if after, _ := os.ReadDir(src); len(after) != len(before) {
		t.Errorf("the model folder went from %d to %d entries", len(before), len(after))
	}
	if len(r.Notes) < 2 {
		t.Errorf("notes %q: want where the copies went and what changed", r.Notes)
	}
	// Each point's run is kept for the run history, named, and is the
	// model it measured: the original's folder, then each copy.
	runs := r.Runs()
	if len(runs) != 3 {
		t.Fatalf("%d runs for the history, want 3", len(runs))
	}
	for i, run := range runs {
		p := r.Points[i]
		if want := p.Label + " (quantisation experiment)"; run.Origin != want {
			t.Errorf("run %d origin %q, want %q", i, run.Origin, want)
		}
		var ids []int
		for _, tok := range run.Tokens {
			if tok.Generated {
				ids = append(ids, tok.ID)
			}
		}
		if !slices.Equal(ids, p.Ids) {
			t.Errorf("%s: the run wrote %v, the point %v", p.Label, ids, p.Ids)
		}
	}
	if runs[0].Model.Path != m.Info().Path || !strings.HasSuffix(runs[1].Model.Path, "model-Q8_0.gguf") || !strings.HasSuffix(runs[2].Model.Path, "model-Q4_K_M.gguf") {
		t.Errorf("runs' models %q, %q, %q", runs[0].Model.Path, runs[1].Model.Path, runs[2].Model.Path)
	}
}

// Rows of 64 weights cannot be Q4_K: the sweep says they fell back.
func TestQuantSweepSaysFallback(t *testing.T) {
	m, _ := load(t, "tiny")
	r, err := Run(context.Background(), m, Options{What: Quant, Values: []string{"q4_k_m"}, Prompt: prompt, DecodeTokens: 2, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "fall back") {
		t.Fatalf("notes %q do not mention the fallback", r.Notes)
	}
}

// A copy that would not fit is refused before a byte is written; a
// cancelled sweep leaves no copy behind.
func TestQuantSweepRefusesFullDiskAndCleansUp(t *testing.T) {
	m, _ := load(t, "tiny-llama")
	cache := t.TempDir()
	defer func(f func(string) int64) { diskFree = f }(diskFree)
	diskFree = func(string) int64 { return 1 << 20 }
	_, err := Run(context.Background(), m, Options{What: Quant, Prompt: prompt, DecodeTokens: 2, CacheDir: cache})
	if !errors.Is(err, ErrNoRoom) {
		t.Fatalf("err %v, want ErrNoRoom", err)
	}
	diskFree = diskFreeBytes
	ctx, cancel := context.WithCancel(context.Background())
	r, err := Run(ctx, m, Options{What: Quant, Prompt: prompt, DecodeTokens: 2, CacheDir: cache,
		Progress: func(frac float64, what string) {
			if strings.Contains(what, "writing the q4_k_m copy") { // the Q8_0 copy is written and run
				cancel()
			}
		}})
	if err != nil || !r.Cancelled {
		t.Fatalf("err %v, cancelled %v", err, r.Cancelled)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "*", "*")); len(left) != 0 {
		t.Fatalf("cancelled sweep left %v", left)
	}
	if r.Removed != 2 || !strings.Contains(Cancelled(r), "The 2 copies it had written are removed") {
		t.Errorf("removed %d copies (the Q8_0 copy and the Q4_K_M one begun): %q", r.Removed, Cancelled(r))
	}
}

// Two texts: the longer one is read longer, the same number written
// after each; the CSV and the plan sentence say what the figure shows.
func TestTwoTexts(t *testing.T) {
	m, _ := load(t, "tiny")
	r, err := Run(context.Background(), m, Options{What: Texts, Prompt: prompt, Second: GoldBug, SecondLabel: "The Gold-Bug", DecodeTokens: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 2 || r.Points[1].Label != "The Gold-Bug" {
		t.Fatalf("points %+v", r.Points)
	}
	a, b := r.Points[0], r.Points[1]
	if a.PrefillTokens != len(m.Encode(prompt)) || b.PrefillTokens <= 1000 || a.DecodeTokens != 3 || b.DecodeTokens != 3 {
		t.Fatalf("read %d and %d tokens, wrote %d and %d", a.PrefillTokens, b.PrefillTokens, a.DecodeTokens, b.DecodeTokens)
	}
	var csv strings.Builder
	if err := WriteCSV(&csv, r); err != nil || strings.Count(csv.String(), "\n") != 3 {
		t.Fatalf("CSV %q, err %v", csv.String(), err)
	}
	if s := Plan(Context, m.Info(), Options{}, GuessSpeeds(m.Info(), 40), 2); !strings.Contains(s, "about") {
		t.Fatalf("plan %q does not say how long", s)
	}
	if !strings.Contains(Reading(r), "writing") {
		t.Fatalf("reading %q", Reading(r))
	}
}

// A saved experiment reads back as the same points, and reruns with the
// same options; Compare sets the rerun against it.
func TestRecordRoundTrip(t *testing.T) {
	m, dir := load(t, "tiny")
	opt := Options{What: Threads, Values: []string{"1", "2"}, Prompt: prompt, DecodeTokens: 3}
	r, err := Run(context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := fingerprint.Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(NewRecord(r, opt, dir, fp, "avx2", 2))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := ReadRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	back := rec.Result()
	if len(back.Points) != 2 || back.Points[1].Value != 2 || back.Points[0].DecodeTokS != r.Points[0].DecodeTokS || rec.Fingerprint != fp {
		t.Fatalf("read back %+v", back.Points)
	}
	again, err := Run(context.Background(), m, rec.Opts())
	if err != nil {
		t.Fatal(err)
	}
	if s := Compare(rec, again); !strings.Contains(s, "The same tokens were written at 2 of 2 points, their top-10 probabilities within") {
		t.Fatalf("compare: %s", s)
	}
	rec.Points[0].Top[0][0].P += 0.01
	if s := Compare(rec, again); !strings.Contains(s, "more than 1e-4") {
		t.Fatalf("compare with a moved probability: %s", s)
	}
	if _, err := ReadRecord([]byte(`{"format":"other"}`)); err == nil {
		t.Fatal("a file of another format was read")
	}
}

// Where the CPU has the bf16 level, the kernels sweep measures both of
// its arithmetics: avx512bf16 (bf16 activations in prefill) and exact
// (every product in fp32), labelled with their arithmetic, exact just
// before; the kernel level and arithmetic are restored after.
func TestKernelsSweepBothArithmetics(t *testing.T) {
	names, err := kernelNames(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !kernels.Supported(kernels.AVX512BF16) {
		if slices.Contains(names, Exact) {
			t.Fatalf("levels %v: exact without a bf16 level duplicates %s", names, kernels.BestExact())
		}
		t.Skip("this CPU has no avx512bf16")
	}
	if n := len(names); n < 2 || names[n-2] != Exact || names[n-1] != "avx512bf16" {
		t.Fatalf("levels %v: want exact then avx512bf16 last", names)
	}
	m, _ := load(t, "tiny")
	if _, err := kernels.Choose("auto"); err != nil { // the window's default: selective bf16
		t.Fatal(err)
	}
	defer kernels.Choose("auto")
	was := kernels.Current()
	r, err := Run(context.Background(), m, Options{What: Kernels, Values: []string{"exact", "avx512bf16"}, Prompt: prompt,
		PromptTokens: 32, DecodeTokens: 2, Bandwidth: fixedBandwidth})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 2 || r.Points[0].Value != "exact" || r.Points[1].Value != "avx512bf16" {
		t.Fatalf("points %+v", r.Points)
	}
	ex, bf := r.Points[0], r.Points[1]
	if ex.Run.Settings.Arithmetic != "fp32" || bf.Run.Settings.Arithmetic != "bf16" || ex.Label != "exact · fp32" || bf.Label != "avx512bf16 · bf16" {
		t.Errorf("exact ran %q (%q), avx512bf16 %q (%q)", ex.Run.Settings.Arithmetic, ex.Label, bf.Run.Settings.Arithmetic, bf.Label)
	}
	if ex.Run.Settings.Kernels != kernels.BestExact().String() {
		t.Errorf("exact ran on %s, want %s", ex.Run.Settings.Kernels, kernels.BestExact())
	}
	if kernels.Current() != was {
		t.Errorf("after the sweep: kernels %v, before %v", kernels.Current(), was)
	}
	if s := Reading(r); !strings.Contains(s, "Exact fp32 products read at") {
		t.Errorf("reading %q does not set the two arithmetics side by side", s)
	}
}

// TestRunsReportTheirKernels: whatever kernels are in use (generic, as
// another run may leave them), each point of the kernels sweep runs and
// reports the choice it is named after, and every run of another sweep
// the choice in Options.Kernels; the kernels in use stay as they were.
// That a run computes with the choice it reports is the engine's test
// (TestRunComputesItsKernelChoice).
func TestRunsReportTheirKernels(t *testing.T) {
	m, _ := load(t, "tiny")
	defer kernels.Use(kernels.Current())
	g, _ := kernels.ChoiceOf("generic")
	kernels.Use(g)
	names, err := kernelNames(nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), m, Options{What: Kernels, Values: names, Prompt: prompt,
		PromptTokens: 16, DecodeTokens: 2, Bandwidth: fixedBandwidth})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != len(names) {
		t.Fatalf("%d points for %v", len(r.Points), names)
	}
	for _, p := range r.Points {
		c, _ := kernels.ChoiceOf(p.Value.(string))
		s := p.Run.Settings
		if s.Kernels != c.Level().String() || s.Arithmetic != m.ArithmeticOf(c) || !strings.HasSuffix(p.Label, arithmetic(s.Arithmetic)) {
			t.Errorf("point %q (%s) ran %s %s, want %s %s", p.Value, p.Label, s.Kernels, s.Arithmetic, c.Level(), m.ArithmeticOf(c))
		}
	}
	ex, _ := kernels.ChoiceOf("exact")
	r, err = Run(context.Background(), m, Options{What: Threads, Values: []string{"1", "2"}, Prompt: prompt,
		PromptTokens: 16, DecodeTokens: 2, Bandwidth: fixedBandwidth, Kernels: ex})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Points {
		if s := p.Run.Settings; s.Kernels != ex.Level().String() || s.Arithmetic != m.ArithmeticOf(ex) {
			t.Errorf("threads point %v given %v ran %s %s", p.Value, ex, s.Kernels, s.Arithmetic)
		}
	}
	if kernels.Current() != g {
		t.Errorf("the sweeps left %v in use, was %v", kernels.Current(), g)
	}
}
