package views

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"loupe/format"
	"loupe/trace"
	"loupe/viz"
)

func newTestApp(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
}

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{" cat": "·cat", "\n": "¶", "a\tb": "a→b", "": "(empty)", "a\rb": `a\rb`, "x": "x"} {
		if got := format.Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
	got := Describe(trace.Token{ID: 24932, Text: " purple", Pos: 3})
	if got != "position 3 · id 24932 · «·purple» · prompt" {
		t.Errorf("Describe: %q", got)
	}
}

func TestHeatmapCellAt(t *testing.T) {
	newTestApp(t)
	h := NewHeatmap(20, 10)
	h.SetValues([][]float64{{0, 1, 0}, {1, 0, 0}}) // 2 layers × 3 heads
	w := test.NewWindow(h)
	defer w.Close()
	h.Resize(fyne.NewSize(300, 100))
	var got [2]int
	h.OnTap = func(l, hd int) { got = [2]int{l, hd} }
	test.TapAt(h, fyne.NewPos(250, 75)) // column 2, row 1
	if got != [2]int{1, 2} {
		t.Errorf("tap → %v, want [1 2]", got)
	}
	if _, _, ok := h.CellAt(fyne.NewPos(301, 10)); ok {
		t.Error("outside the grid mapped to a cell")
	}
	var hover string
	h.OnHover = func(l, hd int, v float64) { hover = fmt.Sprint(l, hd, v) }
	h.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(150, 10)}})
	if hover != "0 1 1" {
		t.Errorf("hover %q, want layer 0 head 1 value 1", hover)
	}
}

func tokens(n int) []trace.Token {
	words := []string{"My", " cat", " is", " purple", ".", "\n"}
	toks := make([]trace.Token, n)
	for i := range toks {
		toks[i] = trace.Token{ID: i % 6, Text: words[i%6], Pos: i, Generated: i >= n-3}
	}
	return toks
}

func TestTokenStreamWrapsAndClicks(t *testing.T) {
	newTestApp(t)
	s := NewTokenStream()
	w := test.NewWindow(s)
	defer w.Close()
	w.Resize(fyne.NewSize(600, 400))
	s.SetTokens(tokens(3139)) // the gold-bug prompt's length
	if s.Rows() < 100 || s.Rows() > 3139 {
		t.Fatalf("3139 tokens in %d rows at 600 px", s.Rows())
	}
	// Only the visible rows are widgets: far fewer than the tokens.
	if n := len(test.LaidOutObjects(s)); n > 3000 {
		t.Errorf("%d objects laid out for 3139 tokens: not virtualised", n)
	}
	var sel, src = -1, -1
	s.OnSelect = func(p int) { sel = p }
	s.OnSource = func(p int) { src = p }
	first := fyne.NewPos(theme.Padding()+chipWidth("My")/2, chipHeight()/2)
	test.TapCanvas(w.Canvas(), first)
	if sel != 0 || s.Selected() != 0 {
		t.Errorf("tap on the first chip selected %d", sel)
	}
	second := fyne.NewPos(theme.Padding()+chipWidth("My")+chipWidth(" cat")/2, chipHeight()/2)
	test.MoveMouse(w.Canvas(), second)
	if !strings.Contains(s.HoverText(), "position 1 · id 1 · «·cat»") {
		t.Errorf("hover text %q", s.HoverText())
	}
	s.Choose(1)
	if src != 1 || s.Source() != 1 {
		t.Errorf("source %d", src)
	}
}

// TestTokenStreamFocusDims: with focus on, every chip but the query and
// the source is drawn a quarter as opaque; off, all are as before.
func TestTokenStreamFocusDims(t *testing.T) {
	newTestApp(t)
	s := NewTokenStream()
	w := test.NewWindow(s)
	defer w.Close()
	w.Resize(fyne.NewSize(600, 400))
	s.SetTokens(tokens(6))
	s.SetSelected(4)
	s.SetSource(3)
	r := &chipRowRenderer{r: newChipRow(s)}
	alpha := func(c color.Color) uint8 { return color.NRGBAModel.Convert(c).(color.NRGBA).A }
	_, _, before, _ := r.chipColors(s.tokens[0], 0)
	s.SetFocus(true)
	for i, tok := range s.tokens {
		_, _, text, _ := r.chipColors(tok, i)
		dimmed := alpha(text) < alpha(before)/2
		if want := i != 3 && i != 4; dimmed != want {
			t.Errorf("token %d: text alpha %d (unfocused %d), dimmed %v, want %v", i, alpha(text), alpha(before), dimmed, want)
		}
	}
	s.SetFocus(false)
	if _, _, text, _ := r.chipColors(s.tokens[0], 0); text != before {
		t.Errorf("focus off: text %v, want %v", text, before)
	}
}

