package app

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"loupe/assets"
	"loupe/engine"
	"loupe/engine/genmodel"
	"loupe/engine/safetensors"
	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
	"loupe/viz"
)

// settleJobs waits until no Inspect job runs and none has a result on its
// way. Under Fyne's test driver a job's fyne.Do runs on the job's own
// goroutine, so the tests let it finish before they touch widgets again.
func (h *harness) settleJobs() {
	in := h.u.insideJobs
	for {
		in.mu.Lock()
		last := in.ended
		in.mu.Unlock()
		if last == nil {
			return
		}
		<-last
		in.mu.Lock()
		same := in.ended == last
		in.mu.Unlock()
		if same {
			return
		}
	}
}

// show and selectToken let the jobs finish, then act.
func (h *harness) show(tab string) { h.settleJobs(); h.u.showTab(tab) }

// selectToken clicks pos as the UI goroutine would: a job the click
// starts may end (and draw) before the click has drawn everything.
func (h *harness) selectToken(pos int) {
	h.settleJobs()
	onUI(func() { h.u.stream.Select(pos) })
}

// until lets the jobs finish, then checks cond. A job's result comes
// through fyne.Do, which the test driver runs on the job's goroutine
// before the job's end is signalled, and a job that starts the next one
// does so inside that call: once settleJobs returns, nothing is on its way.
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	h.settleJobs()
	if !cond() {
		h.t.Fatalf("no %s once the background jobs were done", what)
	}
}

// On the real demo model, each new tab shows its data for the selected
// token; the logit lens, the KV rows and the attention of an uncaptured
// position come from Inspect once the run is over.
func TestInsideTabs(t *testing.T) {
	dir, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := engineHarness(t, dir)
	h.generate("ROMEO:\nBut soft, what light", 4)
	h.settleJobs()
	run := h.u.st.LastRun
	prompt := firstGenerated(run.Tokens)
	in := h.u.inside
	h.selectToken(prompt - 1)

	h.show("embedding")
	tok, values := in.embed.Values()
	if tok.Pos != prompt-1 || len(values) != h.u.st.Info.Hidden || !strings.Contains(in.embed.Shape.Text, "of "+format.Thousands(h.u.st.Info.Vocab)) {
		t.Errorf("embedding: %+v, %d numbers, %q", tok, len(values), in.embed.Shape.Text)
	}

	h.show("logit-lens")
	h.until("the logit lens", func() bool { _, l := in.lens.Lens(); return len(l) == h.u.st.Info.Layers })
	_, lens := in.lens.Lens()
	// The last layer's lens is the step's own distribution: same top token.
	if s := run.Steps[0]; lens[len(lens)-1].Top[0].ID != s.Top[0].ID {
		t.Errorf("last layer's lens top %d, the step's top %d", lens[len(lens)-1].Top[0].ID, s.Top[0].ID)
	}
	if in.lens.Lead.Text == "" || in.lens.Figure() == nil {
		t.Error("no lead sentence or figure")
	}

	h.show("kv-cache")
	h.until("the KV rows", func() bool { return len(in.kv.Rows().Keys) > 0 })
	// All but the last token, which the run never read (once the run ends
	// the selection is the last prompt token, whose attention was captured:
	// nothing was recomputed that would write the newest token's row).
	if n := len(in.kv.Rows().Keys); n != len(run.Tokens)-1 {
		t.Errorf("KV rows of %d tokens, want %d (all but the newest, never read)", n, len(run.Tokens)-1)
	}
	if !strings.Contains(in.kv.Totals.Text, "at 4,096 tokens") || !strings.Contains(in.kv.Totals.Text, "at 32,000 tokens") {
		t.Errorf("totals %q", in.kv.Totals.Text)
	}
	h.settleJobs()
	in.kv.KVHead.SetSelectedIndex(1) // another head: read again
	h.until("the other head", func() bool { return in.kv.Rows().KVHead == 1 })

	h.show("sampler")
	if st, ok := in.sampler.Step(); !ok || st.Stages == nil || !st.Stages.Greedy {
		t.Errorf("sampler: %+v %v", st.Stages, ok)
	}
	if !strings.Contains(in.sampler.Title.Text, "Greedy") {
		t.Errorf("greedy not said: %q", in.sampler.Title.Text)
	}
	if !strings.Contains(h.u.next.Dist.Text, "Greedy decoding takes the first") {
		t.Errorf("next-token distribution note %q", h.u.next.Dist.Text)
	}

	// The last token was never read by the run, so its attention was not
	// captured: recomputed on demand on the Attention tab.
	h.show("attention")
	last := len(run.Tokens) - 1
	if _, ok := stats.AttentionAt(run.Attention, last); ok {
		t.Fatal("the last token's attention was captured: the test needs another position")
	}
	h.selectToken(last)
	h.until("recomputed attention", func() bool { return strings.Contains(h.u.attn.Title.Text, "recomputed on demand") })
	if !h.u.attn.HasData() {
		t.Errorf("no grid: %q", h.u.attn.Title.Text)
	}
	for _, panel := range []string{"embedding", "kv-cache", "logit-lens", "sampler"} {
		if f, ok := h.u.figure(panel); !ok || f == nil {
			t.Errorf("no export figure for %s", panel)
		}
	}
	// Counting from 0 changes the names, in the panels and the exports.
	h.u.setNumbering(viz.FromZero)
	defer h.u.setNumbering(viz.FromOne)
	if h.u.st.Count != viz.FromZero || !strings.Contains(h.u.vizTheme().Count.String(), "0") {
		t.Error("numbering not applied")
	}
	if !strings.Contains(h.u.attn.Caption.Text, "layers 0…") {
		t.Errorf("the attention panel still counts from 1: %q", h.u.attn.Caption.Text)
	}
}

