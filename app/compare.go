package app

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"loupe/engine/chat"
	"loupe/format"
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
	sourceA int  // the source of A's grid kept across the rerun (-1: none)
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

// remember adds a finished run to the history; a rerun becomes run B of
// the comparison with its run A.
func (u *UI) remember(run *trace.Run) {
	c := &u.cmp
	c.sourceA = -1
	c.runs = append(c.runs, run)
	if len(c.runs) > maxHistory {
		c.runs = slices.Delete(c.runs, 0, len(c.runs)-maxHistory)
	}
	if c.role != nil {
		if ia := slices.Index(c.runs, c.role.base); ia >= 0 {
			c.a, c.b, c.kind, c.sourceA = ia, len(c.runs)-1, c.role.kind, c.role.sourceA
		}
		c.role = nil
	} else if c.a >= len(c.runs) || c.b >= len(c.runs) || c.a < 0 {
		c.a, c.b = -1, -1
	}
	u.listRuns()
}

// listRuns refreshes the run choosers of the Compare tab.
func (u *UI) listRuns() {
	labels := make([]string, len(u.cmp.runs))
	for i, r := range u.cmp.runs {
		labels[i] = views.RunLabel(i, r, u.headBase())
	}
	u.compare.SetRuns(labels, u.cmp.a, u.cmp.b)
}

// pickRuns compares two runs of the history chosen in the Compare tab.
func (u *UI) pickRuns(a, b int) {
	c := &u.cmp
	if a < 0 || b < 0 || a >= len(c.runs) || b >= len(c.runs) {
		return
	}
	c.a, c.b = a, b
	c.kind = describePair(c.runs[a], c.runs[b], u.headBase())
	u.listRuns()
	u.refreshCompare()
}

// describePair says what differs between the settings of two runs.
func describePair(a, b *trace.Run, base int) string {
	var d []string
	if a == b {
		return "A and B are the same run."
	}
	if a.Prompt != b.Prompt {
		d = append(d, "the prompt")
	}
	sa, sb := a.Settings, b.Settings
	mode := func(s trace.Settings) string {
		if s.Temperature == 0 {
			return "greedy"
		}
		return fmt.Sprintf("sampled at T %.2g (top-k %d, top-p %.2g, min-p %.2g) with seed %d", s.Temperature, s.TopK, s.TopP, s.MinP, s.Seed)
	}
	if mode(sa) != mode(sb) {
		d = append(d, fmt.Sprintf("decoding (%s in A, %s in B)", mode(sa), mode(sb)))
	}
	if sa.Kernels != sb.Kernels {
		d = append(d, fmt.Sprintf("kernels (%s in A, %s in B)", sa.Kernels, sb.Kernels))
	}
	if sa.Threads != sb.Threads {
		d = append(d, fmt.Sprintf("threads (%d in A, %d in B)", sa.Threads, sb.Threads))
	}
	if !slices.Equal(sa.Ablate, sb.Ablate) {
		d = append(d, fmt.Sprintf("heads switched off (%s in A, %s in B)", headList(sa.Ablate, base), headList(sb.Ablate, base)))
	}
	if a.Model.Path != b.Model.Path {
		d = append(d, "the model")
	}
	if len(d) == 0 {
		return "A and B have the same model, prompt and settings."
	}
	return "A and B differ in " + strings.Join(d, ", ") + "."
}

func headList(hs []trace.Head, base int) string {
	if len(hs) == 0 {
		return "none"
	}
	return trace.FormatHeads(hs, base)
}

