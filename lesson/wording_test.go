package lesson

import (
	"strings"
	"testing"

	"loupe/format"
	"loupe/i18n"
	"loupe/kernels"
)

// notContains fails where the chapter's text says one of parts.
func notContains(t *testing.T, c *Chapter, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(c.Text, p) {
			t.Errorf("%s: %q in %q", c.ID, p, c.Text)
		}
	}
}

// The KV chapter gives the cache's size at lengths the model can hold:
// a 512-token model is not told about 4,096 or 32,000 tokens.
func TestKVCacheAtTheModelsOwnContext(t *testing.T) {
	per := int64(2 * 3 * 2 * 8 * 4)
	for _, c := range []struct {
		context   int
		want, not []string
	}{
		{512, []string{format.Bytes(float64(512*per)) + " at 512 tokens, the model's whole context"}, []string{"4,096", "32,000"}},
		{16384, []string{"1.6 MB at 4,096 tokens and " + format.Bytes(float64(16384*per)) + " at 16,384 tokens, the model's whole context"}, []string{"32,000"}},
		{32768, []string{"1.6 MB at 4,096 tokens and 12 MB at 32,000 tokens,"}, []string{"whole context"}},
	} {
		in := handInput(t)
		in.Model.MaxPositions = c.context
		ch := build(t, in).Chapter(KVCache)
		contains(t, ch, c.want...)
		notContains(t, ch, c.not...)
		if k := ch.Figures.(KVFigures); k.Context != c.context || k.BytesAtContext != int64(c.context)*per {
			t.Errorf("context %d: figures %+v", c.context, k)
		}
		in.Lang = i18n.French
		if fr := build(t, in).Chapter(KVCache).Text; strings.Contains(fr, "lesson.") || strings.Contains(fr, " at ") {
			t.Errorf("French: %q", fr)
		}
	}
}

// Where the output head and the whole model round to the same count,
// the share is given, not "16 M parameters out of 16 M".
func TestOutputHeadShareOfTheParameters(t *testing.T) {
	in := handInput(t)
	in.Model.ParamsEmbedding, in.Model.ParamsMLP = 15_600_000, 800_000 // total 16,400,712: both "16 M"
	c := build(t, in).Chapter(Output)
	contains(t, c, "95.1 % of its 16 M parameters")
	notContains(t, c, "out of 16 M")
	in.Model.ParamsAttention, in.Model.ParamsMLP, in.Model.ParamsNorm = 0, 0, 0
	contains(t, build(t, in).Chapter(Output), "all its 16 M parameters")
	in.Lang = i18n.French
	if fr := build(t, in).Chapter(Output).Text; !strings.Contains(fr, "(paramètres\u00a0: tous les 16\u202fM)") {
		t.Errorf("French: %q", fr)
	}
}

// Chapter 4's figure draws bars beside the grid, not a curve; chapter 10
// says the prefill read the weights, not "reading read" them.
func TestWordsMatchTheFigures(t *testing.T) {
	l := build(t, handInput(t))
	contains(t, l.Chapter(Grid), "the bars beside it are the mean of the 4 heads")
	notContains(t, l.Chapter(Grid), "curve")
	contains(t, l.Chapter(TwoTimes), "the prefill read the weights once")
	notContains(t, l.Chapter(TwoTimes), "reading read")
}

// Chapter 11, before its runs, names the kernel levels it will time on
// this CPU: AVX-512 only where the kernels run it.
func TestComputeChapterNamesTheLevelsItMeasures(t *testing.T) {
	was := kernels.Active()
	defer kernels.SetLevel(was)
	if err := kernels.SetLevel(kernels.AVX2); err != nil {
		t.Skip("no AVX2 on this CPU:", err)
	}
	c := build(t, handInput(t)).Chapter(ComputeMemory)
	contains(t, c, "with the avx2 kernels against")
	notContains(t, c, "512", "without")
	best := kernels.Best()
	if best <= kernels.AVX2 {
		return
	}
	kernels.SetLevel(best)
	contains(t, build(t, handInput(t)).Chapter(ComputeMemory), "with the "+best.String()+" kernels and with the avx2 ones against")
}

// The compute chapter says writing waits on memory from stats.MemoryBound
// of the bandwidth, the threshold of the threads experiment too: at 55 %
// it does not (it did at 50 %, before).
func TestComputeChapterMemoryThreshold(t *testing.T) {
	in := handInput(t)
	in.Model.WeightBytesPerTok = 1e9
	// 1 GB × 100 passes / 4 s = 25 GB/s.
	in.Extra = &Extra{Kernels: []KernelRun{{Level: "avx2", PrefillTokens: 100, PrefillSeconds: 1, DecodeTokens: 101, DecodeSeconds: 4}}}
	for _, c := range []struct {
		bandwidth float64
		want      string
	}{{25 / 0.55, "does not wait on memory alone"}, {25 / 0.65, "it waits on memory"}, {25 / 4.5, "came from the processor's caches"}} {
		in.Extra.BandwidthGBs = c.bandwidth
		contains(t, build(t, in).Chapter(ComputeMemory), c.want)
	}
}

// A small MoE model whose experts weigh little reads nearly all its
// parameters per token: the experts chapter gives the share, not "16 M
// of the 16 M parameters".
func TestExpertsChapterShareOfTheParameters(t *testing.T) {
	in := handInput(t)
	in.Model.Experts, in.Model.ExpertsPerToken, in.Model.MoELayers, in.Model.ExpertBytes = 4, 2, 3, 100
	in.Model.ParamsEmbedding, in.Model.ParamsMLP, in.Model.ParamsMLPActive = 15_600_000, 800_000, 400_000
	c := build(t, in).Chapter(Experts)
	// Active: 16,400,712 − 800,000 + 400,000 = 16,000,712 of 16,400,712.
	contains(t, c, "read 2 of 4 experts per layer: 97.6 % of its 16 M parameters")
	notContains(t, c, "16 M of the 16 M")
}
