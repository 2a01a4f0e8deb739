package viz

import (
	"bytes"

	"gonum.org/v1/plot/vg"

	"loupe/format"
	"loupe/trace/stats"
	"math"
	"slices"
	"testing"
)

func approx(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

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

// GridOf only carries the source map over: cells, gaps and the two texts.
func TestGridOf(t *testing.T) {
	m := stats.SourceMap{Cells: [][]float64{{0.5, 0.25}, {math.NaN(), math.NaN()}}, Gaps: map[int]string{1: "gap"}, QueryPos: 4, SourcePos: 3}
	g := GridOf(m, purpleTokens)
	if g.Query != purpleTokens[4] || g.Source != purpleTokens[3] || g.Weights[0][1] != 0.25 || !math.IsNaN(float64(g.Weights[1][0])) || g.Gaps[1] != "gap" {
		t.Errorf("grid = %+v", g)
	}
	if g := GridOf(m, nil); g.Query != "" || g.Source != "" {
		t.Errorf("no texts: %q %q", g.Query, g.Source)
	}
}

// The article's parameter counts of Qwen2.5-1.5B, as the figure writes them.
func TestParamSplit(t *testing.T) {
	// Qwen2.5-1.5B: 151,936 × 1,536 = 233,373,696 embedding parameters of
	// 1,543,714,304 in all (tied output head): the article's "233 M of 1.5 B, 15 %".
	parts := stats.ParamSplit(qwen15)
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
	head, total, share := stats.OutputReadShare(qwen15)
	if head != 233373696 || total != 1543714304 || !approx(share, 233373696.0/1543714304, 1e-12) {
		t.Errorf("OutputReadShare = %d %d %v", head, total, share)
	}
	if format.Count(head) != "233 M" || format.Count(total) != "1.5 B" || format.Percent(share) != "15.1 %" {
		t.Errorf("formatted %s of %s, %s", format.Count(head), format.Count(total), format.Percent(share))
	}
	untied := qwen15
	untied.TiedEmbeddings, untied.ParamsOutput = false, 1000
	untied.WeightBytesPerTok, untied.OutputBytesPerTok = 0, 0
	if head, total, share := stats.OutputReadShare(untied); head != 1000 || total != 1543715304 || !approx(share, 1000.0/1543715304, 1e-15) {
		t.Errorf("untied OutputReadShare = %d %d %v", head, total, share)
	}
}

func TestOutputSharesArticle(t *testing.T) {
	head, total, share := stats.OutputReadShare(qwen35)
	if format.Count(head) != "509 M" || format.Count(total) != "1.9 B" || format.Percent(share) != "26.8 %" {
		t.Errorf("Qwen3.5-2B: %s of %s, %s; want 509 M of 1.9 B, 26.8 %%", format.Count(head), format.Count(total), format.Percent(share))
	}
}

// A character the figures' font cannot draw is written as its code point,
// not dropped; the font's own scripts stay as they are.
func TestVisibleNamesMissingGlyphs(t *testing.T) {
	for in, want := range map[string]string{"菟": "U+83DF", " ращ": "·ращ", "ממ": "ממ", "é\n": "é¶", "a😀": "aU+1F600"} {
		if got := visible(in); got != want {
			t.Errorf("visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// A title composed outside viz (the window's MLP title) keeps a CJK token
// as its code point in the exported SVG instead of dropping it.
func TestTitleNamesMissingGlyphs(t *testing.T) {
	fig := MLPValues([]float32{1, -2, 0.5}, 3, "MLP of «菟» (position 1284)", Dark())
	svg, err := SVG(fig, 6*vg.Inch, 3*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("MLP of «&lt;U+83DF&gt;» (position 1284)")) {
		t.Errorf("the SVG's title does not name U+83DF")
	}
}