// refreshCompare redraws the Compare tab for the selected step and the
// query ⟶ source of the attention grid.
func (u *UI) refreshCompare() {
	c := &u.cmp
	if c.a < 0 || c.b < 0 || c.a >= len(c.runs) || c.b >= len(c.runs) {
		u.compare.Clear("Nothing to compare yet: generate, then switch heads off (Attention tab) or compare with a variant prompt.")
		return
	}
	a, b := c.runs[c.a], c.runs[c.b]
	q, s := u.comparedPositions(a, b)
	pos := q
	if q >= 0 && q < len(a.Tokens) && !a.Tokens[q].Generated {
		pos = q + 1 // a prompt token: the step that predicts after it
	}
	u.compare.Display(views.Compare(a, b, pos, q, s), c.kind)
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
			return
		}
		p = al.AtoB[posA]
	}
	if p >= 0 && p < len(u.tokens) {
		u.follow = false
		u.stream.Select(p)
	}
}

// toggleHead adds a head to, or removes it from, the heads to switch off.
func (u *UI) toggleHead(l, h int) {
	hd := trace.Head{Layer: l, Head: h}
	if i := slices.Index(u.cmp.heads, hd); i >= 0 {
		u.cmp.heads = slices.Delete(u.cmp.heads, i, i+1)
	} else {
		u.cmp.heads = append(u.cmp.heads, hd)
	}
	u.showHeads(true)
}

// showHeads puts the selected heads in the field (unless typing there) and
// on the grid.
func (u *UI) showHeads(field bool) {
	if field {
		u.cmp.quiet = true
		u.bar.Heads.SetText(trace.FormatHeads(u.cmp.heads, u.headBase()))
		u.cmp.quiet = false
	}
	u.attn.SetSelectedHeads(u.cmp.heads)
	n := len(u.cmp.heads)
	switch {
	case n == 0:
		u.bar.Help.SetText(fmt.Sprintf("Ctrl+click cells of the grid, or type layer:head pairs counted from %d, then Switch off and rerun: "+
			"the same prompt and settings run again with those heads' outputs zeroed.", u.headBase()))
	default:
		u.bar.Help.SetText(fmt.Sprintf("%d head%s selected (framed in orange on the grid).", n, map[bool]string{true: "", false: "s"}[n == 1]))
	}
}

// headsTyped reads the heads field as the user types; a half-typed list
// keeps the last valid selection.
func (u *UI) headsTyped(text string) {
	if u.cmp.quiet {
		return
	}
	hs, err := trace.ParseHeads(text, u.headBase())
	if err != nil {
		u.bar.Help.SetText(err.Error())
		return
	}
	if u.backend != nil {
		if err := trace.CheckHeads(hs, u.info.Layers, u.info.Heads, u.headBase()); err != nil {
			u.bar.Help.SetText(err.Error())
			return
		}
	}
	u.cmp.heads = hs
	u.showHeads(false)
}

// baseRun is run A of an ablation: the run shown, or, when that run has
// heads switched off, the latest run of the same prompt and settings
// without any.
func (u *UI) baseRun() (*trace.Run, error) {
	cur := u.lastRun
	if cur == nil {
		return nil, errors.New("generate first: the heads are switched off in a rerun of the run shown")
	}
	if len(cur.Settings.Ablate) == 0 {
		return cur, nil
	}
	for i := len(u.cmp.runs) - 1; i >= 0; i-- {
		r := u.cmp.runs[i]
		s, t := r.Settings, cur.Settings
		s.Ablate, t.Ablate = nil, nil
		if len(r.Settings.Ablate) == 0 && r.Prompt == cur.Prompt && s.Seed == t.Seed && s.Temperature == t.Temperature &&
			s.MaxTokens == t.MaxTokens && s.TopK == t.TopK && s.TopP == t.TopP && s.MinP == t.MinP {
			return r, nil
		}
	}
	return cur, nil
}

// switchOff reruns run A with the selected heads switched off.
func (u *UI) switchOff() { u.switchOffWith("") }

