package app

import (
	"loupe/engine/experiment"
	"loupe/views"
)

// The batch experiment, "several conversations at once", joins the
// Experiments panel after the others: it lifts the article's condition of
// one conversation at a time.
func init() {
	experimentList = append(experimentList, views.Experiment{Key: experiment.Batch, Title: "app.exp.batch_title"})
}
