package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"loupe/engine/chat"
	"loupe/session"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

// Reruns: run A again with heads switched off, or a variant prompt with
// A's settings, as run B of a comparison.

// switchOff reruns run A with the selected heads switched off.
func (u *UI) switchOff() { u.switchOffWith("") }

// switchOffWith is switchOff with a note on how the heads were chosen.
func (u *UI) switchOffWith(note string) {
	if u.st.Running || u.loading {
		u.controls.Status.SetText(tr("app.rerun.wait_heads", nil))
		return
	}
	if len(u.st.Heads) == 0 {
		u.fail(tr("app.rerun.no_heads", nil), errors.New(tr("app.hint.pick_heads", nil)))
		return
	}
	a, err := u.st.BaseRun()
	if err != nil {
		u.fail(tr("app.rerun.nothing", nil), err)
		return
	}
	if err := trace.CheckHeads(u.st.Heads, u.st.Info.Layers, u.st.Info.Heads, u.headBase()); err != nil {
		u.fail(tr("app.rerun.out_of_range", nil), err)
		return
	}
	s := a.Settings
	s.Ablate = slices.Clone(u.st.Heads)
	kind := views.SwitchOffKind(s.Ablate, u.headBase())
	if note != "" {
		kind += " " + note
	}
	u.rerun(a, a.Prompt, s, kind)
}

// rerun generates prompt with settings s as run B of a comparison with a.
func (u *UI) rerun(a *trace.Run, prompt string, s trace.Settings, kind string) {
	if u.backend == nil {
		u.fail(tr("app.err.no_model_loaded", nil), errors.New(tr("app.hint.open_model", nil)))
		return
	}
	ids := u.backend.Encode(prompt)
	if len(ids) == 0 {
		u.fail(tr("app.err.empty_prompt", nil), errors.New(tr("app.hint.no_tokens", nil)))
		return
	}
	if len(a.Messages) > 0 && prompt == a.Prompt {
		// A chat turn: the same conversation again, with the chat's stops;
		// the reply is not added to the conversation.
		if _, ok := u.backend.(ChatBackend); ok {
			think := map[string]chat.Think{"on": chat.ThinkOn, "off": chat.ThinkOff}[a.Think]
			u.chatArea.pending = &chatRequest{msgs: slices.Clone(a.Messages), think: think}
		}
	}
	u.st.Role = &session.Role{Base: a, Kind: kind, SourceA: -1}
	if u.st.LastRun == a && u.attn.HasData() {
		u.st.Role.SourceA = u.attn.Source()
	}
	u.cmp.then = u.afterCompare
	u.begin(prompt, ids, s)
}

// afterCompare shows the new comparison at the first generated step, in
// the Compare tab, and prints its Δp line (for scripts and the smoke test).
func (u *UI) afterCompare() {
	c := u.st
	a, b, ok := c.Pair()
	if !ok {
		return
	}
	u.st.Follow = false
	last := stats.PromptLen(b) - 1
	al := stats.Align(a.Tokens, b.Tokens, stats.PromptLen(a), stats.PromptLen(b))
	switch {
	case a.Prompt != b.Prompt && al.ChangedB[0] < al.ChangedB[1] && al.ChangedB[0] < last:
		u.st.Source = al.ChangedB[0] // the changed word is the source to watch
	case c.SourceA >= 0 && c.SourceA < len(al.AtoB) && al.AtoB[c.SourceA] >= 0:
		u.st.Source = al.AtoB[c.SourceA] // the source A's grid showed
	}
	u.stream.Select(last)
	if u.opt.Tab == "" || !u.opt.Quit {
		u.showTab("compare")
	}
	u.dirty = true
	u.refreshPanels()
	u.refreshCompare()
	if cmp, ok := u.compare.Comparison(); ok {
		fmt.Printf("loupe: compare: %s %s\n", c.Kind, views.DeltaLine(cmp.Delta))
	}
}

// continueChain starts what waits for the generation that just ended.
func (u *UI) continueChain(err error) {
	f := u.cmp.then
	u.cmp.then = nil
	if err != nil || f == nil {
		u.st.Role = nil
		return
	}
	f()
}

// askVariant asks for a second prompt, prefilled with run A's.
func (u *UI) askVariant() {
	a := u.st.LastRun
	if a == nil {
		u.fail(tr("app.rerun.nothing_compare", nil), errors.New(tr("app.hint.generate_for_variant", nil)))
		return
	}
	if len(a.Settings.Ablate) > 0 {
		if base, err := u.st.BaseRun(); err == nil {
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
		u.fail(tr("app.err.empty_prompt", nil), errors.New(tr("app.hint.type_variant", nil)))
		return
	}
	if u.st.Running || u.loading {
		u.controls.Status.SetText(tr("app.rerun.wait_compare", nil))
		return
	}
	u.st.Variant = prompt
	u.st.Source = -1
	u.rerun(a, prompt, a.Settings, tr("app.rerun.variant_kind", nil))
}