func TestTokenStreamAppend(t *testing.T) {
	newTestApp(t)
	s := NewTokenStream()
	w := test.NewWindow(s)
	defer w.Close()
	w.Resize(fyne.NewSize(300, 300))
	for i, tok := range tokens(200) {
		s.Append(tok)
		if len(s.Tokens()) != i+1 {
			t.Fatal("append lost a token")
		}
	}
	// Appending and a full reflow pack the same lines.
	rows := s.Rows()
	s.SetTokens(tokens(200))
	if s.Rows() != rows {
		t.Errorf("append made %d rows, reflow %d", rows, s.Rows())
	}
}

func TestPromptEntryShortcuts(t *testing.T) {
	newTestApp(t)
	e := NewPromptEntry()
	gen, stop := 0, 0
	e.OnGenerate, e.OnStop = func() { gen++ }, func() { stop++ }
	e.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	test.Type(e, "hi")
	if gen != 1 || stop != 1 || e.Text != "hi" {
		t.Errorf("generate %d stop %d text %q", gen, stop, e.Text)
	}
}

func TestControlsSettings(t *testing.T) {
	newTestApp(t)
	c := NewControls(func() {}, func() {})
	s, err := c.Settings()
	if err != nil || s.Temperature != 0 || s.MaxTokens != 100 {
		t.Fatalf("greedy defaults: %+v %v", s, err)
	}
	if !c.Temperature.Disabled() {
		t.Error("sampling knobs enabled in greedy mode")
	}
	c.Mode.SetValue(Sampling)
	c.Seed.SetText("42")
	s, err = c.Settings()
	if err != nil || s.Temperature != 0.7 || s.TopK != 20 || s.TopP != 0.8 || s.Seed != 42 {
		t.Fatalf("sampling: %+v %v", s, err)
	}
	c.TopP.SetText("1.5")
	if _, err := c.Settings(); err == nil || !strings.Contains(err.Error(), "top-p") {
		t.Errorf("top-p 1.5: %v", err)
	}
	c.MaxTokens.SetText("0")
	if _, err := c.Settings(); err == nil || !strings.Contains(err.Error(), "max tokens") {
		t.Errorf("max tokens 0: %v", err)
	}
}

func TestStepForAndNextPanel(t *testing.T) {
	newTestApp(t)
	toks := tokens(6) // 3 prompt, 3 generated (positions 3..5)
	steps := []trace.Step{}
	for p := 3; p < 6; p++ {
		steps = append(steps, trace.Step{Pos: p, Chosen: trace.Candidate{ID: p, Text: "x", P: 0.6},
			Top: []trace.Candidate{{ID: p, Text: "x", P: 0.6}, {ID: 9, Text: "y", P: 0.3}}})
	}
	if s, ok := StepFor(steps, toks, 2); !ok || s.Pos != 3 {
		t.Errorf("last prompt token → step %d %v, want 3", s.Pos, ok)
	}
	if s, ok := StepFor(steps, toks, 4); !ok || s.Pos != 4 {
		t.Errorf("generated token 4 → step %d", s.Pos)
	}
	if _, ok := StepFor(steps, toks, 0); ok {
		t.Error("first prompt token has a step")
	}
	p := NewNextTokenPanel()
	p.Display(toks, steps, 4)
	if p.Bars.Len() != 2 || !p.Bars.Row(0).Highlight || p.Bars.Row(1).Highlight {
		t.Errorf("bars: %d rows, highlight %v %v", p.Bars.Len(), p.Bars.Row(0).Highlight, p.Bars.Row(1).Highlight)
	}
	if !strings.Contains(p.Title.Text, "chosen: «x» (model 60.0 %)") {
		t.Errorf("title %q", p.Title.Text)
	}
}

