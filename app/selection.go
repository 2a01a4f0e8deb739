package app

import (
	"loupe/session"
	"loupe/views"
)

// The selected token and the panels that follow it.

// selectQuery makes pos the query token of the panels.
func (u *UI) selectQuery(pos int) {
	u.st.SelectQuery(pos)
	u.dirty = true
	u.refreshPanels()
}

// selectSource makes pos the source token of the attention grid.
func (u *UI) selectSource(pos int) {
	u.st.SelectSource(pos)
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
	v := u.view()
	for _, p := range u.panels {
		if u.drawn(p, v) {
			p.ShowView(v)
		}
	}
	if !v.Selected() {
		return // the token panels kept what they showed; nothing to recompute
	}
	if u.drawn(u.attn, v) && u.attn.HasData() && u.attn.Source() != u.stream.Source() {
		u.stream.SetSource(u.attn.Source()) // the chosen or the strongest source, outlined
	}
	u.insideJobs.startJobs(v)
}

// drawn reports whether p is drawn now. While the engine runs, only the
// tab on screen is drawn (each drawing takes CPU from the engine); once
// the run is over the cheap Attention and Next token panels are drawn
// hidden too (exports read them), and the Model panel's rows and the
// Timing panel's bars (drawn again only when they changed), the others
// when chosen: a gonum/plot figure costs tens of ms.
func (u *UI) drawn(p views.Panel, v session.View) bool {
	if u.selected(p.Object()) {
		return true
	}
	return !v.Running && (p == views.Panel(u.attn) || p == views.Panel(u.next) || p == views.Panel(u.model) || p == views.Panel(u.timing))
}

// view is what the panels show: the session's View with what the window
// knows of the machine and the model's on-demand recomputations.
func (u *UI) view() session.View {
	v := u.st.View()
	v.OnDemand = u.insideJobs.onDemand()
	v.ModelName, v.CPU, v.Kernels = u.shownInfo().Name, cpuLine(), modelKernelLine(u.backend)
	if insp, ok := u.backend.(Inspector); ok {
		v.Embedding = insp.Embedding
	}
	in := u.insideJobs
	v.Inspected = session.Inspected{Run: in.shown.run, Pos: in.shown.pos, Layer: in.shown.layer, KVHead: in.shown.kvHead,
		Result: in.result, Rows: in.rows, Err: in.err}
	return v
}
