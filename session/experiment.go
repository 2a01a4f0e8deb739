package session

import "loupe/engine/experiment"

// Experiment is the experiment result the Experiments tab shows: one
// just measured, or one opened from its file.
type Experiment struct {
	Result  *experiment.Result // nil: none yet, or one is running
	Reading string             // the sentence reading it: the window's, or the one saved with it
}
