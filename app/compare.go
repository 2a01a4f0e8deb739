package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

// maxHistory is how many finished runs the Compare tab can choose from;
// older ones are dropped (a run keeps its attention: up to ~88 MB).
const maxHistory = 12

// compareState is the counterfactual side of the session: the history of
// finished runs, the pair compared, the heads chosen to be switched off
// and what the next run is for.
type compareState struct {
	runs  []*trace.Run // finished runs, oldest first
	a, b  int          // indices into runs of the compared pair; -1: none
	kind  string       // what B is to A, in a sentence
	heads []trace.Head // heads selected to be switched off
	role  *runRole     // what the running generation is for (nil: a plain run)
	then  func()       // run once the current generation has finished well
	// variant is the last variant prompt compared.
	variant string
	sourceA int // the source of A's grid kept across the rerun (-1: none)
	// step is the position of A compared when the run the stream shows
	// does not line up with A (an experiment's runs; ◀ ▶ move it); -1:
	// where B first leaves A.
	step    int
	quiet   bool // the app is writing the heads field: not the user typing
	flagged bool // --ablate/--variant: the selection was set for them
}

// runRole says what a rerun compares against.
type runRole struct {
	base    *trace.Run // run A
	kind    string
	sourceA int // the grid's source in A when the rerun was asked
}

// headBase is the number the window gives the first layer and head.
// (View › Count layers and heads); the CLI and --ablate count from 0.
func (u *UI) headBase() int { return views.Numbers.Base() }

// refreshCompare redraws the Compare tab for the selected step and the
// query ⟶ source of the attention grid.
func (u *UI) refreshCompare() {
	a, b, ok := u.cmp.pair()
	if !ok {
		u.compare.Clear("Nothing to compare yet: generate, then switch heads off (Attention tab) or compare with a variant prompt.")
		return
	}
	q, s := u.comparedPositions(a, b)
	if q < 0 {
		q, s = u.cmp.ownStep(a, b), -1
	}
	pos := q
	if q >= 0 && q < len(a.Tokens) && !a.Tokens[q].Generated {
		pos = q + 1 // a prompt token: the step that predicts after it
	}
	u.compare.Display(views.Compare(a, b, pos, q, s), u.cmp.kind)
}

// comparedPositions maps the stream's selected query and the grid's source
// (positions of the run the stream shows) to positions of run A.
func (u *UI) comparedPositions(a, b *trace.Run) (q, s int) {
	q, s = u.query, u.attn.Source()
	if u.source >= 0 {
		s = u.source
	}
	cur := u.lastRun
	if cur == nil || cur == a || u.running {
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
func (c *compareState) ownStep(a, b *trace.Run) int {
	if c.step >= 0 && c.step < len(a.Tokens) {
		return c.step
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
	c := &u.cmp
	if c.a < 0 || c.a >= len(c.runs) {
		return
	}
	a := c.runs[c.a]
	p := posA
	if cur := u.lastRun; cur != nil && cur != a {
		al := stats.Align(a.Tokens, cur.Tokens, stats.PromptLen(a), stats.PromptLen(cur))
		if posA < 0 || posA >= len(al.AtoB) || al.AtoB[posA] < 0 {
			// The stream's run does not line up with A: the tab steps alone.
			if posA >= 0 && posA < len(a.Tokens) {
				c.step = posA
				u.refreshCompare()
			}
			return
		}
		p = al.AtoB[posA]
	}
	if p >= 0 && p < len(u.tokens) {
		u.follow = false
		u.stream.Select(p)
	}
}

// newCompare makes the Compare tab and the bar under the attention grid,
// and returns the Attention tab's content (the panel above the bar).
func (u *UI) newCompare() fyne.CanvasObject {
	u.compare = views.NewComparePanel()
	u.compare.OnPick = func(a, b int) { defer u.rescue(); u.pickRuns(a, b) }
	u.compare.OnStep = guard1(u, u.compareStep)
	u.compare.OnExport = guard1(u, func(f string) { u.export("compare", f) })
	u.bar = views.NewAblateBar()
	u.bar.OnRun = u.guard(u.switchOff)
	u.bar.OnTop = u.guard(u.presetTop)
	u.bar.OnRandom = u.guard(u.presetRandom)
	u.bar.OnVariant = u.guard(u.askVariant)
	u.bar.OnClear = u.guard(func() { u.cmp.heads = nil; u.showHeads(true) })
	u.bar.OnHeadsTyped = guard1(u, u.headsTyped)
	u.attn.OnToggleHead = func(l, h int) { defer u.rescue(); u.toggleHead(l, h) }
	u.showHeads(true)
	return container.NewBorder(nil, u.bar.Box, nil, nil, u.attn)
}
