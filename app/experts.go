package app

import (
	"errors"
	"fmt"

	"loupe/i18n"
	"loupe/trace"
)

// The experts counterfactual: run A again with experts switched off
// (masked out of the router) or fewer experts per token, as run B of a
// comparison — the head switch's twin for mixture-of-experts models.

// switchExpertsOff reruns run A with the Experts panel's experts switched
// off and its experts per token.
func (u *UI) switchExpertsOff() {
	if u.st.Running || u.loading {
		u.controls.Status.SetText(tr("app.experts.wait", nil))
		return
	}
	off, k, err := u.experts.Counterfactual()
	if err != nil {
		u.fail(tr("app.experts.to_switch", nil), err)
		return
	}
	if len(off) == 0 && k == 0 {
		u.fail(tr("app.experts.none", nil), errors.New(tr("app.hint.experts_pick", nil)))
		return
	}
	if err := checkExperts(off, k, u.st.Info, u.headBase()); err != nil {
		u.fail(tr("app.experts.out_of_range", nil), err)
		return
	}
	a, err := u.st.BaseRun()
	if err != nil {
		u.fail(tr("app.rerun.nothing", nil), err)
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
	s := tr("app.experts.kind", nil)
	if len(off) > 0 {
		s += tr("app.experts.kind_off", i18n.Args{"Experts": trace.FormatExperts(off, base)})
	}
	if k > 0 {
		if len(off) > 0 {
			s += tr("app.experts.kind_and", nil)
		}
		s += tr("app.experts.kind_topk", i18n.Args{"K": k, "Of": info.ExpertsPerToken})
	}
	return s + "."
}
