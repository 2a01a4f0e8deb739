package viz

import (
	"math"
	"slices"
	"testing"

	"loupe/trace"
)

func approx(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

func TestLayerMeans(t *testing.T) {
	nan := float32(math.NaN())
	got := LayerMeans([][]float32{{0.1, 0.2, 0.6}, {nan, 0.5}, {nan}, {}})
	// (0.1+0.2+0.6)/3 = 0.3; NaN skipped: 0.5; nothing finite: NaN.
	if !approx(got[0], 0.3, 1e-7) || !approx(got[1], 0.5, 1e-7) || !math.IsNaN(got[2]) || !math.IsNaN(got[3]) {
		t.Errorf("LayerMeans = %v, want [0.3 0.5 NaN NaN]", got)
	}
}

func TestSinkShare(t *testing.T) {
	a := trace.Attention{QueryPos: 2, Weights: [][][]float32{
		{{0.5, 0.25, 0.25}, {0.25, 0.25, 0.5}},
		{{1, 0, 0}, {0.25, 0.5, 0.25}},
	}}
	// key 0: (0.5 + 0.25 + 1 + 0.25) / 4 = 0.5
	if got := SinkShare(a); !approx(got, 0.5, 1e-7) {
		t.Errorf("SinkShare = %v, want 0.5", got)
	}
	// key 1: (0.25 + 0.25 + 0 + 0.5) / 4 = 0.25
	if got := SourceShare(a, 1); !approx(got, 0.25, 1e-7) {
		t.Errorf("SourceShare(1) = %v, want 0.25", got)
	}
	if got := SourceShare(a, 3); !math.IsNaN(got) {
		t.Errorf("SourceShare(out of range) = %v, want NaN", got)
	}
	if got := SinkShare(trace.Attention{}); !math.IsNaN(got) {
		t.Errorf("SinkShare(empty) = %v, want NaN", got)
	}
}

func TestTopK(t *testing.T) {
	w := []float32{0.05, 0.002, 0.91, 0.01, 0.01, float32(math.NaN()), 0.018}
	idx, rest := TopK(w, 3)
	// largest: 0.91 (#2), 0.05 (#0), 0.018 (#6); rest 0.002+0.01+0.01 = 0.022
	if !slices.Equal(idx, []int{0, 2, 6}) || !approx(rest, 0.022, 1e-6) {
		t.Errorf("TopK = %v, %v; want [0 2 6], 0.022", idx, rest)
	}
	// Ties go to the earlier position.
	if idx, _ := TopK([]float32{1, 1, 1}, 2); !slices.Equal(idx, []int{0, 1}) {
		t.Errorf("TopK ties = %v, want [0 1]", idx)
	}
	if idx, rest := TopK(nil, 5); len(idx) != 0 || rest != 0 {
		t.Errorf("TopK(nil) = %v, %v", idx, rest)
	}
	if idx, rest := TopK([]float32{0.3, 0.7}, 9); !slices.Equal(idx, []int{0, 1}) || rest != 0 {
		t.Errorf("TopK(k > n) = %v, %v", idx, rest)
	}
}

func TestSummarizeMLP(t *testing.T) {
	v := []float32{-3.3, 1.5, -0.7, 0.6, 0.2, -0.05, 0.01, float32(math.NaN())}
	s := SummarizeMLP(v)
	// |v| sorted: 0.01 0.05 0.2 0.6 0.7 1.5 3.3 → median 0.6; >0.5: 4; >1: 2.
	want := MLPStats{N: 7, MedianAbs: 0.6, Above05: 4, Above1: 2, MaxAbs: 3.3}
	if s.N != want.N || !approx(s.MedianAbs, want.MedianAbs, 1e-6) || s.Above05 != want.Above05 ||
		s.Above1 != want.Above1 || !approx(s.MaxAbs, want.MaxAbs, 1e-6) {
		t.Errorf("SummarizeMLP = %+v, want %+v", s, want)
	}
	if s := SummarizeMLP([]float32{1, -2}); !approx(s.MedianAbs, 1.5, 0) {
		t.Errorf("even median = %v, want 1.5", s.MedianAbs)
	}
	if s := SummarizeMLP(nil); s.N != 0 || !math.IsNaN(s.MaxAbs) {
		t.Errorf("SummarizeMLP(nil) = %+v", s)
	}
}

func TestLargestAbs(t *testing.T) {
	got := LargestAbs([]float32{0.1, -3, 2, -0.2, 0.05, 1}, 4)
	want := []float64{2, 1, -0.2, -3} // |v| top 4: 3, 2, 1, 0.2; positive first
	for i := range want {
		if i >= len(got) || !approx(got[i], want[i], 1e-6) {
			t.Fatalf("LargestAbs = %v, want %v", got, want)
		}
	}
	if got := LargestAbs([]float32{1}, 5); len(got) != 1 {
		t.Errorf("LargestAbs(n > len) = %v", got)
	}
}

func TestFormatting(t *testing.T) {
	cases := []struct{ got, want string }{
		{Visible(" purple"), "·purple"},
		{Visible("\n\tx\r"), "¶→x\\r"},
		{Visible("\x01"), `\x01`},
		{Visible(""), "(empty)"},
		{Percent(0.925), "92.5 %"},
		{Percent(0.0058), "0.6 %"},
		{Percent(0.00016), "0.016 %"},
		{Percent(1), "100 %"},
		{Percent(0), "0 %"},
		{Percent(math.NaN()), "–"},
		{Count(151936 * 1536), "233 M"},
		{Count(1543714304), "1.5 B"},
		{Count(151936), "151,936"},
		{Thousands(-1234567), "-1,234,567"},
		{Bytes(3.1e9), "3.1 GB"},
		{Bytes(28672), "29 KB"},
		{Bytes(117e6), "117 MB"},
		{Seconds(0.08), "0.08 s"},
		{Seconds(7.14), "7.1 s"},
		{Seconds(12.2), "12 s"},
		{sig2(1495.4), "1,495"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestTimingRow(t *testing.T) {
	r := articleRuns[0] // 17 tokens in 0.08 s, 100 in 7.1 s, 3.1 GB per token
	if !approx(r.Total(), 7.18, 1e-12) || !approx(r.PrefillShare(), 0.08/7.18, 1e-12) {
		t.Errorf("total %v share %v", r.Total(), r.PrefillShare())
	}
	if !approx(r.PrefillRate(), 212.5, 1e-9) || !approx(r.DecodeRate(), 100/7.1, 1e-12) {
		t.Errorf("rates %v %v", r.PrefillRate(), r.DecodeRate())
	}
	// 99 passes / 7.1 s × 3.1 GB ≈ 43.2 GB/s, the article's "about 44".
	if !approx(r.DecodeGBs(), 99/7.1*3.1, 1e-9) { // 100 tokens, 99 passes
		t.Errorf("DecodeGBs = %v", r.DecodeGBs())
	}
	if z := (TimingRow{}); !math.IsNaN(z.PrefillShare()) || !math.IsNaN(z.DecodeRate()) || !math.IsNaN(z.DecodeGBs()) {
		t.Errorf("zero row: %v %v %v", z.PrefillShare(), z.DecodeRate(), z.DecodeGBs())
	}
}

func TestGridFrom(t *testing.T) {
	a := attention(3, 2, 4)
	g, err := GridFrom(a, purpleTokens, 3)
	if err != nil {
		t.Fatal(err)
	}
	if g.Query != purpleTokens[4] || g.Source != " purple" || len(g.Weights) != 3 || len(g.Weights[0]) != 2 {
		t.Fatalf("grid = %+v", g)
	}
	if g.Weights[2][1] != a.Weights[2][1][3] {
		t.Errorf("Weights[2][1] = %v, want %v", g.Weights[2][1], a.Weights[2][1][3])
	}
	for _, src := range []int{-1, 5} {
		if _, err := GridFrom(a, purpleTokens, src); err == nil {
			t.Errorf("GridFrom(src %d) gave no error", src)
		}
	}
}

func TestPoolRows(t *testing.T) {
	nan := float32(math.NaN())
	m := [][]float32{{1, 2}, {3, nan}, {5, 6}, {7, 8}, {9, 10}}
	out, starts := PoolRows(m, 2)
	// groups: rows 0..1 and 2..4 → [2, 2] (NaN skipped) and [7, 8]
	if !slices.Equal(starts, []int{0, 2}) || len(out) != 2 ||
		!approx(out[0][0], 2, 0) || !approx(out[0][1], 2, 0) || !approx(out[1][0], 7, 0) || !approx(out[1][1], 8, 0) {
		t.Errorf("PoolRows = %v %v", out, starts)
	}
	out, starts = PoolRows(m, 10) // no pooling needed
	if len(out) != 5 || !slices.Equal(starts, []int{0, 1, 2, 3, 4}) || !math.IsNaN(out[1][1]) {
		t.Errorf("PoolRows(no pooling) = %v %v", out, starts)
	}
	if out, _ := PoolRows(nil, 4); len(out) != 0 {
		t.Errorf("PoolRows(nil) = %v", out)
	}
}

func TestParamSplit(t *testing.T) {
	// Qwen2.5-1.5B: 151,936 × 1,536 = 233,373,696 embedding parameters of
	// 1,543,714,304 in all (tied output head): the article's "233 M of 1.5 B, 15 %".
	parts := ParamSplit(qwen15)
	var names []string
	var sum float64
	for _, p := range parts {
		names = append(names, p.Name)
		sum += p.Of
	}
	if !slices.Equal(names, []string{"embedding", "attention", "MLP", "norms"}) || !approx(sum, 1, 1e-12) {
		t.Errorf("ParamSplit names %v, shares sum %v", names, sum)
	}
	if parts[2].Params != 28*3*1536*8960 || !approx(parts[2].Of, 1156055040.0/1543714304, 1e-12) {
		t.Errorf("MLP = %+v", parts[2])
	}
	head, total, share := OutputReadShare(qwen15)
	if head != 233373696 || total != 1543714304 || !approx(share, 233373696.0/1543714304, 1e-12) {
		t.Errorf("OutputReadShare = %d %d %v", head, total, share)
	}
	if Count(head) != "233 M" || Count(total) != "1.5 B" || Percent(share) != "15.1 %" {
		t.Errorf("formatted %s of %s, %s", Count(head), Count(total), Percent(share))
	}
	untied := qwen15
	untied.TiedEmbeddings, untied.ParamsOutput = false, 1000
	untied.WeightBytesPerTok, untied.OutputBytesPerTok = 0, 0
	if head, total, share := OutputReadShare(untied); head != 1000 || total != 1543715304 || !approx(share, 1000.0/1543715304, 1e-15) {
		t.Errorf("untied OutputReadShare = %d %d %v", head, total, share)
	}
}

func TestSoftmax(t *testing.T) {
	// The article's example: 1.2, 3.5, 0.4, 2.1 → 7 %, 72 %, 3 %, 18 %.
	// e^1.2 = 3.3201, e^3.5 = 33.1155, e^0.4 = 1.4918, e^2.1 = 8.1662; Σ = 46.0936
	got := Softmax([]float64{1.2, 3.5, 0.4, 2.1})
	want := []float64{3.320117 / 46.093587, 33.115452 / 46.093587, 1.491825 / 46.093587, 8.166170 / 46.093587}
	for i := range want {
		if !approx(got[i], want[i], 1e-6) {
			t.Errorf("Softmax[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// Large scores do not overflow; NaN gets 0.
	got = Softmax([]float64{1000, 1000, math.NaN()})
	if !approx(got[0], 0.5, 1e-12) || !approx(got[1], 0.5, 1e-12) || got[2] != 0 {
		t.Errorf("Softmax(large, NaN) = %v", got)
	}
	if got := Softmax([]float64{math.NaN()}); got[0] != 0 {
		t.Errorf("Softmax(all NaN) = %v", got)
	}
}

func TestOutputSharesArticle(t *testing.T) {
	head, total, share := OutputReadShare(qwen35)
	if Count(head) != "509 M" || Count(total) != "1.9 B" || Percent(share) != "26.8 %" {
		t.Errorf("Qwen3.5-2B: %s of %s, %s; want 509 M of 1.9 B, 26.8 %%", Count(head), Count(total), Percent(share))
	}
}

func TestKVSize(t *testing.T) {
	info := qwen15
	info.KVBytesPerToken = 2 * 14336 // bf16
	per, bytes := KVSize(info, 4096)
	// 2 (K, V) × 28 layers × 2 KV heads × 128 = 14,336 numbers; 28,672 B × 4,096 = 117.4 MB
	if per != 14336 || bytes != 28672*4096 {
		t.Errorf("KVSize = %d, %v", per, bytes)
	}
	if got, want := KVSizeNote(info, 4096), "14,336 numbers per token, about 29 KB; about 117 MB for 4,096 tokens"; got != want {
		t.Errorf("KVSizeNote = %q, want %q", got, want)
	}
	if got := KVSizeNote(qwen15, 10); got != "14,336 numbers per token" {
		t.Errorf("KVSizeNote without bytes = %q", got)
	}
}

// A character the figures' font cannot draw is written as its code point,
// not dropped; the font's own scripts stay as they are.
func TestVisibleNamesMissingGlyphs(t *testing.T) {
	for in, want := range map[string]string{"菟": "U+83DF", " ращ": "·ращ", "ממ": "ממ", "é\n": "é¶", "a😀": "aU+1F600"} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}
