package perf

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"loupe/engine"
	"loupe/trace"
)

// qwen15 is the shape of Qwen2.5-1.5B (its config.json).
var qwen15 = trace.ModelInfo{
	Name: "qwen2.5-1.5b", Layers: 28, Heads: 12, KVHeads: 2, HeadDim: 128,
	Hidden: 1536, Intermediate: 8960, Vocab: 151936, FileBytes: 3_087_467_520,
	WeightBytesPerTok: 3_000_000_000, KVBytesPerToken: 229_376,
}

// TestPrefillFLOPsQwen15 checks the count against figures worked out by
// hand: the layer matrices of Qwen2.5-1.5B hold 1,310,195,712 weights (the
// model card's "1.31B non-embedding parameters" less the norms and biases).
func TestPrefillFLOPsQwen15(t *testing.T) {
	const layerWeights = 1_310_195_712
	const head = 2 * 151936 * 1536
	for _, T := range []int{1, 17, 512, 3139} {
		attn := 28 * 4 * 1536 * float64(T) * float64(T+1) / 2
		want := 2*layerWeights*float64(T) + head + attn
		if got := PrefillFLOPs(qwen15, T); math.Abs(got-want) > 1e-9*want {
			t.Errorf("T=%d: %.6g FLOPs, want %.6g", T, got, want)
		}
	}
	if got := PrefillFLOPs(qwen15, 17); got != 45_039_722_496 {
		t.Errorf("T=17: %.0f FLOPs, want 45039722496", got)
	}
}

func TestSummarize(t *testing.T) {
	run := func(pSec, dSec, ttft float64) Sample {
		return Sample{TTFTSeconds: ttft, Timing: trace.Timing{PrefillTokens: 17, PrefillSeconds: pSec,
			DecodeTokens: 101, DecodeSeconds: dSec, BytesPerToken: 3e9}}
	}
	// Medians: prefill 0.5 s, decode 2 s, TTFT 0.6 s.
	runs := []Sample{run(0.5, 4, 0.6), run(0.25, 2, 0.3), run(1, 1, 1.1)}
	runs[0].WallSeconds, runs[0].CPUSeconds = 5, 9 // 1.8 cores busy
	runs[1].WallSeconds, runs[1].CPUSeconds = 3, 3 // 1
	runs[2].WallSeconds, runs[2].CPUSeconds = 2, 1 // 0.5
	r := Summarize(qwen15, runs, 200, 100)
	if r.Repeat != 3 || r.ModelBytes != qwen15.FileBytes || r.Model != "qwen2.5-1.5b" {
		t.Fatalf("header %+v", r)
	}
	approx := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	approx("prefill seconds", r.Prefill.Seconds, 0.5)
	approx("prefill tok/s", r.Prefill.TokensPerSecond, 34)
	approx("prefill GFLOP/s", r.Prefill.GFLOPs, 45.039722496/0.5)
	approx("share of peak", r.Prefill.ShareOfPeak, 45.039722496/0.5/100)
	approx("decode seconds", r.Decode.Seconds, 2)
	approx("decode tok/s", r.Decode.TokensPerSecond, 50.5)
	approx("decode passes/s", r.Decode.PassesPerSecond, 50)
	approx("decode GB/s", r.Decode.GBs, 100*3e9/2/1e9) // 100 passes for 101 tokens
	approx("share of bandwidth", r.Decode.ShareOfBandwidth, 0.75)
	approx("TTFT", r.TTFTSeconds, 0.6)
	approx("total", r.TotalSeconds, 2.5) // the sum of the medians
	approx("cores busy", r.CoresBusy, 1)
	if z := Summarize(qwen15, runs, 0, 0); z.Prefill.ShareOfPeak != 0 || z.Decode.ShareOfBandwidth != 0 {
		t.Errorf("shares without a reference: %+v", z)
	}
}

// TestDecodeBytesFallback: without the engine's figure, bytes per token are
// the weights plus the KV cache at the middle of the run.
func TestDecodeBytesFallback(t *testing.T) {
	got := decodeBytesPerToken(qwen15, trace.Timing{PrefillTokens: 100, DecodeTokens: 50})
	if want := 3e9 + 229_376*125.0; got != want {
		t.Fatalf("%v bytes, want %v", got, want)
	}
}

