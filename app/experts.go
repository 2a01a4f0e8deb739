package app

import (
	"errors"
	"fmt"

	"loupe/trace"
)

// The experts counterfactual: run A again with experts switched off
// (masked out of the router) or fewer experts per token, as run B of a
// comparison — the head switch's twin for mixture-of-experts models.

// switchExpertsOff reruns run A with the Experts panel's experts switched
// off and its experts per token.
func (u *UI) switchExpertsOff() {
	if u.st.Running || u.loading {
		u.controls.Status.SetText("Wait for the current run to finish, then switch the experts off.")
		return
	}
	off, k, err := u.experts.Counterfactual()
	if err != nil {
		u.fail("Experts to switch off", err)
		return
	}
	if len(off) == 0 && k == 0 {
		u.fail("No experts chosen", errors.New("click cells of the map, type layer:expert pairs, or choose fewer experts per token"))
		return
	}
	if err := checkExperts(off, k, u.st.Info, u.headBase()); err != nil {
		u.fail("Experts out of range", err)
		return
	}
	a, err := u.st.BaseRun()
	if err != nil {
		u.fail("Nothing to rerun", err)
		return
	}
	s := a.Settings
	s.DisableExperts, s.TopKExperts = off, k
	u.rerun(a, a.Prompt, s, expertsKind(off, k, u.st.Info, u.headBase()))
}

// checkExperts refuses experts outside the model (numbered from base in
// the message) and a top-k outside 1…k; the engine refuses the rest
// (dense layers, a layer left with too few experts).
func checkExperts(off []trace.Expert, k int, info trace.ModelInfo, base int) error {
	if info.Experts == 0 {
		return errors.New("this model has no experts")
	}
	if k < 0 || k > info.ExpertsPerToken {
		return fmt.Errorf("%d experts per token: want 1…%d", k, info.ExpertsPerToken)
	}
	for _, e := range off {
		if e.Layer < 0 || e.Layer >= info.Layers || e.Expert < 0 || e.Expert >= info.Experts {
			return fmt.Errorf("expert %d:%d is out of range (layers %d…%d, experts %d…%d)", e.Layer+base, e.Expert+base,
				base, info.Layers-1+base, base, info.Experts-1+base)
		}
	}
	return nil
}

// expertsKind says what run B changed, for the Compare tab.
func expertsKind(off []trace.Expert, k int, info trace.ModelInfo, base int) string {
	s := "B is A"
	if len(off) > 0 {
		s += fmt.Sprintf(" with experts %s (layer:expert) switched off", trace.FormatExperts(off, base))
	}
	if k > 0 {
		if len(off) > 0 {
			s += " and"
		}
		s += fmt.Sprintf(" with %d of the model's %d experts per token", k, info.ExpertsPerToken)
	}
	return s + "."
}