// switchOffWith is switchOff with a note on how the heads were chosen.
func (u *UI) switchOffWith(note string) {
	if u.running || u.loading {
		u.controls.Status.SetText("Wait for the current run to finish, then switch the heads off.")
		return
	}
	if len(u.cmp.heads) == 0 {
		u.fail("No heads selected", errors.New("Ctrl+click cells of the attention grid, type heads such as 18:1, 18:5, or use a preset"))
		return
	}
	a, err := u.baseRun()
	if err != nil {
		u.fail("Nothing to rerun", err)
		return
	}
	if err := trace.CheckHeads(u.cmp.heads, u.info.Layers, u.info.Heads, u.headBase()); err != nil {
		u.fail("Heads out of range", err)
		return
	}
	s := a.Settings
	s.Ablate = slices.Clone(u.cmp.heads)
	kind := fmt.Sprintf("B is A rerun with %d head%s switched off (outputs zeroed before o_proj at every position): %s (layer:head, counted from %d).",
		len(s.Ablate), map[bool]string{true: "", false: "s"}[len(s.Ablate) == 1], trace.FormatHeads(s.Ablate, u.headBase()), u.headBase())
	if note != "" {
		kind += " " + note
	}
	u.rerun(a, a.Prompt, s, kind)
}

// rerun generates prompt with settings s as run B of a comparison with a.
func (u *UI) rerun(a *trace.Run, prompt string, s trace.Settings, kind string) {
	if u.backend == nil {
		u.fail("No model loaded", errors.New("open a model folder first"))
		return
	}
	ids := u.backend.Encode(prompt)
	if len(ids) == 0 {
		u.fail("Empty prompt", errors.New("the prompt gives no tokens"))
		return
	}
	if len(a.Messages) > 0 && prompt == a.Prompt {
		// A chat turn: the same conversation again, with the chat's stops;
		// the reply is not added to the conversation.
		if _, ok := u.backend.(ChatBackend); ok {
			think := map[string]chat.Think{"on": chat.ThinkOn, "off": chat.ThinkOff}[a.Think]
			u.pending = &chatRequest{msgs: slices.Clone(a.Messages), think: think}
		}
	}
	u.cmp.role = &runRole{base: a, kind: kind, sourceA: -1}
	if u.lastRun == a && u.attn.HasData() {
		u.cmp.role.sourceA = u.attn.Source()
	}
	u.cmp.then = u.afterCompare
	u.begin(prompt, ids, s)
}

// afterCompare shows the new comparison at the first generated step, in
// the Compare tab, and prints its Δp line (for scripts and the smoke test).
func (u *UI) afterCompare() {
	c := &u.cmp
	if c.a < 0 || c.b < 0 {
		return
	}
	a, b := c.runs[c.a], c.runs[c.b]
	u.follow = false
	last := stats.PromptLen(b) - 1
	al := stats.Align(a.Tokens, b.Tokens, stats.PromptLen(a), stats.PromptLen(b))
	switch {
	case a.Prompt != b.Prompt && al.ChangedB[0] < al.ChangedB[1] && al.ChangedB[0] < last:
		u.source = al.ChangedB[0] // the changed word is the source to watch
	case c.sourceA >= 0 && c.sourceA < len(al.AtoB) && al.AtoB[c.sourceA] >= 0:
		u.source = al.AtoB[c.sourceA] // the source A's grid showed
	}
	u.stream.Select(last)
	if u.opt.Tab == "" || !u.opt.Quit {
		u.showTab("compare")
	}
	u.dirty = true
	u.refreshPanels()
	u.refreshCompare()
	if cmp, ok := u.compare.Comparison(); ok {
		fmt.Printf("loupe: compare: %s %s\n", c.kind, views.DeltaLine(cmp.Delta))
	}
}

// continueChain starts what waits for the generation that just ended.
func (u *UI) continueChain(err error) {
	f := u.cmp.then
	u.cmp.then = nil
	if err != nil || f == nil {
		u.cmp.role = nil
		return
	}
	f()
}

