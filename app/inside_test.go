package app

import (
	"strings"
	"testing"
	"time"

	"loupe/assets"
	"loupe/views"
	"loupe/viz"
)

// eventually polls cond for up to 20 s (the background job's result comes
// through fyne.Do).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// On the real demo model, each new tab shows its data for the selected
// token; the logit lens, the KV rows and the attention of an uncaptured
// position come from Inspect once the run is over.
func TestInsideTabs(t *testing.T) {
	dir, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	inspectJobs = true
	defer func() { inspectJobs = false }()
	h := newHarnessWith(t, Options{Model: dir}, loadEngine)
	defer h.u.backend.Close()
	defer h.u.waitInspect() // no job outlives the test
	h.generate("ROMEO:\nBut soft, what light", 4)
	run := h.u.lastRun
	prompt := firstGenerated(run.Tokens)
	in := h.u.inside
	h.u.stream.Select(prompt - 1)

	h.u.showTab("embedding")
	tok, values := in.embed.Values()
	if tok.Pos != prompt-1 || len(values) != h.u.info.Hidden || !strings.Contains(in.embed.Shape.Text, "of "+viz.Thousands(int64(h.u.info.Vocab))) {
		t.Errorf("embedding: %+v, %d numbers, %q", tok, len(values), in.embed.Shape.Text)
	}

	h.u.showTab("logit-lens")
	eventually(t, "the logit lens", func() bool { _, l := in.lens.Lens(); return len(l) == h.u.info.Layers })
	_, lens := in.lens.Lens()
	// The last layer's lens is the step's own distribution: same top token.
	if s := run.Steps[0]; lens[len(lens)-1].Top[0].ID != s.Top[0].ID {
		t.Errorf("last layer's lens top %d, the step's top %d", lens[len(lens)-1].Top[0].ID, s.Top[0].ID)
	}
	if in.lens.Lead.Text == "" || in.lens.Figure() == nil {
		t.Error("no lead sentence or figure")
	}

	h.u.showTab("kv-cache")
	eventually(t, "the KV rows", func() bool { return len(in.kv.Rows().Keys) > 0 })
	if n := len(in.kv.Rows().Keys); n != len(run.Tokens)-1 {
		t.Errorf("KV rows of %d tokens, want %d (all but the last, never read)", n, len(run.Tokens)-1)
	}
	if !strings.Contains(in.kv.Totals.Text, "at 4,096 tokens") || !strings.Contains(in.kv.Totals.Text, "at 32,000 tokens") {
		t.Errorf("totals %q", in.kv.Totals.Text)
	}
	in.kv.KVHead.SetSelectedIndex(1) // another head: read again
	eventually(t, "the other head", func() bool { return in.kv.Rows().KVHead == 1 })

	h.u.showTab("sampler")
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
	h.u.showTab("attention")
	last := len(run.Tokens) - 1
	if _, ok := views.AttentionAt(run.Attention, last); ok {
		t.Fatal("the last token's attention was captured: the test needs another position")
	}
	h.u.stream.Select(last)
	eventually(t, "recomputed attention", func() bool { return strings.Contains(h.u.attn.Title.Text, "recomputed on demand") })
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
	if views.Numbers != viz.FromZero || !strings.Contains(h.u.vizTheme().Count.String(), "0") {
		t.Error("numbering not applied")
	}
}
