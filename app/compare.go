package app

import (
	"loupe/session"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

// compareState is what the window adds to the session's compared pair:
// what waits for the running generation, and the heads field's echo.
type compareState struct {
	then    func() // run once the current generation has finished well
	quiet   bool   // the app is writing the heads field: not the user typing
	flagged bool   // --ablate/--variant: the selection was set for them
}

// headBase is the number the window gives the first layer and head.
// (View › Count layers and heads); the CLI and --ablate count from 0.
func (u *UI) headBase() int { return u.st.Count.Base() }

// refreshCompare redraws the Compare tab for the selected step and the
// query ⟶ source of the attention grid.
func (u *UI) refreshCompare() {
	a, b, ok := u.st.Pair()
	if !ok {
		u.compare.Clear(tr("app.compare.nothing", nil))
		return
	}
	q, s := u.comparedPositions(a, b)
	if q < 0 {
		q, s = ownStep(u.st, a, b), -1
	}
	pos := q
	if q >= 0 && q < len(a.Tokens) && !a.Tokens[q].Generated {
		pos = q + 1 // a prompt token: the step that predicts after it
	}
	u.compare.Display(views.Compare(a, b, pos, q, s), u.st.Kind)
}

// rebaseKind writes the compared pair's sentence in another numbering:
// one that names heads or experts (layer:head, "counted from 1") was
// written in the numbering of its moment, and Compare kept saying
// "counted from 1" after View › Count from 0.
func (u *UI) rebaseKind(from, to int) {
	a, b, ok := u.st.Pair()
	if !ok || from == to {
		return
	}
	for _, kind := range []func(base int) string{
		func(base int) string { return views.SwitchOffKind(b.Settings.Ablate, base) },
		func(base int) string {
			return expertsKind(b.Settings.DisableExperts, b.Settings.TopKExperts, u.st.Info, base)
		},
		func(base int) string { return views.DescribePair(a, b, base) },
	} {
		if u.st.Kind == kind(from) {
			u.st.Kind = kind(to)
			return
		}
	}
}

// comparedPositions maps the stream's selected query and the grid's source
// (positions of the run the stream shows) to positions of run A.
func (u *UI) comparedPositions(a, b *trace.Run) (q, s int) {
	q, s = u.st.Query, u.attn.Source()
	if u.st.Source >= 0 {
		s = u.st.Source
	}
	cur := u.st.LastRun
	if cur == nil || cur == a || u.st.Running {
		return q, s
	}
	var al stats.Alignment
	if cur == b {
		al = stats.Align(b.Tokens, a.Tokens, stats.PromptLen(b), stats.PromptLen(a))
	} else {
		al = stats.Align(cur.Tokens, a.Tokens, stats.PromptLen(cur), stats.PromptLen(a))
	}
	at := func(i int) int {
		if i < 0 || i >= len(al.AtoB) {
			return -1
		}
		return al.AtoB[i]
	}
	return at(q), at(s)
}

// ownStep is the position of A compared when the stream's run does not
// line up with A: the one ◀ ▶ chose, else where B's text first leaves A's,
// else A's first written token.
func ownStep(st *session.State, a, b *trace.Run) int {
	if st.Step >= 0 && st.Step < len(a.Tokens) {
		return st.Step
	}
	if first := views.Compare(a, b, -1, -1, -1).FirstA; first >= 0 && first < len(a.Tokens) {
		return first
	}
	if len(a.Steps) > 0 {
		return a.Steps[0].Pos
	}
	return -1
}

// compareStep moves the compared step (◀ ▶ of the Compare tab): the
// stream selects the token, in the run it shows.
func (u *UI) compareStep(posA int) {
	c := u.st
	if c.A < 0 || c.A >= len(c.Runs) {
		return
	}
	a := c.Runs[c.A]
	p := posA
	if cur := u.st.LastRun; cur != nil && cur != a {
		al := stats.Align(a.Tokens, cur.Tokens, stats.PromptLen(a), stats.PromptLen(cur))
		if posA < 0 || posA >= len(al.AtoB) || al.AtoB[posA] < 0 {
			// The stream's run does not line up with A: the tab steps alone.
			if posA >= 0 && posA < len(a.Tokens) {
				c.Step = posA
				u.refreshCompare()
			}
			return
		}
		p = al.AtoB[posA]
	}
	if p >= 0 && p < len(u.st.Tokens) {
		u.st.Follow = false
		u.stream.Select(p)
	}
}

// newCompare makes the Compare tab and the bar under the attention grid.
func (u *UI) newCompare() {
	u.compare = views.NewComparePanel()
	u.compare.OnPick = func(a, b int) { defer u.rescue(); u.pickRuns(a, b) }
	u.compare.OnStep = guard1(u, u.compareStep)
	u.bar = views.NewAblateBar()
	u.bar.OnRun = u.guard(u.switchOff)
	u.bar.OnTop = u.guard(u.presetTop)
	u.bar.OnRandom = u.guard(u.presetRandom)
	u.bar.OnVariant = u.guard(u.askVariant)
	u.bar.OnClear = u.guard(func() { u.st.Heads = nil; u.showHeads(true) })
	u.bar.OnHeadsTyped = guard1(u, u.headsTyped)
	u.attn.OnToggleHead = func(l, h int) { defer u.rescue(); u.toggleHead(l, h) }
	u.showHeads(true)
	u.attn.Under = u.bar.Box
}
