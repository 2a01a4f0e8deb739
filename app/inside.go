package app

import (
	"context"
	"fmt"
	"sync"

	"fyne.io/fyne/v2"

	"loupe/engine"
	"loupe/trace"
	"loupe/views"
)

// Inspector is what the Embedding, KV cache and Logit lens panels need
// from the model, besides Backend; *engine.Model has it. The window and
// `loupe inspect` call the same engine functions.
type Inspector interface {
	Inspect(ctx context.Context, ids []int, pos int, opt engine.InspectOptions) (*trace.Inspection, error)
	KVRows(layer, kvHead, n int) trace.KVRows
	CachedTokens() int
	Embedding(id int) []float32
}

var _ Inspector = (*engine.Model)(nil)

// samplerStagesShown is how many candidates' sampler stages a run records.
const samplerStagesShown = 12

// inside holds the panels of the model's insides and the background job
// that recomputes a position (engine.Model.Inspect: one decode step
// against the run's KV cache) or reads the cache. One job at a time; a
// generation waits for it (waitInspect) so the model is never used twice
// at once.
type inside struct {
	embed   *views.EmbeddingPanel
	kv      *views.KVCachePanel
	lens    *views.LogitLensPanel
	sampler *views.SamplerPanel

	settings trace.Settings // of the run shown

	mu     sync.Mutex // guards cancel, done and last (work() waits from its goroutine)
	cancel context.CancelFunc
	done   chan struct{}
	ended  chan struct{} // the latest job's, kept: closed once its result is delivered too (tests)

	pending, shown jobKey
	result         *trace.Inspection
	rows           trace.KVRows
	err            error
}

// jobKey names a job: the run, the position, and the KV rows asked for.
type jobKey struct {
	run           *trace.Run
	pos           int // -1: no Inspect, KV rows only
	layer, kvHead int
}

// newInside makes the panels; export names: embedding, kv-cache,
// logit-lens, sampler.
func (u *UI) newInside() *inside {
	in := &inside{embed: views.NewEmbeddingPanel(), kv: views.NewKVCachePanel(), lens: views.NewLogitLensPanel(), sampler: views.NewSamplerPanel()}
	in.embed.OnExport = guard1(u, func(f string) { u.export("embedding", f) })
	in.kv.OnExport = guard1(u, func(f string) { u.export("kv-cache", f) })
	in.lens.OnExport = guard1(u, func(f string) { u.export("logit-lens", f) })
	in.sampler.OnExport = guard1(u, func(f string) { u.export("sampler", f) })
	in.kv.OnChoose = func(int, int) { defer u.rescue(); u.dirty = true; u.refreshPanels() }
	in.pending.pos, in.shown.pos = -2, -2
	return in
}

// insideTabs are the panels' tabs, in order.
func (in *inside) tabs() []struct {
	name string
	obj  fyne.CanvasObject
} {
	return []struct {
		name string
		obj  fyne.CanvasObject
	}{{"embedding", in.embed}, {"kv-cache", in.kv}, {"logit-lens", in.lens}, {"sampler", in.sampler}}
}

// selected reports whether obj is the tab on screen.
func (u *UI) selected(obj fyne.CanvasObject) bool {
	return u.tabs.Selected() != nil && u.tabs.Selected().Content == obj
}

