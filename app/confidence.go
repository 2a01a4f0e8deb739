package app

import (
	"encoding/json"

	"fyne.io/fyne/v2"

	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

// View › Colour written tokens by probability: each written token of the
// stream filled by the model's own probability of it, with a legend and
// the run's perplexity under the stream.

// confidenceItem is the View menu's toggle.
func (u *UI) confidenceItem() *fyne.MenuItem {
	it := u.menus.item(tr("app.menu.confidence", nil), func() { u.setConfidence(!u.stream.Confidence()) })
	it.Checked = u.stream.Confidence()
	return it
}

// setConfidence turns the colouring on or off and ticks the menu.
func (u *UI) setConfidence(on bool) {
	if !on {
		u.stream.SetConfidence(nil, "")
	} else {
		u.stream.SetConfidence([]float64{}, "")
		u.showConfidence()
	}
	u.menus.buildMenu()
}

// showConfidence recolours the stream from the steps so far (a no-op
// when the colouring is off).
func (u *UI) showConfidence() {
	if u.stream.Confidence() {
		u.stream.SetConfidence(views.ModelPs(u.st.Tokens, u.st.Steps), views.ConfidenceLine(u.st.Steps))
	}
}

// runJSON is File › Save run as JSON: the run with its perplexity beside
// (stats.Perplexity, as the legend and `loupe run --json` give it; absent
// when no step recorded the model's p).
func runJSON(run *trace.Run) ([]byte, error) {
	out := struct {
		*trace.Run
		Perplexity *float64 `json:"perplexity,omitempty"`
	}{Run: run}
	if ppl, ok := stats.Perplexity(run.Steps); ok {
		out.Perplexity = &ppl
	}
	return json.MarshalIndent(out, "", " ")
}