// presetTop selects the N heads with the largest share on the source for
// the query shown, and reruns without them.
func (u *UI) presetTop() {
	n, err := strconv.Atoi(strings.TrimSpace(u.bar.N.Text))
	if err != nil || n < 1 {
		u.fail("N", fmt.Errorf("%q is not a number of heads (1 or more)", u.bar.N.Text))
		return
	}
	q := u.query
	a, ok := stats.AttentionAt(u.attention, q)
	if !ok {
		a, ok = stats.AttentionAt(u.attention, lastCaptured(u.attention, q))
	}
	if !ok {
		u.fail("No attention", errors.New("select a token whose attention was captured (the last prompt token always is)"))
		return
	}
	src := u.attn.Source()
	u.cmp.heads = stats.TopHeads(stats.SourceGrid(a, src), n)
	u.showHeads(true)
	note := fmt.Sprintf("Preset: the %s that look%s most at %s from position %d.", headsWord(n), map[bool]string{true: "s", false: ""}[n == 1], tokenWords(u.tokens, src), a.QueryPos)
	u.bar.Help.SetText(note)
	u.switchOffWith(note)
}

// presetRandom selects N heads drawn at random with the seed shown, and
// reruns without them.
func (u *UI) presetRandom() {
	n, err := strconv.Atoi(strings.TrimSpace(u.bar.N.Text))
	if err != nil || n < 1 {
		u.fail("N", fmt.Errorf("%q is not a number of heads (1 or more)", u.bar.N.Text))
		return
	}
	seed, err := strconv.ParseUint(strings.TrimSpace(u.bar.Seed.Text), 10, 64)
	if err != nil {
		u.fail("Seed", fmt.Errorf("%q is not a whole number ≥ 0", u.bar.Seed.Text))
		return
	}
	if u.backend == nil {
		u.fail("No model loaded", errors.New("open a model folder first"))
		return
	}
	u.cmp.heads = randomAttentionHeads(u.info, n, seed)
	u.showHeads(true)
	note := fmt.Sprintf("Preset: %d heads drawn at random with seed %d.", n, seed)
	u.bar.Help.SetText(note)
	u.switchOffWith(note)
}

func tokenWords(toks []trace.Token, pos int) string {
	if pos < 0 || pos >= len(toks) {
		return "the source"
	}
	return fmt.Sprintf("«%s» (position %d)", format.Visible(toks[pos].Text), pos)
}

// askVariant asks for a second prompt, prefilled with run A's.
func (u *UI) askVariant() {
	a := u.lastRun
	if a == nil {
		u.fail("Nothing to compare", errors.New("generate first: the variant is compared with the run shown"))
		return
	}
	if len(a.Settings.Ablate) > 0 {
		if base, err := u.baseRun(); err == nil {
			a = base
		}
	}
	e := widget.NewMultiLineEntry()
	e.Wrapping = fyne.TextWrapWord
	e.SetText(a.Prompt)
	e.SetMinRowsVisible(3)
	d := dialog.NewForm("Compare with a variant", "Run the variant", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Prompt B", e),
			widget.NewFormItem("", widget.NewLabel("Change one word (purple ⟶ green): the same heads should react to the new word."))},
		func(ok bool) {
			defer u.rescue()
			if ok {
				u.runVariant(a, e.Text)
			}
		}, u.win)
	d.Resize(d.MinSize().AddWidthHeight(300, 0))
	d.Show()
}

