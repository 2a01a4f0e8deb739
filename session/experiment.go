package session

import "loupe/engine/experiment"

// Experiment is what the Experiments tab shows: the plan of the chosen
// experiment, the one running (its progress and what it does now), then
// its result, just measured or opened from its file.
type Experiment struct {
	Result  *experiment.Result // nil: none yet, or one is running
	Reading string             // the sentence reading it: the window's, or the one saved with it

	Key      string  // the experiment chosen in the list (experiment.Context, …; "": none)
	Plan     string  // what the chosen experiment runs and about how long
	Status   string  // what runs now, or why it stopped ("" once the figure says it is done)
	Running  bool    // an experiment runs: Cancel and the progress bar, not Run
	Progress float64 // the share of the running experiment done, 0–1
	Saved    bool    // the result was opened from its file: it can be re-run
}

// StartExperiment clears the result for an experiment starting: the
// choice and its plan stay, status says it starts.
func (s *State) StartExperiment(status string) {
	e := s.Experiment
	s.Experiment = Experiment{Key: e.Key, Plan: e.Plan, Saved: e.Saved, Status: status, Running: true}
}

// ExperimentProgress is the running experiment's share done and what it
// does now.
func (s *State) ExperimentProgress(frac float64, status string) {
	s.Experiment.Progress, s.Experiment.Status = frac, status
}

// EndExperiment ends the running experiment with status; r (nil: none,
// it failed) becomes the result shown, read by reading.
func (s *State) EndExperiment(r *experiment.Result, reading, status string) {
	e := &s.Experiment
	e.Running, e.Progress, e.Status = false, 0, status
	if r != nil {
		e.Result, e.Reading = r, reading
	}
}