// refreshInside redraws the panel on screen among these, and the attention
// of a position the run did not capture (recomputed by Inspect).
func (u *UI) refreshInside() {
	in, q := u.inside, u.query
	if q < 0 || q >= len(u.tokens) {
		return
	}
	if u.lastRun != nil && !u.running {
		in.settings = u.lastRun.Settings
	}
	insp, _ := u.backend.(Inspector)
	tok := u.tokens[q]
	switch {
	case u.selected(in.embed):
		var row []float32
		if insp != nil {
			row = insp.Embedding(tok.ID) // read-only weights: safe beside a generation
		}
		in.embed.Display(tok, row, u.info.Vocab, u.info.TiedEmbeddings)
	case u.selected(in.sampler):
		in.sampler.Display(u.tokens, u.steps, q, in.settings)
	case u.selected(in.kv):
		in.kv.SetModel(u.info)
		in.kv.SetLive(max(0, len(u.tokens)-1), u.running)
		l, g := in.kv.Chosen()
		switch {
		case u.running:
			in.kv.Display(u.tokens, trace.KVRows{})
			in.kv.Title.SetText("The keys and values are read when the generation ends (the model is busy writing them).")
		case in.shown.run == u.lastRun && in.shown.layer == l && in.shown.kvHead == g && len(in.rows.Keys) > 0:
			in.kv.Display(u.tokens, in.rows)
		default:
			u.startJob(jobKey{run: u.lastRun, pos: -1, layer: l, kvHead: g})
		}
	case u.selected(in.lens):
		choice := -1 // the token chosen after q; none after the last one: the lens's own top
		for _, s := range u.steps {
			if s.Pos == q+1 {
				choice = s.Chosen.ID
			}
		}
		switch {
		case u.running:
			in.lens.Waiting("The logit lens is computed when the generation ends: the model is busy.")
		case in.result != nil && in.shown.run == u.lastRun && in.result.Pos == q:
			in.lens.Display(tok, in.result.Lens, choice)
		case in.err != nil && in.shown.run == u.lastRun && in.shown.pos == q:
			in.lens.Waiting("Could not compute the logit lens: " + in.err.Error())
		default:
			in.lens.Waiting(fmt.Sprintf("Computing the logit lens of position %d (one step of the model)…", q))
			l, g := in.kv.Chosen()
			u.startJob(jobKey{run: u.lastRun, pos: q, layer: l, kvHead: g})
		}
	}
	u.attentionOnDemand(q)
	u.mlpOnDemand(q)
}

// onDemand reports whether a position the run did not capture can be
// recomputed now: the run is over and the model can Inspect.
func (u *UI) onDemand() bool {
	_, ok := u.backend.(Inspector)
	return ok && inspectJobs && !u.running && u.lastRun != nil
}

// mlpOnDemand shows, on the MLP tab, the values of a position the run did
// not capture (the newest token, or one past the capture budget),
// recomputed by Inspect once the run is over.
func (u *UI) mlpOnDemand(q int) {
	in := u.inside
	if _, ok := u.mlp.Shown(); ok || !u.selected(u.mlp) || !u.onDemand() {
		return
	}
	if in.result != nil && in.shown.run == u.lastRun && in.result.Pos == q {
		u.mlp.Display(u.tokens, append(append([]trace.MLP(nil), u.mlps...), in.result.MLP...), u.info.Layers, q)
		if _, ok := u.mlp.Shown(); ok {
			u.mlp.Title.SetText(u.mlp.Title.Text + " — recomputed on demand")
		}
		return
	}
	l, g := in.kv.Chosen()
	u.startJob(jobKey{run: u.lastRun, pos: q, layer: l, kvHead: g})
	u.mlp.Title.SetText(fmt.Sprintf("Computing the MLP of position %d (one step of the model against the cache)…", q))
}

// attentionOnDemand shows, on the Attention tab, the attention of a
// position the run did not capture, recomputed by Inspect once the run is
// over: any prompt position, whatever the prompt's length.
func (u *UI) attentionOnDemand(q int) {
	in := u.inside
	if u.running || u.attn.HasData() || !u.selected(u.attnTab()) {
		return
	}
	if in.result != nil && in.shown.run == u.lastRun && in.result.Pos == q {
		att := append(append([]trace.Attention(nil), u.attention...), in.result.Attention)
		u.attn.Display(u.info, u.tokens, att, q, u.source)
		if u.attn.HasData() {
			u.attn.Title.SetText(u.attn.Title.Text + " — recomputed on demand")
			if u.attn.Source() != u.stream.Source() {
				u.stream.SetSource(u.attn.Source()) // outlined in the stream, as for a captured one
			}
		}
		return
	}
	if _, ok := u.backend.(Inspector); ok && u.lastRun != nil {
		l, g := in.kv.Chosen()
		u.startJob(jobKey{run: u.lastRun, pos: q, layer: l, kvHead: g})
		u.attn.Title.SetText(fmt.Sprintf("Computing the attention of position %d (one step of the model against the cache)…", q))
	}
}

// attnTab is the Attention tab's content.
func (u *UI) attnTab() fyne.CanvasObject {
	if len(u.tabs.Items) == 0 {
		return nil
	}
	return u.tabs.Items[0].Content
}
