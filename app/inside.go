package app

import (
	"context"
	"sync"

	"fyne.io/fyne/v2"

	"loupe/engine"
	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/views"
)

// insideJobs fill the Embedding, KV cache, Logit lens and Sampler tabs
// and recompute, once a run is over, what it did not capture: the
// background job that recomputes a position (engine.Model.Inspect: one
// decode step against the run's KV cache) or reads the cache, and what
// the last one found. One job at a time; a generation waits for it
// (waitInspect) so the model is never used twice at once.
type insideJobs struct {
	ui *UI

	mu     sync.Mutex // guards cancel, done and ended (waitInspect may run on another goroutine)
	cancel context.CancelFunc
	done   chan struct{}
	ended  chan struct{} // the latest job's, kept: closed once its result is delivered too (tests)

	pending, shown jobKey
	result         *trace.Inspection
	rows           trace.KVRows
	err            error
}

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

// inside holds the panels of the model's insides; the job that fills
// them is the insideJobs facet's.
type inside struct {
	embed   *views.EmbeddingPanel
	kv      *views.KVCachePanel
	lens    *views.LogitLensPanel
	sampler *views.SamplerPanel
}

// jobKey names a job: the run, the position, and the KV rows asked for.
type jobKey struct {
	run           *trace.Run
	pos           int // -1: no Inspect, KV rows only
	layer, kvHead int
}

// newInside makes the panels; export names: embedding, kv-cache,
// logit-lens, sampler.
func (fc *insideJobs) newInside() *inside {
	u := fc.ui
	in := &inside{embed: views.NewEmbeddingPanel(), kv: views.NewKVCachePanel(), lens: views.NewLogitLensPanel(), sampler: views.NewSamplerPanel()}
	in.kv.OnChoose = func(int, int) { defer u.rescue(); u.dirty = true; u.refreshPanels() }
	fc.pending.pos, fc.shown.pos = -2, -2
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

// startJobs asks the model for what the KV cache and Logit lens tabs
// show and the run did not record, once the run is over, and for the
// attention or MLP of a position it did not capture.
func (fc *insideJobs) startJobs(v session.View) {
	u := fc.ui
	in, q := u.inside, v.Query
	l, g := in.kv.Chosen()
	switch {
	case v.Running:
	case u.selected(in.kv) && !v.Inspected.HasRows(u.st.LastRun, l, g):
		fc.startJob(jobKey{run: u.st.LastRun, pos: -1, layer: l, kvHead: g})
	case u.selected(in.lens) && !v.Inspected.Has(u.st.LastRun, q) && !v.Inspected.Failed(u.st.LastRun, q):
		fc.startJob(jobKey{run: u.st.LastRun, pos: q, layer: l, kvHead: g})
	}
	fc.attentionOnDemand(q)
	fc.mlpOnDemand(q)
}

// onDemand reports whether a position the run did not capture can be
// recomputed now: the run is over and the model can Inspect.
func (fc *insideJobs) onDemand() bool {
	u := fc.ui
	_, ok := u.backend.(Inspector)
	return ok && inspectJobs && !u.st.Running && u.st.LastRun != nil
}

// mlpOnDemand shows, on the MLP tab, the values of a position the run did
// not capture (the newest token, or one past the capture budget),
// recomputed by Inspect once the run is over.
func (fc *insideJobs) mlpOnDemand(q int) {
	u := fc.ui
	in := u.inside
	if _, ok := u.mlp.Shown(); ok || !u.selected(u.mlp) || !u.insideJobs.onDemand() {
		return
	}
	if fc.result != nil && fc.shown.run == u.st.LastRun && fc.result.Pos == q {
		u.mlp.Display(u.st.Tokens, append(append([]trace.MLP(nil), u.st.MLPs...), fc.result.MLP...), u.st.Info.Layers, q)
		if _, ok := u.mlp.Shown(); ok {
			u.mlp.Title.SetText(u.mlp.Title.Text + tr("app.inside.recomputed", nil))
		}
		return
	}
	l, g := in.kv.Chosen()
	u.insideJobs.startJob(jobKey{run: u.st.LastRun, pos: q, layer: l, kvHead: g})
	u.mlp.Title.SetText(tr("app.inside.mlp", i18n.Args{"Pos": q}))
}

// attentionOnDemand shows, on the Attention tab, the attention of a
// position the run did not capture, recomputed by Inspect once the run is
// over: any prompt position, whatever the prompt's length.
func (fc *insideJobs) attentionOnDemand(q int) {
	u := fc.ui
	in := u.inside
	if u.st.Running || u.attn.HasData() || !u.selected(u.attn.Object()) {
		return
	}
	if fc.result != nil && fc.shown.run == u.st.LastRun && fc.result.Pos == q {
		att := append(append([]trace.Attention(nil), u.st.Attention...), fc.result.Attention)
		u.attn.Display(u.st.Info, u.st.Tokens, att, q, u.st.Source)
		if u.attn.HasData() {
			u.attn.Title.SetText(u.attn.Title.Text + tr("app.inside.recomputed", nil))
			if u.attn.Source() != u.stream.Source() {
				u.stream.SetSource(u.attn.Source()) // outlined in the stream, as for a captured one
			}
		}
		return
	}
	if _, ok := u.backend.(Inspector); ok && u.st.LastRun != nil {
		l, g := in.kv.Chosen()
		u.insideJobs.startJob(jobKey{run: u.st.LastRun, pos: q, layer: l, kvHead: g})
		u.attn.Title.SetText(tr("app.inside.attn", i18n.Args{"Pos": q}))
	}
}
