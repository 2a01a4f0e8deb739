package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"loupe/engine/chat"
	"loupe/engine/genmodel"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
	"loupe/viz"
)

func hd(l, h int) trace.Head { return trace.Head{Layer: l, Head: h} }

const catPrompt = "My cat is purple . But my" // 7 tokens in the fake

func skewHarness(t *testing.T) *harness {
	h := newHarness(t, Options{})
	h.u.setNumbering(viz.FromZero) // the fields below are written as in code
	h.fake.skew = true
	h.generate(catPrompt, 4)
	return h
}

// clickCell taps cell (layer, head) of the attention grid, with Ctrl held
// when ctrl is true.
func clickCell(g *views.Heatmap, layer, head int, ctrl bool) {
	rows, cols := g.Dims()
	s := g.Size()
	pos := fyne.NewPos((float32(head)+0.5)*s.Width/float32(cols), (float32(rows-1-layer)+0.5)*s.Height/float32(rows))
	var mod fyne.KeyModifier
	if ctrl {
		mod = fyne.KeyModifierControl
	}
	g.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Modifier: mod})
	g.Tapped(&fyne.PointEvent{Position: pos})
}

// Ctrl+click selects heads (a plain click still opens one), Switch off and
// rerun runs the same prompt and settings with them off, and the Compare
// tab shows A | B with the first divergence and Δp.
func TestSelectHeadsRerunCompare(t *testing.T) {
	h := skewHarness(t)
	h.u.stream.Select(6)
	clickCell(h.u.attn.Grid, 1, 2, true)
	clickCell(h.u.attn.Grid, 3, 0, true)
	clickCell(h.u.attn.Grid, 2, 2, true)
	clickCell(h.u.attn.Grid, 2, 2, true) // Ctrl+click again: deselected
	if want := []trace.Head{hd(1, 2), hd(3, 0)}; !slices.Equal(h.u.st.Heads, want) {
		t.Fatalf("selected heads %v, want %v", h.u.st.Heads, want)
	}
	if h.u.bar.Heads.Text != "1:2, 3:0" {
		t.Errorf("heads field %q", h.u.bar.Heads.Text)
	}
	clickCell(h.u.attn.Grid, 2, 5, false)
	if l, hd := h.u.attn.OpenedHead(); l != 2 || hd != 5 || len(h.u.st.Heads) != 2 {
		t.Fatalf("plain click: open head %d.%d, selection %v", l, hd, h.u.st.Heads)
	}
	a := h.u.st.LastRun
	test.Tap(h.u.bar.Run)
	h.wait()
	b := h.u.st.LastRun
	if b == a || !slices.Equal(b.Settings.Ablate, []trace.Head{hd(1, 2), hd(3, 0)}) || len(h.fake.last.Ablate) != 2 {
		t.Fatalf("rerun settings %+v, engine got ablate %v", b.Settings, h.fake.last.Ablate)
	}
	if b.Prompt != a.Prompt || b.Settings.MaxTokens != a.Settings.MaxTokens {
		t.Fatalf("the rerun changed the prompt or settings: %+v", b)
	}
	if h.u.menus.currentPanel() != "compare" {
		t.Errorf("tab %q after the rerun, want compare", h.u.menus.currentPanel())
	}
	c, ok := h.u.compare.Comparison()
	if !ok || c.A != a || c.B != b {
		t.Fatalf("comparison %v: A %p B %p", ok, c.A, c.B)
	}
	// The fake lowers the first token's probability by 1 point a head and
	// moves the later tokens: same first token, divergence at the second.
	if c.Delta.Pos != 7 || !strings.Contains(views.DeltaLine(c.Delta), "50.0 % ⟶ 48.0 %") || c.FirstA != 8 {
		t.Fatalf("Δp at %d: %q, first divergence %d", c.Delta.Pos, views.DeltaLine(c.Delta), c.FirstA)
	}
	if h.u.compare.TopA.Len() != 10 || h.u.compare.TopB.Len() != 10 || h.u.compare.Times.Len() != 2 {
		t.Errorf("top lists %d / %d, timing rows %d", h.u.compare.TopA.Len(), h.u.compare.TopB.Len(), h.u.compare.Times.Len())
	}
	if !strings.Contains(h.u.compare.Kind.Text, "2 heads switched off") || !strings.Contains(h.u.compare.Kind.Text, "1:2, 3:0") {
		t.Errorf("kind %q", h.u.compare.Kind.Text)
	}
	h.u.compareStep(8)
	if c, _ := h.u.compare.Comparison(); c.Delta.Pos != 8 || !c.Delta.Diverged {
		t.Errorf("step 8: %+v", c.Delta)
	}
	// A second rerun from B (which has heads off) compares with the same A.
	h.u.st.Heads = []trace.Head{hd(0, 0)}
	h.u.switchOff()
	h.wait()
	if c, _ := h.u.compare.Comparison(); c.A != a || len(c.B.Settings.Ablate) != 1 {
		t.Errorf("second rerun compared %p (ablate %v) with %p, want A %p", c.B, c.B.Settings.Ablate, c.A, a)
	}
}