// The CSV of each new tab holds the run's real numbers: read back and
// checked against the model file (embedding), the engine's own Inspect of
// the position (logit lens, keys and values) and the run's trace (sampler
// stages), not against the panels.
func TestInsideCSV(t *testing.T) {
	dir, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := engineHarness(t, dir)
	h.u.controls.Mode.SetValue(views.Sampling)
	h.u.controls.Temperature.SetText("1.5") // several candidates survive every stage
	h.u.controls.TopK.SetText("8")
	h.generate("ROMEO:\nBut soft, what light", 4)
	h.settleJobs()
	run := h.u.st.LastRun
	in := h.u.inside
	q := firstGenerated(run.Tokens) // the first generated token: it has stages, a lens and cached keys before it
	h.selectToken(q)

	h.show("embedding")
	tok := run.Tokens[q]
	meta, table := csvOf(t, h, "embedding")
	if m := metaValue(meta, "table shape (rows × numbers)"); len(m) != 2 || m[0] != fmt.Sprint(h.u.st.Info.Vocab) || m[1] != fmt.Sprint(h.u.st.Info.Hidden) {
		t.Errorf("shape %v", m)
	}
	if m := metaValue(meta, "token id (the row)"); len(m) != 1 || m[0] != fmt.Sprint(tok.ID) {
		t.Errorf("row %v, token %d", m, tok.ID)
	}
	want := embeddingRowFromFile(t, dir, tok.ID, h.u.st.Info.Hidden)
	if len(table) != 1+len(want) || strings.Join(table[0], ",") != "index,value" {
		t.Fatalf("embedding table: %d rows, header %v", len(table), table[0])
	}
	for i, r := range table[1:] {
		if r[0] != fmt.Sprint(i) || float32(parseF(t, r[1])) != want[i] {
			t.Fatalf("embedding row %d: CSV %v, file %g", i, r, want[i])
		}
	}

	h.show("logit-lens")
	h.until("the logit lens", func() bool { tk, l := in.lens.Lens(); return tk.Pos == q && len(l) > 0 })
	h.show("kv-cache")
	h.until("the KV rows", func() bool { return len(in.kv.Rows().Keys) > 0 })
	h.u.insideJobs.waitInspect()
	layer, kvHead := in.kv.Chosen()
	ids := make([]int, len(run.Tokens))
	for i, t := range run.Tokens {
		ids[i] = t.ID
	}
	ref, err := h.u.backend.(Inspector).Inspect(context.Background(), ids, q, engine.InspectOptions{Layer: layer, KVHead: kvHead})
	if err != nil {
		t.Fatal(err)
	}

	h.show("logit-lens")
	_, table = csvOf(t, h, "logit-lens")
	if len(table) != 1+5*h.u.st.Info.Layers || strings.Join(table[0], ",") != "layer,rank,id,text,p,final_choice" {
		t.Fatalf("lens table: %d rows, header %v", len(table), table[0])
	}
	choice := run.Steps[1].Chosen.ID // the token written after q
	for i, r := range table[1:] {
		l, k := i/5, i%5
		c := ref.Lens[l].Top[k]
		if r[0] != fmt.Sprint(l+1) || r[1] != fmt.Sprint(k+1) || r[2] != fmt.Sprint(c.ID) || math.Abs(parseF(t, r[4])-c.P) > 1e-6 ||
			r[5] != fmt.Sprint(c.ID == choice) {
			t.Fatalf("lens layer %d rank %d: CSV %v, Inspect %+v", l+1, k+1, r, c)
		}
	}

	h.show("kv-cache")
	meta, table = csvOf(t, h, "kv-cache")
	d := h.u.st.Info.HeadDim
	if metaValue(meta, "layer")[0] != fmt.Sprint(layer+1) || len(table[0]) != 2+2*d || table[0][2] != "key_0" || table[0][2+d] != "value_0" {
		t.Fatalf("kv header %v / %v", meta, table[0])
	}
	if len(table) != 1+len(in.kv.Rows().Keys) || len(table) < 1+len(run.Tokens)-1 {
		t.Errorf("kv table has %d token rows, the panel %d, the run %d tokens", len(table)-1, len(in.kv.Rows().Keys), len(run.Tokens))
	}
	for p := range ref.KV.Keys { // positions 0…q, as the engine's step at q read them
		r := table[1+p]
		for j := range d {
			if float32(parseF(t, r[2+j])) != ref.KV.Keys[p][j] || float32(parseF(t, r[2+d+j])) != ref.KV.Values[p][j] {
				t.Fatalf("kv position %d number %d: CSV %s/%s, Inspect %g/%g", p, j, r[2+j], r[2+d+j], ref.KV.Keys[p][j], ref.KV.Values[p][j])
			}
		}
	}

	h.show("sampler")
	meta, table = csvOf(t, h, "sampler")
	st := run.Steps[0].Stages
	if st == nil || st.Greedy {
		t.Fatalf("the run recorded no sampled stages: %+v", st)
	}
	if metaValue(meta, "greedy")[0] != "false" || metaValue(meta, "drawn id")[0] != fmt.Sprint(run.Steps[0].Chosen.ID) {
		t.Errorf("sampler header %v", meta)
	}
	if len(table) != 1+len(st.Candidates) || len(table[0]) != 4+len(st.Stages)+2 || table[0][4] != "p_after_"+st.Stages[0].Name {
		t.Fatalf("sampler table %d rows, header %v", len(table), table[0])
	}
	drawn := 0
	for i, r := range table[1:] {
		c := st.Candidates[i]
		if r[1] != fmt.Sprint(c.ID) || parseF(t, r[3]) != st.Logits[i] {
			t.Fatalf("sampler rank %d: %v, trace %+v logit %g", i+1, r, c, st.Logits[i])
		}
		for s, stage := range st.Stages {
			if parseF(t, r[4+s]) != stage.P[i] {
				t.Fatalf("sampler rank %d after %s: CSV %s, trace %g", i+1, stage.Name, r[4+s], stage.P[i])
			}
		}
		if r[len(r)-1] == "true" {
			drawn++
		}
	}
	if drawn != 1 {
		t.Errorf("%d rows marked drawn", drawn)
	}

	// A panel with nothing shown says so instead of writing an empty table.
	if _, err := h.u.csvData("deltanet"); err == nil {
		t.Error("deltanet CSV without a Gated DeltaNet model: no error")
	}
}

