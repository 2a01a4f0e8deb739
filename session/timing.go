package session

import (
	"loupe/engine/perf"
	"loupe/trace"
)

// KeepTiming adds a finished run's timing to the Timing tab's list under
// label ("": "run N", as the panel counts).
func (s *State) KeepTiming(t trace.Timing, label string) {
	s.Timings = append(s.Timings, t)
	s.Labels = append(s.Labels, make([]string, len(s.Timings)-1-len(s.Labels))...)
	s.Labels = append(s.Labels, label)
}

// NameLastTiming names the last timing kept (a chat turn names its run
// once the reply is read: "run 3 · think on").
func (s *State) NameLastTiming(label string) {
	if n := len(s.Timings); n > 0 && len(s.Labels) >= n {
		s.Labels[n-1] = label
	}
}

// AdoptCeiling makes c's best probe the machine's bandwidth, and c the
// probes the Timing tab says it rests on.
func (s *State) AdoptCeiling(c perf.Ceiling) {
	s.Ceiling, s.Bandwidth = c, c.Best.BestGBs
}