func TestHeadsFieldTyped(t *testing.T) {
	h := skewHarness(t)
	h.u.bar.Heads.SetText("2:3, 0:7")
	if want := []trace.Head{hd(2, 3), hd(0, 7)}; !slices.Equal(h.u.st.Heads, want) {
		t.Fatalf("typed heads %v, want %v", h.u.st.Heads, want)
	}
	h.u.bar.Heads.SetText("2:3, 9:0") // layer 9 of 4: refused, named
	if !strings.Contains(h.u.bar.Help.Text, "layer 9 is out of range") || len(h.u.st.Heads) != 2 {
		t.Fatalf("help %q, heads %v", h.u.bar.Help.Text, h.u.st.Heads)
	}
}

// The preset selects the N cells of the grid with the largest share on
// the source (checked against the fake's own shares), then reruns.
func TestPresetTopHeads(t *testing.T) {
	h := skewHarness(t)
	h.u.stream.Select(6)
	h.u.stream.Choose(1) // the source: key 1, where the fake's heads differ
	h.u.bar.N.SetText("5")
	test.Tap(h.u.bar.Top)
	h.wait()
	type cell struct {
		hd trace.Head
		v  float32
	}
	var all []cell
	for l := range h.fake.layers {
		for k := range h.fake.heads {
			all = append(all, cell{hd(l, k), h.fake.skewShare(l, k)})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v > all[j].v })
	got := h.u.st.Heads
	if len(got) != 5 {
		t.Fatalf("%d heads, want 5", len(got))
	}
	for _, c := range all[5:] {
		for _, g := range got {
			if h.fake.skewShare(g.Layer, g.Head) < c.v {
				t.Fatalf("head %v (%.3f) chosen over %v (%.3f)", g, h.fake.skewShare(g.Layer, g.Head), c.hd, c.v)
			}
		}
	}
	if !slices.Equal(h.u.st.LastRun.Settings.Ablate, got) || !strings.Contains(h.u.compare.Kind.Text, "look most at") {
		t.Errorf("rerun ablate %v; kind %q", h.u.st.LastRun.Settings.Ablate, h.u.compare.Kind.Text)
	}
}

func TestPresetRandomHeads(t *testing.T) {
	h := skewHarness(t)
	h.u.bar.N.SetText("10")
	h.u.bar.Seed.SetText("7")
	test.Tap(h.u.bar.Random)
	h.wait()
	want := stats.RandomHeads(4, 8, 10, 7)
	if !slices.Equal(h.u.st.Heads, want) || !slices.Equal(h.u.st.LastRun.Settings.Ablate, want) {
		t.Fatalf("random heads %v, rerun %v, want %v", h.u.st.Heads, h.u.st.LastRun.Settings.Ablate, want)
	}
	if !strings.Contains(h.u.compare.Kind.Text, "seed 7") || !strings.Contains(h.u.bar.Heads.Text, trace.FormatHeads(want, 0)) {
		t.Errorf("kind %q, field %q", h.u.compare.Kind.Text, h.u.bar.Heads.Text)
	}
}

// A variant with one word changed lines up token for token: grids A, B
// and B − A for the last prompt token on the changed word.
func TestVariantPrompt(t *testing.T) {
	h := skewHarness(t)
	a := h.u.st.LastRun
	h.u.runVariant(a, "My cat is friends . But my")
	h.wait()
	c, ok := h.u.compare.Comparison()
	if !ok || c.A != a || c.B.Prompt != "My cat is friends . But my" {
		t.Fatalf("comparison %v", ok)
	}
	if !c.Align.Substituted || c.QueryA != 6 || c.QueryB != 6 || c.SourceB != 3 || !c.HasGrids {
		t.Fatalf("alignment %+v, query %d→%d, source %d→%d, grids %v (%s)", c.Align, c.QueryA, c.QueryB, c.SourceA, c.SourceB, c.HasGrids, c.GridNote)
	}
	if !strings.Contains(h.u.compare.AlignNote.Text, "«·purple» in A, «·friends» in B") {
		t.Errorf("alignment note %q", h.u.compare.AlignNote.Text)
	}
	h.u.runVariant(a, "My cat is very purple . But my") // one token more
	h.wait()
	if c, _ := h.u.compare.Comparison(); !strings.Contains(h.u.compare.AlignNote.Text, "do not align") || c.Align.Substituted {
		t.Errorf("unaligned variant: %q", h.u.compare.AlignNote.Text)
	}
}

