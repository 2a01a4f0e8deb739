package app

import (
	"slices"

	"fyne.io/fyne/v2/widget"
)

// The knobs of the left column are remembered between sessions, under
// "knob.<name>" in the preferences; the flags override them.
func (u *UI) knobEntries() map[string]*widget.Entry {
	c := u.controls
	return map[string]*widget.Entry{
		"max_tokens": c.MaxTokens, "temperature": c.Temperature, "top_k": c.TopK, "top_p": c.TopP,
		"min_p": c.MinP, "presence_penalty": c.Presence, "seed": c.Seed, "threads": c.Threads,
	}
}

// saveKnobs remembers the knobs of a generation that started.
func (u *UI) saveKnobs() {
	p := u.app.Preferences()
	for name, e := range u.knobEntries() {
		p.SetString("knob."+name, e.Text)
	}
	p.SetString("knob.mode", u.controls.Mode.Selected)
	p.SetString("knob.kernels", u.controls.Kernels.Selected)
}

// restoreKnobs puts back the knobs of the last session.
func (u *UI) restoreKnobs() {
	p := u.app.Preferences()
	for name, e := range u.knobEntries() {
		if v := p.String("knob." + name); v != "" {
			e.SetText(v)
		}
	}
	if m := p.String("knob.mode"); slices.Contains(u.controls.Mode.Options, m) {
		u.controls.Mode.SetSelected(m)
	}
	if k := p.String("knob.kernels"); slices.Contains(u.controls.Kernels.Options, k) {
		u.controls.Kernels.SetSelected(k)
	}
}