func csvOf(t *testing.T, h *harness, panel string) (meta, table [][]string) {
	t.Helper()
	data, err := h.u.csvData(panel)
	if err != nil {
		t.Fatalf("%s: %v", panel, err)
	}
	meta, table, err = views.ReadCSV(data)
	if err != nil {
		t.Fatalf("%s: %v", panel, err)
	}
	return meta, table
}

func metaValue(meta [][]string, k string) []string {
	for _, r := range meta {
		if r[0] == k {
			return r[1:]
		}
	}
	return []string{""}
}

func parseF(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return v
}

// embeddingRowFromFile reads row id of model.embed_tokens.weight from the
// model's safetensors file, apart from the engine's loader.
func embeddingRowFromFile(t *testing.T, dir string, id, hidden int) []float32 {
	t.Helper()
	set, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	w, ok := set.Tensor("model.embed_tokens.weight")
	if !ok {
		t.Fatal("no model.embed_tokens.weight")
	}
	all, err := w.F32()
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), all[id*hidden:(id+1)*hidden]...)
}

// The DeltaNet CSV of a hybrid model holds the run's α, β and state norms.
func TestDeltaNetCSV(t *testing.T) {
	dir := t.TempDir()
	if err := genmodel.Write(dir, "tiny-qwen35", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Model: dir}, loadEngine)
	defer h.u.backend.Close()
	h.generate("a b c d", 3)
	h.selectToken(2)
	h.show("deltanet")
	dn := h.u.st.LastRun.DeltaNet
	if len(dn) == 0 {
		t.Fatal("the run recorded no Gated DeltaNet values")
	}
	shown, ok := h.u.deltaNet.Shown()
	if !ok {
		t.Fatal("nothing shown on the DeltaNet tab")
	}
	var want trace.DeltaNet
	for _, d := range dn {
		if d.Layer == shown.Layer {
			want = d
		}
	}
	meta, table := csvOf(t, h, "deltanet")
	if metaValue(meta, "layer")[0] != fmt.Sprint(want.Layer+1) || strings.Join(table[0], ",") != "position,token,head,alpha,beta,state_norm" {
		t.Fatalf("header %v / %v", meta, table[0])
	}
	heads := len(want.Alpha[0])
	if len(table) != 1+len(want.Alpha)*heads {
		t.Fatalf("%d rows, want %d", len(table)-1, len(want.Alpha)*heads)
	}
	norms := 0
	for _, r := range table[1:] {
		p, _ := strconv.Atoi(r[0])
		hd, _ := strconv.Atoi(r[2])
		hd-- // counted from 1
		if float32(parseF(t, r[3])) != want.Alpha[p][hd] || float32(parseF(t, r[4])) != want.Beta[p][hd] {
			t.Fatalf("position %d head %d: %v, trace α %g β %g", p, hd, r, want.Alpha[p][hd], want.Beta[p][hd])
		}
		if r[5] != "" {
			norms++
			for i, sp := range want.StatePos {
				if sp == p && float32(parseF(t, r[5])) != want.StateNorm[i][hd] {
					t.Fatalf("state norm at %d head %d: %s, trace %g", p, hd, r[5], want.StateNorm[i][hd])
				}
			}
		}
	}
	if norms != len(want.StatePos)*heads {
		t.Errorf("%d state norms, trace has %d", norms, len(want.StatePos)*heads)
	}
}

