package views

import (
	"math"
	"strings"
	"testing"

	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

func hybridCapture() (trace.ModelInfo, trace.DeltaNet, trace.Attention) {
	info := trace.ModelInfo{Layers: 4, Heads: 2, KVHeads: 1, DeltaNetHeads: 3, DeltaNetKeyDim: 8, DeltaNetValDim: 8,
		LayerTypes: []string{"linear_attention", "full_attention", "linear_attention", "full_attention"}}
	d := trace.DeltaNet{Layer: 0, StatePos: []int{63, 64}}
	for t := range 65 {
		d.Alpha = append(d.Alpha, []float32{0.9, 0.5, float32(t) / 100})
		d.Beta = append(d.Beta, []float32{0.1, 0.2, 0.3})
	}
	d.StateNorm = [][]float32{{1, 2, 3}, {4, 5, 6}}
	a := trace.Attention{QueryPos: 2, Weights: [][][]float32{nil, {{0.5, 0.3, 0.2}, {0.1, 0.1, 0.8}}, nil, {{0.2, 0.2, 0.6}, {1, 0, 0}}}}
	return info, d, a
}

// The grid pads DeltaNet layers with NaN and labels them, the means leave
// them out, and the panel still has data.
func TestAttentionGridGaps(t *testing.T) {
	newTestApp(t)
	info, _, a := hybridCapture()
	g, gaps := stats.PadGaps(stats.SourceGrid(a, 2), info)
	if len(gaps) != 2 || gaps[0] != stats.DeltaNetRowLabel || gaps[2] != stats.DeltaNetRowLabel || len(g[0]) != 2 || !math.IsNaN(g[0][1]) {
		t.Fatalf("gaps %v, grid %v", gaps, g)
	}
	p := NewAttentionPanel()
	p.Display(info, []trace.Token{{Text: "a"}, {Text: "b"}, {Text: "c"}}, []trace.Attention{a}, 2, 2)
	if !p.HasData() || p.Grid.Gaps[0] != stats.DeltaNetRowLabel || p.Means.Gaps[2] != "" {
		t.Fatalf("panel: has %v, gaps %v / %v", p.HasData(), p.Grid.Gaps, p.Means.Gaps)
	}
	p.hoverCell(2, 0, math.NaN())
	if !strings.Contains(p.Hover.Text, "Gated DeltaNet") {
		t.Errorf("hover on a DeltaNet row: %q", p.Hover.Text)
	}
}

func TestDeltaNetPanel(t *testing.T) {
	newTestApp(t)
	info, d, _ := hybridCapture()
	toks := make([]trace.Token, 66)
	p := NewDeltaNetPanel()
	p.Display(info, toks, []trace.DeltaNet{d}, 10)
	if r, c := p.Alpha.Dims(); r != 3 || c != 65 {
		t.Fatalf("α map %d × %d, want 3 heads × 65 tokens", r, c)
	}
	if !strings.Contains(p.Why.Text, "no attention map") || !strings.Contains(p.AtToken.Text, "position 10") {
		t.Errorf("texts %q / %q", p.Why.Text, p.AtToken.Text)
	}
	n := normByToken(d) // before position 63 nothing was recorded
	if !math.IsNaN(float64(n[62][0])) || n[63][1] != 2 || n[64][2] != 6 {
		t.Errorf("state norm on tokens: %v %v %v", n[62], n[63], n[64])
	}
	if b := bins(3000); len(b) != maxColumns+1 || b[len(b)-1] != 3000 {
		t.Errorf("bins(3000): %d edges ending at %d", len(b), b[len(b)-1])
	}
}

func TestHybridModelRows(t *testing.T) {
	info, _, _ := hybridCapture()
	info.KVBytesPerToken, info.StateBytes, info.ParamsEmbedding, info.ParamsMLP = 2048, 20_201_472, 509, 1373
	info.TiedEmbeddings, info.NotUsed = true, []string{"vision tower", "MTP head"}
	rows := ModelRows(info, "cpu", "kernels", viz.FromOne)
	var all []string
	for _, r := range rows {
		all = append(all, r[0]+": "+r[1])
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"2 Gated DeltaNet", "2 attention layers", "20 MB of DeltaNet state", "Output head: 509 of 1,882 parameters (27.0 %)", "Not used: vision tower, MTP head"} {
		if !strings.Contains(text, want) {
			t.Errorf("Model rows lack %q:\n%s", want, text)
		}
	}
	// The first attention layer (index 1) is named as the grid counts.
	for n, want := range map[viz.Numbering]string{viz.FromOne: "from layer 2 every 2", viz.FromZero: "from layer 1 every 2"} {
		if shape := ModelRows(info, "cpu", "kernels", n)[2][1]; !strings.Contains(shape, want) {
			t.Errorf("counting %v: shape %q lacks %q", n, shape, want)
		}
	}
}
