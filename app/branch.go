package app

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"loupe/format"
	"loupe/i18n"
	"loupe/trace"
	"loupe/views"
)

// branchStep is the step of the last run behind the selected token (its
// own step for a generated token, the prediction after the last prompt
// token) and its index among the written tokens. A *hint says what to
// do first when no branch can start yet.
func (u *UI) branchStep() (trace.Step, int, error) {
	run := u.st.LastRun
	if run == nil || u.st.Running {
		return trace.Step{}, 0, &hint{tr("app.branch.hint_generate", nil)}
	}
	s, ok := views.StepFor(run.Steps, run.Tokens, u.st.Query)
	if !ok || len(s.Top) == 0 {
		return trace.Step{}, 0, &hint{tr("app.branch.hint_click", nil)}
	}
	for i := range run.Steps {
		if run.Steps[i].Pos == s.Pos {
			return s, i, nil
		}
	}
	return trace.Step{}, 0, errors.New("the selected token has no step in the last run")
}

// branchDialog lists the top candidates of the selected token; the one
// picked starts a new run that writes it there and goes on from it.
func (u *UI) branchDialog() {
	s, at, err := u.branchStep()
	var h *hint
	switch {
	case errors.As(err, &h):
		u.inform(tr("app.branch.title", nil), h.what)
		return
	case err != nil:
		u.fail(tr("app.branch.title", nil), err)
		return
	}
	options := make([]string, len(s.Top))
	for i, c := range s.Top {
		options[i] = fmt.Sprintf("%d. «%s»  %s", i+1, format.Visible(c.Text), nums().Percent(c.P))
		if c.ID == s.Chosen.ID {
			options[i] += tr("app.branch.written", nil)
		}
	}
	pick := widget.NewRadioGroup(options, nil)
	for i, c := range s.Top {
		if c.ID != s.Chosen.ID {
			pick.SetSelected(options[i]) // the most likely one not written
			break
		}
	}
	intro := widget.NewLabel(tr("app.branch.intro", i18n.Args{"N": at + 1, "Chosen": format.Visible(s.Chosen.Text)}))
	intro.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm(tr("app.branch.title", nil), tr("app.branch.run", nil), tr("app.cancel", nil), container2(intro, pick), func(ok bool) {
		defer u.rescue()
		if !ok {
			return
		}
		for i, o := range options {
			if o == pick.Selected {
				u.branchFrom(at, s.Top[i].ID)
			}
		}
	}, u.win)
	d.Resize(fyne.NewSize(560, 580)) // the ten candidates without scrolling
	d.Show()
}

// branchFrom reruns the last run's prompt and settings with written
// token at forced to token, as run B of a comparison with it: Compare
// opens on the branch's step.
func (u *UI) branchFrom(at, token int) {
	run := u.st.LastRun
	if run == nil || u.st.Running || u.backend == nil || at >= len(run.Steps) {
		return
	}
	s := run.Settings
	s.Branch = &trace.Branch{At: at, Token: token}
	kind := tr("app.branch.kind", i18n.Args{"New": format.Visible(u.backend.TokenText(token)),
		"Old": format.Visible(run.Steps[at].Chosen.Text), "N": at + 1})
	u.rerun(run, run.Prompt, s, kind)
	pos := run.Steps[at].Pos
	u.cmp.then = func() {
		u.afterCompare()
		u.st.Step = pos
		u.stream.Select(pos)
	}
	u.controls.Status.SetText(tr("app.branch.status", i18n.Args{"N": at + 1, "New": format.Visible(u.backend.TokenText(token))}))
}

// container2 stacks a sentence over the choices.
func container2(top, rest fyne.CanvasObject) fyne.CanvasObject {
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(rest))
}