// After a run the last prompt token is selected with its strongest
// source, as in the article. Clicked, the newest token is what the
// Attention and MLP tabs show: the token the run wrote last (never read by
// the run, so recomputed by Inspect), not the last one the run captured.
// Checked against the engine's own Inspect of that position.
func TestNewestTokenAfterRun(t *testing.T) {
	dir, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := engineHarness(t, dir)
	h.show("attention")
	h.generate("ROMEO:\nBut soft, what light", 4)
	h.settleJobs()
	run := h.u.st.LastRun
	last, prompt := len(run.Tokens)-1, stats.PromptLen(run)-1
	if h.u.stream.Selected() != prompt || h.u.st.Follow {
		t.Fatalf("selected %d (follow %v), want the last prompt token %d", h.u.stream.Selected(), h.u.st.Follow, prompt)
	}
	a, ok := stats.AttentionAt(run.Attention, prompt)
	if want := stats.StrongestSource(a); !ok || want < 1 || h.u.stream.Source() != want || h.u.attn.Source() != want {
		t.Fatalf("source %d (grid %d), want the strongest %d (captured %v)", h.u.stream.Source(), h.u.attn.Source(), want, ok)
	}
	h.selectToken(last) // a click on the newest token
	h.until("the newest token's attention", func() bool {
		return h.u.attn.HasData() && h.u.attn.Query() == last && strings.Contains(h.u.attn.Title.Text, "recomputed")
	})
	if title := h.u.attn.Title.Text; !strings.Contains(title, fmt.Sprintf("(position %d)", last)) ||
		!strings.Contains(title, "recomputed on demand") || strings.Contains(title, "next step") {
		t.Errorf("title %q", title)
	}
	if h.u.stream.Source() != h.u.attn.Source() {
		t.Errorf("stream outlines source %d, the grid shows %d", h.u.stream.Source(), h.u.attn.Source())
	}
	h.u.insideJobs.waitInspect()
	ids := make([]int, len(run.Tokens))
	for i, t := range run.Tokens {
		ids[i] = t.ID
	}
	ref, err := h.u.backend.(Inspector).Inspect(context.Background(), ids, last, engine.InspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ = stats.AttentionAt(append(append([]trace.Attention(nil), h.u.st.Attention...), ref.Attention), last)
	src := h.u.attn.Source()
	for l, row := range stats.SourceGrid(a, src) {
		for hd, v := range row {
			if got := ref.Attention.Weights[l][hd][src]; float64(got) != v {
				t.Fatalf("layer %d head %d: shown %g, Inspect %g", l, hd, v, got)
			}
		}
	}
	// The CSV export of the grid is of that token too.
	meta, _ := csvOf(t, h, "attention")
	if q := metaValue(meta, "query position"); q[0] != fmt.Sprint(last) {
		t.Errorf("CSV query position %v, want %d", q, last)
	}

	h.show("mlp")
	h.until("the newest token's MLP", func() bool {
		m, ok := h.u.mlp.Shown()
		return ok && m.Pos == last && strings.Contains(h.u.mlp.Title.Text, "recomputed")
	})
	m, _ := h.u.mlp.Shown()
	for _, r := range ref.MLP {
		if r.Layer == m.Layer && !slices.Equal(r.Values, m.Values) {
			t.Errorf("MLP of layer %d differs from Inspect's", m.Layer)
		}
	}
	if !strings.Contains(h.u.mlp.Title.Text, "recomputed on demand") {
		t.Errorf("MLP title %q", h.u.mlp.Title.Text)
	}
}

// On a hybrid model the recomputed attention of the newest token draws
// the DeltaNet layers as labelled gaps, as the run's captures do, not as
// rows of zeros.
func TestRecomputedAttentionHybridGaps(t *testing.T) {
	dir := t.TempDir()
	if err := genmodel.Write(dir, "tiny-qwen35", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := engineHarness(t, dir)
	h.show("attention")
	h.generate("a b c d", 3)
	h.selectToken(len(h.u.st.Tokens) - 1) // the newest token, never read by the run
	h.until("the newest token's attention", func() bool { return strings.Contains(h.u.attn.Title.Text, "recomputed") })
	deltaNet := 0
	for l := range h.u.st.Info.Layers {
		_, gap := h.u.attn.Grid.Gaps[l]
		if gap != !h.u.st.Info.HasAttention(l) {
			t.Errorf("layer %d: gap %v, has attention %v", l, gap, h.u.st.Info.HasAttention(l))
		}
		if !h.u.st.Info.HasAttention(l) {
			deltaNet++
		}
	}
	if deltaNet == 0 {
		t.Fatal("tiny-qwen35 has no DeltaNet layer: the test checks nothing")
	}
}
