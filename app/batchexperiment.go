package app

import (
	"loupe/engine/experiment"
	"loupe/views"
	"loupe/viz"
)

// The batch experiment, "several conversations at once", joins the
// Experiments panel after the others: it lifts the article's condition of
// one conversation at a time.
func init() {
	experimentList = append(experimentList, views.Experiment{Key: experiment.Batch, Title: "app.exp.batch_title"})
	experimentTitles[experiment.Batch] = "app.exp.batch_long"
}

// batchFigure draws a batch sweep: the total writing speed of each batch
// size beside the memory and compute ceilings, and each conversation's.
func batchFigure(r experiment.Result, withNotes bool, th viz.Theme) viz.Figure {
	pts := make([]viz.BatchPoint, len(r.Points))
	for i, p := range r.Points {
		pts[i] = viz.BatchPoint{Label: p.Label, DecodeTokS: p.DecodeTokS, PerSequenceTokS: p.PerSequenceTokS,
			MemoryTokS: p.MemoryCeilingTokS, ComputeTokS: p.ComputeCeilingTokS}
	}
	var notes []string
	if withNotes {
		notes = append(notes, experiment.ReadingIn(r, views.Lang))
	}
	return viz.BatchSweep(experimentTitle(r.What), pts, notes, th)
}