// Any two runs of the history: greedy and sampled, side by side.
func TestCompareAnyTwoRuns(t *testing.T) {
	h := skewHarness(t)
	h.u.controls.Mode.SetValue(views.Sampling)
	h.generate(catPrompt, 4)
	if len(h.u.st.Runs) != 2 {
		t.Fatalf("%d runs in the history", len(h.u.st.Runs))
	}
	h.u.tabs.SelectIndex(len(h.u.tabs.Items) - 1)
	h.u.compare.SelA.SetSelectedIndex(0)
	h.u.compare.SelB.SetSelectedIndex(1)
	c, ok := h.u.compare.Comparison()
	if !ok || c.A != h.u.st.Runs[0] || c.B != h.u.st.Runs[1] || !strings.Contains(h.u.compare.Kind.Text, "decoding (greedy in A, sampled") {
		t.Fatalf("comparison %v, kind %q", ok, h.u.compare.Kind.Text)
	}
}

// Every panel's CSV names the model, prompt and position, and its table
// holds the panel's numbers.
func TestCSVRoundTrip(t *testing.T) {
	h := skewHarness(t)
	h.u.stream.Select(6)
	h.u.stream.Choose(1)
	data, err := h.u.csvData("attention")
	if err != nil {
		t.Fatal(err)
	}
	meta, table, err := views.ReadCSV(data)
	if err != nil {
		t.Fatal(err)
	}
	metaOf := func(meta [][]string, k string) []string {
		for _, r := range meta {
			if r[0] == k {
				return r[1:]
			}
		}
		return nil
	}
	if m := metaOf(meta, "model"); len(m) != 2 || m[0] != "fake" || metaOf(meta, "prompt")[0] != catPrompt ||
		metaOf(meta, "query position")[0] != "6" || metaOf(meta, "source position")[0] != "1" {
		t.Fatalf("header %v", meta)
	}
	if len(table) != 1+4*8 || table[0][2] != "share_on_source" {
		t.Fatalf("table has %d rows, header %v", len(table), table[0])
	}
	for _, r := range table[1:] {
		l, _ := strconv.Atoi(r[0])
		hd, _ := strconv.Atoi(r[1])
		v, _ := strconv.ParseFloat(r[2], 64)
		if float32(v) != h.fake.skewShare(l, hd) {
			t.Fatalf("layer %d head %d: CSV %g, fake %g", l, hd, v, h.fake.skewShare(l, hd))
		}
	}
	for _, panel := range []string{"head", "next-token", "timing", "model"} {
		data, err := h.u.csvData(panel)
		if err != nil {
			t.Fatalf("%s: %v", panel, err)
		}
		if _, table, err := views.ReadCSV(data); err != nil || len(table) < 2 {
			t.Fatalf("%s: %d rows, %v", panel, len(table), err)
		}
	}
	_, table, _ = views.ReadCSV(must(h.u.csvData("next-token")))
	if table[1][1] != strconv.Itoa(h.u.st.LastRun.Steps[0].Chosen.ID) || table[1][4] != "true" {
		t.Errorf("next-token CSV first row %v", table[1])
	}
	h.u.bar.Heads.SetText("1:1")
	h.u.switchOff()
	h.wait()
	_, table, err = views.ReadCSV(must(h.u.csvData("compare")))
	if err != nil {
		t.Fatal(err)
	}
	var pa, pb float64
	grids := 0
	for _, r := range table[1:] {
		switch {
		case r[0] == "delta" && r[1] == "A":
			pa, _ = strconv.ParseFloat(r[5], 64)
		case r[0] == "delta" && r[1] == "B":
			pb, _ = strconv.ParseFloat(r[5], 64)
		case r[0] == "grid":
			grids++
		}
	}
	if pa != 0.5 || pb != 0.49 || grids != 3*4*8 {
		t.Errorf("compare CSV: p %g → %g, %d grid cells", pa, pb, grids)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// A saved session reruns A and B and puts the selection back; a model
// that is missing or differs is refused with a clear message.
func TestSessionRoundTrip(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	os.MkdirAll(model, 0o755)
	os.WriteFile(filepath.Join(model, "config.json"), []byte(`{"hidden_size": 8}`), 0o644)
	os.WriteFile(filepath.Join(model, "model.safetensors"), append([]byte{4, 0, 0, 0, 0, 0, 0, 0}, "{}  "...), 0o644)
	h := newHarness(t, Options{Model: model})
	h.u.setNumbering(viz.FromZero)
	h.fake.skew = true
	h.fake.info = func(i *trace.ModelInfo) { i.Path = model }
	h.u.st.Info = h.fake.Info()
	h.generate(catPrompt, 4)
	h.u.stream.Select(6)
	h.u.stream.Choose(1)
	h.u.bar.Heads.SetText("1:2, 3:0")
	h.u.switchOff()
	h.wait()
	h.u.stream.Select(5)
	h.u.attn.Grid.OnTap(2, 6)
	s, err := h.u.sessionFile.session()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(s)
	path := filepath.Join(dir, "s.json")
	os.WriteFile(path, data, 0o644)
	if !strings.Contains(string(data), `"ablate":[{"layer":1,"head":2},{"layer":3,"head":0}]`) ||
		!strings.HasPrefix(s.Model.Fingerprint, "sha256:") || s.Selection.Query != 5 || s.Selection.Source != 1 {
		t.Fatalf("session %s", data)
	}

	h2 := newHarness(t, Options{Model: model})
	h2.u.setNumbering(viz.FromZero)
	h2.fake.skew = true
	h2.fake.info = h.fake.info
	h2.u.st.Info = h2.fake.Info()
	h2.u.sessionFile.openSession(path)
	h2.wait() // A
	h2.wait() // B
	c, ok := h2.u.compare.Comparison()
	if !ok || c.A.Prompt != catPrompt || !slices.Equal(c.B.Settings.Ablate, []trace.Head{hd(1, 2), hd(3, 0)}) {
		t.Fatalf("restored comparison %v: %+v", ok, c.B)
	}
	if l, k := h2.u.attn.OpenedHead(); l != 2 || k != 6 {
		t.Errorf("open head %d:%d after reopening, want 2:6", l, k)
	}
	if h2.u.st.Query != 5 || h2.u.st.Source != 1 || h2.u.bar.Heads.Text != "1:2, 3:0" {
		t.Errorf("restored query %d source %d heads %q", h2.u.st.Query, h2.u.st.Source, h2.u.bar.Heads.Text)
	}
	if views.DeltaLine(c.Delta) != views.DeltaLine(must2(h.u.compare.Comparison()).Delta) {
		t.Errorf("Δp %q after reopening, %q before", views.DeltaLine(c.Delta), views.DeltaLine(must2(h.u.compare.Comparison()).Delta))
	}

	// The weights change: the fingerprint differs, and --quit mode says so.
	os.WriteFile(filepath.Join(model, "model.safetensors"), append([]byte{4, 0, 0, 0, 0, 0, 0, 0}, `{"a"`...), 0o644)
	var errs []string
	h2.u.opt.Quit = true
	h2.u.onFail = func(title string, err error) { errs = append(errs, title+": "+err.Error()) }
	h2.u.sessionFile.openSession(path)
	if len(errs) != 1 || !strings.Contains(errs[0], "differs from the one this session was saved with") {
		t.Errorf("changed weights: %v", errs)
	}
	os.RemoveAll(model)
	h2.u.sessionFile.openSession(path)
	if len(errs) != 2 || !strings.Contains(errs[1], "is missing") {
		t.Errorf("missing model: %v", errs)
	}
	os.WriteFile(path, []byte(`{"format":"other"}`), 0o644)
	h2.u.sessionFile.openSession(path)
	if len(errs) != 3 || !strings.Contains(errs[2], "not a Loupe session") {
		t.Errorf("bad file: %v", errs)
	}
}

func must2(c views.Comparison, ok bool) views.Comparison { return c }

// --ablate top:N and --variant run after the first generation, from the
// last prompt token, and end on the Compare tab.
func TestAblateAndVariantFlags(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("Loupe")
	fake := newFake()
	fake.skew = true
	idle := make(chan struct{}, 16)
	opt := Options{Model: "/models/fake", Prompt: catPrompt, Generate: true, MaxTokens: 3, Threads: -1,
		Ablate: "top:3", Variant: "My cat is friends . But my", Source: "cat"}
	u := newUI(a, w, opt, func(string, func(float64, string)) (Backend, error) { return fake, nil })
	u.onIdle = func() { idle <- struct{}{} }
	w.Resize(fyne.NewSize(1400, 900))
	u.start()
	for range 3 { // A, B with heads off, the variant
		<-idle
	}
	if len(u.st.Runs) != 3 || len(u.st.Runs[1].Settings.Ablate) != 3 || u.st.Runs[2].Prompt != opt.Variant {
		t.Fatalf("%d runs", len(u.st.Runs))
	}
	top := stats.TopHeads(stats.SourceGrid(fake.attention(6), 1), 3)
	if !slices.Equal(u.st.Runs[1].Settings.Ablate, top) {
		t.Errorf("--ablate top:3 switched off %v, want the 3 largest cells %v", u.st.Runs[1].Settings.Ablate, top)
	}
	if c, ok := u.compare.Comparison(); !ok || c.A != u.st.Runs[0] || c.B != u.st.Runs[2] || u.menus.currentPanel() != "compare" {
		t.Errorf("final comparison %v, tab %s", ok, u.menus.currentPanel())
	}
}

func TestSourcePos(t *testing.T) {
	r := &trace.Run{Prompt: "My cat is purple.", Tokens: []trace.Token{{Text: "My"}, {Text: " c"}, {Text: "at"}, {Text: " is"},
		{Text: " pur"}, {Text: "ple"}, {Text: "."}, {Text: " x", Generated: true}}}
	for spec, want := range map[string]int{"purple": 4, "cat": 1, "3": 3, ".": 6, "9": -1, "green": -1, "": -1} {
		if got := sourcePos(r, spec); got != want {
			t.Errorf("sourcePos(%q) = %d, want %d", spec, got, want)
		}
	}
}

// Counting from 1 (the article's way, the default), the heads field and
// the grid's cells agree: Ctrl+click on index (1, 2) writes 2:3, and
// typing 4:1 selects index (3, 0).
func TestHeadsCountedFromOne(t *testing.T) {
	h := skewHarness(t)
	h.u.setNumbering(viz.FromOne)
	h.u.stream.Select(6)
	clickCell(h.u.attn.Grid, 1, 2, true)
	if h.u.bar.Heads.Text != "2:3" {
		t.Fatalf("heads field %q counting from 1, want 2:3", h.u.bar.Heads.Text)
	}
	h.u.bar.Heads.SetText("2:3, 4:1")
	if want := []trace.Head{hd(1, 2), hd(3, 0)}; !slices.Equal(h.u.st.Heads, want) {
		t.Fatalf("typed heads %v, want %v", h.u.st.Heads, want)
	}
	h.u.setNumbering(viz.FromZero)
	if h.u.bar.Heads.Text != "1:2, 3:0" {
		t.Errorf("after View › Count from 0 the field reads %q", h.u.bar.Heads.Text)
	}
	h.u.setNumbering(viz.FromOne)
	h.u.switchOff()
	h.wait()
	if !strings.Contains(h.u.compare.Kind.Text, "2:3, 4:1 (layer:head, counted from 1)") {
		t.Errorf("kind %q", h.u.compare.Kind.Text)
	}
}

// Switching heads off after a chat turn reruns the same conversation
// (template, stops) with the heads off: the run equals the engine's own
// GenerateChat with Ablate, and the conversation keeps its one turn.
func TestAblateChatTurn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny-qwen3")
	if err := genmodel.Write(dir, "tiny-qwen3", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Model: dir, Chat: true}, loadEngine)
	h.u.setNumbering(viz.FromZero)
	h.u.controls.Mode.SetValue(views.Greedy)
	h.generate("What is the capital of France?", 4)
	a := h.u.st.LastRun
	h.u.bar.Heads.SetText("1:0")
	h.u.switchOff()
	h.wait()
	b := h.u.st.LastRun
	if b == a || len(b.Messages) != 1 || len(h.u.st.Turns) != 2 || b.Prompt != a.Prompt {
		t.Fatalf("rerun: messages %d, turns %d, same prompt %v", len(b.Messages), len(h.u.st.Turns), b.Prompt == a.Prompt)
	}
	cb := h.u.backend.(ChatBackend)
	opt := generateOptions(b.Settings, h.u.st.Info, stats.PromptLen(b))
	opt.Ablate = []trace.Head{hd(1, 0)}
	want, err := cb.GenerateChat(context.Background(), a.Messages, map[string]chat.Think{"on": chat.ThinkOn, "off": chat.ThinkOff}[a.Think], opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Steps) != len(b.Steps) {
		t.Fatalf("%d steps, engine %d", len(b.Steps), len(want.Steps))
	}
	for i := range want.Steps {
		if want.Steps[i].Chosen != b.Steps[i].Chosen {
			t.Fatalf("step %d: window %+v, engine %+v", i, b.Steps[i].Chosen, want.Steps[i].Chosen)
		}
	}
}
