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

// The read bandwidth decode is set against is, as in `loupe bench`, a
// probe of the open model's own weights where there is one: where their
// pages lie sets how fast they read (on the development VM 8-16 % below a
// fresh buffer on 2 MiB pages, the machine's best), and decode can read no
// faster than its weights. Without one (a model under the probe's 64 MiB,
// or none taken yet) it is the machine's best cached probe.

// AdoptCeiling keeps c, the machine's cached probes, for the Timing tab.
func (s *State) AdoptCeiling(c perf.Ceiling) { s.Ceiling = c }

// AdoptBeside keeps b if it read the open model's weights and beats the
// probes of them kept since the model loaded (a probe can only come out
// low: another program read memory meanwhile).
func (s *State) AdoptBeside(b perf.Bandwidth) {
	if b.Source == perf.SourceWeights && b.BestGBs > s.Beside.BestGBs {
		s.Beside = b
	}
}

// ForgetBeside drops the probes of the last model's weights: a model just
// loaded has pages of its own.
func (s *State) ForgetBeside() { s.Beside = perf.Bandwidth{} }

// Yardstick is the read GB/s decode is set against: the open model's
// weights where probed, else the machine's best cached probe (0 unknown).
func (s *State) Yardstick() float64 {
	if s.Beside.BestGBs > 0 {
		return s.Beside.BestGBs
	}
	return s.Ceiling.Best.BestGBs
}
