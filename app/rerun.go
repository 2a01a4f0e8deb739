package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"loupe/engine/chat"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

// Reruns: run A again with heads switched off, or a variant prompt with
// A's settings, as run B of a comparison.

// baseRun is run A of an ablation: the run shown, or, when that run has
// heads switched off, the latest run of the same prompt and settings
// without any.
func (u *UI) baseRun() (*trace.Run, error) {
	cur := u.lastRun
	if cur == nil {
		return nil, errors.New("generate first: the heads are switched off in a rerun of the run shown")
	}
	if !counterfactual(cur.Settings) {
		return cur, nil
	}
	for i := len(u.cmp.runs) - 1; i >= 0; i-- {
		r := u.cmp.runs[i]
		s, t := r.Settings, cur.Settings
		if !counterfactual(r.Settings) && r.Prompt == cur.Prompt && s.Seed == t.Seed && s.Temperature == t.Temperature &&
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
	kind := views.SwitchOffKind(s.Ablate, u.headBase())
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
	a, b, ok := c.pair()
	if !ok {
		return
	}
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
	views.VariantDialog(a.Prompt, func(prompt string) {
		defer u.rescue()
		u.runVariant(a, prompt)
	}, u.win).Show()
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