// The article's run: 17 tokens read in 0.08 s, 100 written in 7.1 s.
func TestTimingLine(t *testing.T) {
	tm := trace.Timing{PrefillTokens: 17, PrefillSeconds: 0.08, DecodeTokens: 100, DecodeSeconds: 7.1, BytesPerToken: 3.1e9}
	got := TimingLine(tm, 60, false)
	for _, want := range []string{"prefill 17 tokens, 80 ms, 212 tok/s (1.1 %)", "decode 100 tokens, 7.1 s, 14.1 tok/s (98.9 %)",
		"decode reads 43.2 GB/s = 72.0 % of the 60.0 GB/s"} { // 99 passes
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if got := TimingLine(tm, 1, false); !strings.Contains(got, "fits in the CPU caches") {
		t.Errorf("decode faster than memory not explained: %q", got)
	}
	if got := TimingLine(tm, 0, true); !strings.Contains(got, "measuring…") {
		t.Errorf("while measuring: %q", got)
	}
}

// Qwen2.5-1.5B: 28 layers × 2 K/V heads × 128 × (K + V) × 2 bytes = 28,672
// bytes per token, 117 MB at 4,096 tokens (the article's figures), 940 MB
// at its context of 32,768; a model of 512 positions is given sizes it
// can reach only.
func TestModelRows(t *testing.T) {
	m := trace.ModelInfo{Name: "qwen", Layers: 28, Heads: 12, KVHeads: 2, HeadDim: 128, KVBytesPerToken: 28672, MaxPositions: 32768,
		ParamsEmbedding: 233_000_000, ParamsAttention: 100, ParamsMLP: 100, WeightBytesPerTok: 3_100_000_000, OutputBytesPerTok: 466_000_000}
	rows := ModelRows(m, "cpu", "avx2", viz.FromOne)
	kv := rows[7][1]
	if !strings.Contains(kv, "29 KB per token") || !strings.Contains(kv, "117 MB at 4,096") || !strings.Contains(kv, "940 MB at its full context of 32,768") {
		t.Errorf("KV row %q", kv)
	}
	m.MaxPositions, m.KVBytesPerToken = 512, 2048
	kv = ModelRows(m, "cpu", "avx2", viz.FromOne)[7][1]
	if !strings.Contains(kv, "1 MB at its full context of 512") || strings.Contains(kv, "4,096") || strings.Contains(kv, "32,") {
		t.Errorf("KV row of a 512-token model %q", kv)
	}
	if !strings.Contains(rows[6][1], "(15.0 %)") {
		t.Errorf("output share row %q", rows[6][1])
	}
}

func TestAttentionPanelEmptyCapture(t *testing.T) {
	newTestApp(t)
	p := NewAttentionPanel()
	p.Display(trace.ModelInfo{}, tokens(3), []trace.Attention{{QueryPos: 2}}, 2, -1) // no layers
	if p.HasData() {
		t.Error("an empty capture shown as data")
	}
}

func TestAttentionPanelMissing(t *testing.T) {
	newTestApp(t)
	p := NewAttentionPanel()
	toks := tokens(5)
	a := trace.Attention{QueryPos: 4, Weights: [][][]float32{{{0.2, 0.2, 0.2, 0.2, 0.2}}}}
	p.Display(trace.ModelInfo{Heads: 1, KVHeads: 1}, toks, []trace.Attention{a}, 1, -1)
	if p.HasData() || !strings.Contains(p.Title.Text, "No attention was captured") {
		t.Fatalf("title %q", p.Title.Text)
	}
	asked := -1
	p.OnQuery = func(q int) { asked = q }
	test.Tap(p.offers.Objects[0].(*fyne.Container).Objects[0].(fyne.Tappable))
	if asked != 4 {
		t.Errorf("offer button asked for %d, want 4", asked)
	}
}

func TestHeatmapMark(t *testing.T) {
	newTestApp(t)
	h := NewHeatmap(10, 10)
	h.BottomUp = true
	h.SetValues([][]float64{{0, 0}, {0, 0}})
	h.Mark(0, 1) // layer 0 (bottom row), head 1 (right)
	img := h.draw(20, 20).(*image.NRGBA)
	if got := img.NRGBAAt(11, 18); got != (color.NRGBA{255, 255, 255, 255}) {
		t.Errorf("frame of the bottom-right cell: %v", got)
	}
	if got := img.NRGBAAt(1, 1); got == (color.NRGBA{255, 255, 255, 255}) {
		t.Error("an unmarked cell is framed")
	}
}

func TestScaleMaxAndBottomUp(t *testing.T) {
	newTestApp(t)
	h := NewHeatmap(10, 10)
	h.BottomUp = true
	h.SetValues([][]float64{{0}, {1}, {0}}) // 3 layers × 1 head
	w := test.NewWindow(h)
	defer w.Close()
	h.Resize(fyne.NewSize(10, 90))
	if l, _, _ := h.CellAt(fyne.NewPos(5, 85)); l != 0 {
		t.Errorf("bottom row is layer %d, want 0", l)
	}
}

func TestTokenTooltip(t *testing.T) {
	newTestApp(t)
	s := NewTokenStream()
	w := test.NewWindow(s)
	defer w.Close()
	w.Resize(fyne.NewSize(600, 300))
	s.SetTokens(tokens(20))
	second := fyne.NewPos(theme.Padding()+chipWidth("My")+chipWidth(" cat")/2, chipHeight()/2)
	test.MoveMouse(w.Canvas(), second)
	if !s.tip.Visible() || !strings.Contains(s.tip.text.Text, "«·cat»") {
		t.Fatalf("tooltip visible %v text %q", s.tip.Visible(), s.tip.text.Text)
	}
	if p := s.tip.Position(); p.Y < chipHeight() || p.X < chipWidth("My") {
		t.Errorf("tooltip at %v, want below the second chip", p)
	}
	// The tip holds no interactive object: a click under it still selects.
	test.MoveMouse(w.Canvas(), fyne.NewPos(590, 290))
	if s.tip.Visible() {
		t.Error("tooltip stays after the mouse left the chips")
	}
}

// The KV cache cost beside Max tokens follows the field and the model:
// Qwen2.5-1.5B's fp32 cache is 57 KB a token (2 × 28 layers × 256 × 4 B),
// 1.9 GB at 32,768.
func TestControlsKVCost(t *testing.T) {
	c := NewControls(func() {}, func() {})
	if c.KVCost.Text != "" {
		t.Fatalf("before a model: %q", c.KVCost.Text)
	}
	c.SetKVCost(2*28*256*4, 32768)
	c.MaxTokens.SetText("100")
	if want := "5.7 MB for the prompt's 0 tokens + 100"; !strings.Contains(c.KVCost.Text, want) || !strings.Contains(c.KVCost.Text, "1.9 GB at the model's full 32,768") {
		t.Fatalf("KV cost %q, want %q and the full context", c.KVCost.Text, want)
	}
	// The cache holds the prompt too: a 28 × 2 × 16 model (7,168 B a
	// token), 304 prompt tokens and 5 to write is 2.2 MB, not 36 KB.
	c.SetKVCost(7168, 32768)
	c.PromptTokens = func(string) int { return 304 }
	c.MaxTokens.SetText("5")
	c.Prompt.SetText("a long prompt")
	if want := "2.2 MB for the prompt's 304 tokens + 5;"; !strings.HasPrefix(c.KVCost.Text, want) {
		t.Fatalf("KV cost %q, want it to start %q", c.KVCost.Text, want)
	}
	c.MaxTokens.SetText("x")
	if c.KVCost.Text != "" {
		t.Fatalf("for an invalid field: %q", c.KVCost.Text)
	}
}

// The buttons offering captured tokens wrap four a row: eight long
// tokens in one row widened the window past a 1,366 px screen.
func TestAttentionOffersStayNarrow(t *testing.T) {
	newTestApp(t)
	p := NewAttentionPanel()
	toks := tokens(40)
	var att []trace.Attention
	for q := 20; q < 40; q++ {
		toks[q].Text = " CascadeTypeINFO"
		att = append(att, trace.Attention{QueryPos: q, Weights: [][][]float32{{make([]float32, q+1)}}})
	}
	p.Display(trace.ModelInfo{Heads: 1, KVHeads: 1}, toks, att, 5, -1)
	if w := p.MinSize().Width; w > 800 {
		t.Errorf("the panel offering captured tokens is %v px wide at least, want ≤ 800", w)
	}
}

// The prompt history draws one line an option (a line break would show
// as a missing glyph), and choosing one puts the prompt itself, line
// breaks and all, in the box.
func TestPromptHistoryOneLine(t *testing.T) {
	newTestApp(t)
	c := NewControls(nil, nil)
	c.SetHistory([]string{"My cat is purple.", "KING RICHARD III:\nNow is the winter"})
	if got := c.History.Options[1]; got != "KING RICHARD III: ¶ Now is the winter" {
		t.Errorf("option %q", got)
	}
	c.History.SetSelectedIndex(1)
	if c.Prompt.Text != "KING RICHARD III:\nNow is the winter" {
		t.Errorf("prompt box %q after choosing the option", c.Prompt.Text)
	}
}

// An MoE layer records no single silu(gate)·up: the MLP panel says so and
// points to the Experts tab instead of drawing "0 directions"; a dense
// layer of the same run still shows its values.
func TestMLPPanelMoELayer(t *testing.T) {
	newTestApp(t)
	p := NewMLPPanel()
	toks := []trace.Token{{Text: "My"}, {Text: " cat"}}
	mlps := []trace.MLP{{Layer: 0, Pos: 1, Values: []float32{0.5, -2, 1}}, {Layer: 1, Pos: 1}}
	p.Display(toks, mlps, 2, 1) // selects layer 1 (of 2): the MoE one
	if title := p.Title.Text; !strings.Contains(title, "mixture-of-experts layer") || !strings.Contains(title, "Experts tab") || strings.Contains(title, "directions") {
		t.Errorf("MoE layer: title %q", title)
	}
	if err := p.CSV(&CSV{}); err == nil || !strings.Contains(err.Error(), "Experts tab") {
		t.Errorf("MoE layer: CSV error %v", err)
	}
	p.Layer.SetSelectedIndex(0)
	if title := p.Title.Text; !strings.Contains(title, "over 3 directions") {
		t.Errorf("dense layer: title %q", title)
	}
}