func TestWriteText(t *testing.T) {
	runs := []Sample{{TTFTSeconds: 0.1, WallSeconds: 7.2, CPUSeconds: 3.6, Timing: trace.Timing{PrefillTokens: 17, PrefillSeconds: 0.08,
		DecodeTokens: 101, DecodeSeconds: 7.1, BytesPerToken: 3.1e9}}}
	r := Summarize(qwen15, runs, 48, 200)
	r.Kernels, r.Arithmetic, r.Threads, r.PeakRSS = "avx512bf16", "bf16", 2, 3_400_000_000
	var b bytes.Buffer
	WriteText(&b, r)
	for _, want := range []string{"kernels avx512bf16 (bf16 arithmetic), 2 threads", "17 tokens in 0.080 s", "GB/s read bandwidth",
		"read (prefill)", "write (decode)", "98.9 %", "peak RSS 3.40 GB", "0.50 of 2 threads busy (the machine is busy",
		"arithmetic  prefill rounds activations to bf16 (faster"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// fakeModel records the options it is given and reports fixed timings.
type fakeModel struct {
	opts  []engine.GenerateOptions
	delay time.Duration // before the first token
	gap   time.Duration // between the first Token and Step events
	err   error
	stop  string
}

func (f *fakeModel) Info() trace.ModelInfo { return qwen15 }

func (f *fakeModel) Generate(ctx context.Context, prompt string, opt engine.GenerateOptions, onEvent func(engine.Event)) (*trace.Run, error) {
	f.opts = append(f.opts, opt)
	if f.err != nil {
		return nil, f.err
	}
	time.Sleep(f.delay)
	if onEvent != nil {
		onEvent(engine.Event{Token: &trace.Token{Pos: 17}})
		time.Sleep(f.gap) // the first decode pass: not part of the first token's wait
		onEvent(engine.Event{Step: &trace.Step{Pos: 17}})
		onEvent(engine.Event{Step: &trace.Step{Pos: 18}})
	}
	stop := f.stop
	if stop == "" {
		stop = "max_tokens"
	}
	return &trace.Run{StopReason: stop, Timing: trace.Timing{PrefillTokens: 17, PrefillSeconds: 0.1,
		DecodeTokens: opt.Settings.MaxTokens, DecodeSeconds: 1}}, nil
}

func TestBenchRuns(t *testing.T) {
	f := &fakeModel{delay: 5 * time.Millisecond, gap: 200 * time.Millisecond}
	samples, err := Bench(context.Background(), f, BenchOptions{Prompt: "p", MaxTokens: 100, Repeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.opts) != 4 || len(samples) != 3 {
		t.Fatalf("%d generations and %d samples, want 4 (warm-up + 3) and 3", len(f.opts), len(samples))
	}
	if f.opts[0].Settings.MaxTokens != 2 {
		t.Errorf("warm-up writes %d tokens, want 2", f.opts[0].Settings.MaxTokens)
	}
	for _, o := range f.opts[1:] {
		if o.Settings.MaxTokens != 100 || o.EOS == nil || len(o.EOS) != 0 || o.Settings.Temperature != 0 {
			t.Errorf("timed run options %+v: want 100 tokens, greedy, no stop ids", o.Settings)
		}
		if o.TopN != 0 || o.Attn.LastPrompt || o.Attn.Generated {
			t.Errorf("probes on with Probes false: %+v", o)
		}
	}
	for _, s := range samples {
		if s.WallSeconds < s.TTFTSeconds || s.CPUSeconds < 0 {
			t.Errorf("wall %v s, cpu %v s, first token %v s", s.WallSeconds, s.CPUSeconds, s.TTFTSeconds)
		}
		if s.TTFTSeconds < 0.005 || s.TTFTSeconds >= 0.150 || s.Timing.DecodeTokens != 100 {
			t.Errorf("sample %+v", s)
		}
	}
	f = &fakeModel{}
	if _, err := Bench(context.Background(), f, BenchOptions{Prompt: "p", MaxTokens: 5, Repeat: 1, Probes: true}); err != nil {
		t.Fatal(err)
	}
	if o := f.opts[1]; o.TopN != 10 || !o.Attn.Generated {
		t.Errorf("probes off with Probes true: %+v", o)
	}
}

func TestBenchErrors(t *testing.T) {
	boom := errors.New("boom")
	if _, err := Bench(context.Background(), &fakeModel{err: boom}, BenchOptions{MaxTokens: 1, Repeat: 1}); !errors.Is(err, boom) || !strings.Contains(err.Error(), "warm-up") {
		t.Errorf("warm-up error %v", err)
	}
	if _, err := Bench(context.Background(), &fakeModel{stop: "cancelled"}, BenchOptions{MaxTokens: 1, Repeat: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run gave %v", err)
	}
	for _, o := range []BenchOptions{{MaxTokens: 0, Repeat: 1}, {MaxTokens: 1, Repeat: 0}} {
		if _, err := Bench(context.Background(), &fakeModel{}, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestPromptOfTokens(t *testing.T) {
	// One token per byte; decoding shows a cut character as U+FFFD.
	encode := func(s string) []int {
		ids := make([]int, len(s))
		for i := range len(s) {
			ids[i] = int(s[i])
		}
		return ids
	}
	decode := func(ids []int) string {
		b := make([]byte, len(ids))
		for i, id := range ids {
			b[i] = byte(id)
		}
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	cases := []struct {
		n    int
		want string
	}{{1, "a"}, {2, "ab"}, {3, "ab"}, {4, "ab"}, {5, "ab€"}, {7, "ab€ab"}, {10, "ab€ab€"}}
	for _, c := range cases {
		got, err := PromptOfTokens("ab€", c.n, encode, decode)
		if err != nil || got != c.want {
			t.Errorf("n=%d: %q %v, want %q", c.n, got, err, c.want)
		}
	}
	if _, err := PromptOfTokens("", 3, encode, decode); err == nil {
		t.Error("empty text accepted")
	}
	if _, err := PromptOfTokens("ab", 0, encode, decode); err == nil {
		t.Error("0 tokens accepted")
	}
}
