package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"loupe/format"
	"loupe/trace"
	"loupe/viz"
)

// moeRun is two written tokens of a 3-layer model whose layer 1 is dense,
// 4 experts, k = 2.
func moeRun() (trace.ModelInfo, []trace.Token, []trace.Step) {
	info := trace.ModelInfo{Layers: 3, Experts: 4, ExpertsPerToken: 2, MoELayers: 2, ExpertBytes: 100, WeightBytesPerTok: 1000}
	toks := []trace.Token{{Text: "a"}, {Text: "b", Pos: 1, Generated: true}, {Text: "c", Pos: 2, Generated: true}}
	r := func(l int, ids []int, w []float32, p ...float32) trace.Routing {
		return trace.Routing{Layer: l, IDs: ids, Weights: w, Probs: p}
	}
	steps := []trace.Step{
		{Pos: 1, Experts: []trace.Routing{r(0, []int{2, 0}, []float32{0.5, 0.25}, 0.25, 0.125, 0.5, 0.125), r(2, []int{1, 3}, []float32{0.5, 0.25}, 0.125, 0.5, 0.125, 0.25)}},
		{Pos: 2, Experts: []trace.Routing{r(0, []int{3, 0}, []float32{0.5, 0.25}, 0.25, 0.125, 0.125, 0.5), r(2, []int{1, 3}, []float32{0.5, 0.25}, 0.125, 0.5, 0.125, 0.25)}},
	}
	return info, toks, steps
}

func TestExpertsPanel(t *testing.T) {
	newTestApp(t)
	info, toks, steps := moeRun()
	p := NewExpertsPanel()
	p.Display(info, toks, steps, 2)
	if r, c := p.Map.Dims(); r != 3 || c != 4 {
		t.Fatalf("map %d × %d, want 3 layers × 4 experts", r, c)
	}
	if _, ok := p.Map.Gaps[1]; !ok || len(p.Map.Gaps) != 1 {
		t.Errorf("gaps %v, want the dense layer 1 only", p.Map.Gaps)
	}
	if len(p.Map.selected) != 4 || !p.Map.selected[[2]int{0, 3}] || !p.Map.selected[[2]int{2, 1}] {
		t.Errorf("outlined %v", p.Map.selected)
	}
	// After two tokens layer 0 has touched 3 of 4 experts, layer 2 two.
	if p.Touched.Len() != 2 || !strings.Contains(p.Touched.Row(0).Value, "3 of 4") || !strings.Contains(p.Touched.Row(1).Value, "2 of 4") {
		t.Errorf("touched rows %v / %v", p.Touched.Row(0), p.Touched.Row(1))
	}
	// A dense model of the same size reads 2 layers × 2 idle experts × 100 bytes more.
	if b := p.Bytes.Row(1).Value; b != format.Bytes(1400) || p.Bytes.Row(0).Value != format.Bytes(1000) {
		t.Errorf("dense bytes %q", b)
	}
	var d CSV
	if err := p.CSV(&d); err != nil {
		t.Fatal(err)
	}
	if len(d.table) != 1+2*4 || d.table[4][3] != "1" || d.table[4][4] != "1" {
		t.Errorf("CSV table %v", d.table)
	}
	if _, err := viz.Image(p.Figure(), 900, 600, viz.DPI); err != nil {
		t.Error(err)
	}
	// The prompt's token shows the first written token's routing.
	p.Display(info, toks, steps, 0)
	if st, n, ok := p.Shown(); !ok || st.Pos != 1 || n != 1 || !strings.Contains(p.AtToken.Text, "prompt") {
		t.Errorf("a prompt token: step at %d, n %d, %q", st.Pos, n, p.AtToken.Text)
	}
	p.Display(trace.ModelInfo{Layers: 3}, toks, nil, 0)
	if !strings.Contains(p.Title.Text, "no experts") {
		t.Errorf("a dense model: %q", p.Title.Text)
	}
}

func TestExpertsInComparison(t *testing.T) {
	a := &trace.Run{Prompt: "p", Settings: trace.Settings{Kernels: "avx2"}}
	b := &trace.Run{Prompt: "p", Settings: trace.Settings{Kernels: "avx2", DisableExperts: []trace.Expert{{Layer: 0, Expert: 3}}, TopKExperts: 1}}
	if got, want := DescribePair(a, b, 0), "A and B differ in experts switched off (none in A, 0:3 in B), experts per token (the model's in A, 1 in B)."; got != want {
		t.Errorf("DescribePair = %q, want %q", got, want)
	}
	if l := RunLabel(1, b, 0); !strings.Contains(l, "1 expert off · 1 expert a token") {
		t.Errorf("RunLabel = %q", l)
	}
}

// The router map numbers its layers and experts as the window counts
// (View › Count from 0 or 1, given by SetCount), the numbers the Switch
// off box takes, and its note names the strongest choice that way.
func TestExpertsMapNumbered(t *testing.T) {
	newTestApp(t)
	info, toks, steps := moeRun()
	p := NewExpertsPanel()
	w := test.NewWindow(p)
	defer w.Close()
	w.Resize(fyne.NewSize(900, 900))
	for _, c := range []struct {
		count      format.Numbering
		rows, cols string
		pair       string
	}{
		{format.FromOne, "1 2 3", "1 2 3 4", "1:4"},
		{format.FromZero, "0 1 2", "0 1 2 3", "0:3"},
	} {
		p.SetCount(c.count)
		p.Display(info, toks, steps, 2)
		p.MapAxes.Resize(p.MapAxes.MinSize())
		rows, cols := shownLabels(p.MapAxes)
		if strings.Join(rows, " ") != c.rows || strings.Join(cols, " ") != c.cols {
			t.Errorf("%v: rows %v, cols %v; want %s and %s", c.count, rows, cols, c.rows, c.cols)
		}
		if !strings.Contains(p.MapNote.Text, c.pair+": this token's strongest") {
			t.Errorf("%v: note %q does not name %s", c.count, p.MapNote.Text, c.pair)
		}
		p.Off.SetText(c.pair)
		if es, _, err := p.Counterfactual(); err != nil || len(es) != 1 || es[0] != (trace.Expert{Layer: 0, Expert: 3}) {
			t.Errorf("%v: %q read as %v (%v)", c.count, c.pair, es, err)
		}
		p.Off.SetText("")
	}
	laid := false
	for _, o := range p.content.Objects {
		laid = laid || o == p.MapAxes
	}
	if !laid {
		t.Error("the map is laid out without its numbered axes")
	}
}
