package views

import (
	"loupe/engine/experiment"
	"loupe/viz"
)

// experimentTitles are the figures' titles, by experiment key.
var experimentTitles = map[string]string{
	experiment.Kernels: "app.exp.fig.kernels",
	experiment.Context: "app.exp.fig.context",
	experiment.Threads: "app.exp.fig.threads",
	experiment.Quant:   "app.exp.fig.quant",
	experiment.Batch:   "app.exp.batch_long",
}

// ExperimentFigure draws an experiment's result (nil: a figure saying
// there is none yet); withNotes: with the sentence reading it and where
// a sweep stopped under the figure, for an export read away from the
// window (the panel writes them above and below it in full).
func ExperimentFigure(r *experiment.Result, withNotes bool, th viz.Theme) viz.Figure {
	if r == nil {
		return viz.NoData(th, tr("app.exp.none_yet", nil))
	}
	var notes []string
	if withNotes {
		notes = append(notes, experiment.ReadingIn(*r, Lang))
	}
	switch r.What {
	case experiment.Texts:
		rows := make([]viz.TimingRow, len(r.Points))
		for i, p := range r.Points {
			rows[i] = viz.TimingRow{Label: p.Label, PrefillTokens: p.PrefillTokens, PrefillSeconds: p.PrefillSeconds,
				DecodeTokens: p.DecodeTokens, DecodeSeconds: p.DecodeSeconds, BytesPerToken: p.BytesPerToken}
		}
		return viz.TimingBars(rows, r.BandwidthGBs, th)
	case experiment.Batch:
		// The total writing speed of each batch size beside the memory
		// and compute ceilings, and each conversation's.
		pts := make([]viz.BatchPoint, len(r.Points))
		for i, p := range r.Points {
			pts[i] = viz.BatchPoint{Label: p.Label, DecodeTokS: p.DecodeTokS, PerSequenceTokS: p.PerSequenceTokS,
				MemoryTokS: p.MemoryCeilingTokS, ComputeTokS: p.ComputeCeilingTokS}
		}
		return viz.BatchSweep(tr(experimentTitles[r.What], nil), pts, notes, th)
	}
	pts := make([]viz.SweepPoint, len(r.Points))
	for i, p := range r.Points {
		pts[i] = viz.SweepPoint{Label: p.Label, PrefillTokS: p.PrefillTokS, DecodeTokS: p.DecodeTokS,
			PredictedTokS: p.PredictedDecodeTokS, BytesPerToken: p.BytesPerToken}
	}
	if withNotes && r.Stopped != "" {
		notes = append(notes, r.Stopped)
	}
	return viz.Sweep(tr(experimentTitles[r.What], nil), pts, notes, th)
}

// experimentNeed is the least height in pixels the panel's figure of r
// reads at: about 19 px a bar row plus 110 px of title and axis; the two
// texts' figure at 380 px (less drops the second text's bar).
func experimentNeed(r *experiment.Result) float32 {
	switch {
	case r == nil:
		return 0
	case r.What == experiment.Texts:
		return 380
	case r.What == experiment.Batch: // three bars a point
		return float32(110 + 3*19*len(r.Points))
	}
	return float32(110 + 2*19*len(r.Points))
}

// ExperimentNotes are the lines under the figure: where it stopped, then
// what the figures are and are not.
func ExperimentNotes(r experiment.Result) []string {
	var notes []string
	if r.Stopped != "" {
		notes = append(notes, r.Stopped)
	}
	return append(notes, r.Notes...)
}