// runVariant runs prompt with run A's settings as B of a comparison.
func (u *UI) runVariant(a *trace.Run, prompt string) {
	if strings.TrimSpace(prompt) == "" {
		u.fail("Empty prompt", errors.New("type the variant prompt"))
		return
	}
	if u.running || u.loading {
		u.controls.Status.SetText("Wait for the current run to finish, then compare.")
		return
	}
	u.cmp.variant = prompt
	u.source = -1
	u.rerun(a, prompt, a.Settings, "B is a variant of A's prompt, with the same settings.")
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

// flagExperiments runs what --ablate and --variant ask for, one after the
// other, once the first generation has finished.
func (u *UI) flagExperiments() {
	next := func() {
		u.afterCompare()
		if u.opt.Variant != "" {
			u.flagExperiments()
		}
	}
	if !u.cmp.flagged && u.lastRun != nil {
		// The experiments look from the last prompt token, as the article does.
		u.cmp.flagged = true
		u.follow = false
		u.stream.Select(stats.PromptLen(u.lastRun) - 1)
		if src := sourcePos(u.lastRun, u.opt.Source); src >= 0 {
			u.stream.Choose(src)
		} else if u.opt.Source != "" {
			u.controls.Status.SetText(fmt.Sprintf("--source %q is neither a position of the prompt nor a word in it: the strongest source is used.", u.opt.Source))
			fmt.Fprintln(os.Stderr, "loupe:", u.controls.Status.Text)
		}
	}
	if spec := u.opt.Ablate; spec != "" {
		u.opt.Ablate = ""
		if err := u.ablateSpec(spec); err != nil {
			u.fail("--ablate", err)
			return
		}
		if u.running {
			u.cmp.then = next
		}
		return
	}
	if v := u.opt.Variant; v != "" {
		u.opt.Variant = ""
		a, err := u.baseRun()
		if err != nil {
			u.fail("--variant", err)
			return
		}
		u.runVariant(a, v)
	}
}

// ablateSpec selects heads as --ablate spells them (0-based L:H list,
// top:N or random:N:SEED) and reruns without them.
func (u *UI) ablateSpec(spec string) error {
	parts := strings.Split(spec, ":")
	switch parts[0] {
	case "top":
		if len(parts) != 2 {
			return fmt.Errorf("%q: want top:N", spec)
		}
		u.bar.N.SetText(parts[1])
		u.presetTop()
		return nil
	case "random":
		if len(parts) != 3 {
			return fmt.Errorf("%q: want random:N:SEED", spec)
		}
		u.bar.N.SetText(parts[1])
		u.bar.Seed.SetText(parts[2])
		u.presetRandom()
		return nil
	}
	hs, err := trace.ParseHeads(spec, 0)
	if err == nil {
		err = trace.CheckHeads(hs, u.info.Layers, u.info.Heads, 0)
	}
	if err != nil {
		return err
	}
	u.cmp.heads = hs
	u.showHeads(true)
	u.switchOff()
	return nil
}

// sourcePos reads --source: a prompt position, or a word of the prompt
// (the token holding its first letter); -1 when it is neither.
func sourcePos(r *trace.Run, spec string) int {
	n := stats.PromptLen(r)
	if p, err := strconv.Atoi(spec); err == nil {
		if p >= 0 && p < n {
			return p
		}
		return -1
	}
	at := strings.Index(r.Prompt, spec)
	if spec == "" || at < 0 {
		return -1
	}
	end := 0
	for i := range n {
		end += len(r.Tokens[i].Text)
		if end > at {
			return i
		}
	}
	return -1
}

// headsWord is "the head" for 1 and "10 heads" for 10.
func headsWord(n int) string {
	if n == 1 {
		return "head"
	}
	return fmt.Sprintf("%d heads", n)
}

// isComparisonB reports whether run was made as run B of a comparison (a
// rerun with heads switched off, or a variant).
func (u *UI) isComparisonB(run *trace.Run) bool {
	c := &u.cmp
	return c.b >= 0 && c.b < len(c.runs) && c.runs[c.b] == run && c.a != c.b
}

// randomAttentionHeads draws n heads of the layers that have attention: a
// hybrid model's Gated DeltaNet layers have no heads to switch off.
func randomAttentionHeads(info trace.ModelInfo, n int, seed uint64) []trace.Head {
	var att []int
	for l := range info.Layers {
		if info.HasAttention(l) {
			att = append(att, l)
		}
	}
	hs := stats.RandomHeads(len(att), info.Heads, n, seed)
	for i := range hs {
		hs[i].Layer = att[hs[i].Layer]
	}
	return hs
}
