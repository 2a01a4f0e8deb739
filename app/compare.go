package app

import (
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

// refreshCompare redraws the Compare tab now, on screen or not: a new
// pair, a rerun's end and the lesson read what it shows.
func (u *UI) refreshCompare() { u.compare.ShowView(u.view()) }

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
