package app

import (
	"fmt"

	"fyne.io/fyne/v2"

	"loupe/trace"
	"loupe/trace/stats"
)

// The selected token and the panels that follow it.

// selectQuery makes pos the query token of the panels.
func (u *UI) selectQuery(pos int) {
	u.query = pos
	u.follow = u.running && pos == len(u.tokens)-1
	if u.source > pos {
		u.source = -1
	}
	u.dirty = true
	u.refreshPanels()
}

// selectSource makes pos the source token of the attention grid.
func (u *UI) selectSource(pos int) {
	u.source = pos
	if u.query >= 0 && pos > u.query {
		u.source = -1
	}
	u.dirty = true
	u.refreshPanels()
}

// refreshPanels redraws the panels that depend on the selection.
func (u *UI) refreshPanels() {
	if !u.dirty {
		return
	}
	u.dirty = false
	u.showConfidence()
	q := u.query
	if q < 0 || q >= len(u.tokens) {
		return
	}
	// While the engine runs, only the tab on screen is drawn (each drawing
	// takes CPU from the engine): a hidden one is drawn when it is chosen,
	// and every one when the run ends.
	seen := func(o fyne.CanvasObject) bool { return !u.running || u.selected(o) }
	if seen(u.attnTab()) {
		u.refreshAttention(q)
	}
	if seen(u.next) {
		u.next.Display(u.tokens, u.steps, q)
	}
	if u.running && u.live.PrefillTokens > 0 && u.selected(u.timing) {
		u.timing.Display(append(u.timings[:len(u.timings):len(u.timings)], u.live), u.bandwidth, u.measuring)
	}
	if u.selected(u.mlp) {
		// Drawn only when seen: a gonum/plot figure costs tens of ms.
		u.mlp.Latest = u.follow && !u.onDemand()
		u.mlp.Display(u.tokens, u.mlps, u.info.Layers, q)
	}
	if u.selected(u.deltaNet) {
		var dn []trace.DeltaNet
		if u.lastRun != nil && !u.running {
			dn = u.lastRun.DeltaNet
		}
		u.deltaNet.Display(u.info, u.tokens, dn, q)
	}
	if u.selected(u.experts) {
		u.experts.Display(u.info, u.tokens, u.steps, q)
	}
	if u.selected(u.compare) && !u.running {
		u.refreshCompare()
	}
	u.refreshInside()
}

// refreshAttention draws the attention grid of query q.
func (u *UI) refreshAttention(q int) {
	aq := q
	if _, ok := stats.AttentionAt(u.attention, q); !ok && u.follow && !u.onDemand() {
		// The newest token has not been read by the model yet: its attention
		// comes with the next step. Show the newest one there is. Once the
		// run is over it is recomputed (attentionOnDemand).
		aq = stats.LastCaptured(u.attention, q)
	}
	u.attn.Display(u.info, u.tokens, u.attention, aq, u.source)
	if u.attn.HasData() && u.attn.Source() != u.stream.Source() {
		u.stream.SetSource(u.attn.Source()) // the chosen or the strongest source, outlined
	}
	switch {
	case aq == q:
	case u.running && q-aq == 1:
		u.attn.Title.SetText(u.attn.Title.Text + " — the newest token is read at the next step")
	case u.running:
		// The window asks for a capture a frame, not a token (wantsAttention).
		u.attn.Title.SetText(u.attn.Title.Text + fmt.Sprintf(" — while the model writes, the one shown is %d tokens behind the newest", q-aq))
	default:
		u.attn.Title.SetText(u.attn.Title.Text + " — the newest token was never read by the model: the latest one read is shown")
	}
	if r := u.lastRun; r != nil && !u.running && len(r.Settings.Ablate) > 0 && u.attn.HasData() {
		u.attn.Title.SetText(u.attn.Title.Text + fmt.Sprintf(" — a run with %d heads switched off", len(r.Settings.Ablate)))
	}
}
