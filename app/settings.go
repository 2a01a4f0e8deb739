package app

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// knobs are the settings pane's values: their defaults, what is remembered between launches, and reading them for a run.
type knobs struct {
	ui       *UI
	before   map[string]string // the saved knobs a starting run replaced (unsaveKnobs)
	defaults knobDefaults      // the knobs' values before any were restored
}

// The knobs of the left column are remembered between sessions in the
// preferences; the flags override them. Max tokens, threads and the kernel
// level are the machine's and the user's: "knob.<name>". The sampling
// knobs belong to the model they were chosen for (the Qwen3 thinking
// preset is no setting for the demo model): "knob.<model>.<name>", put
// back when that model loads, the defaults for a model never used.

// globalKnobs and samplingKnobs name the entries of each kind.
var (
	globalKnobs   = []string{"max_tokens", "threads"}
	samplingKnobs = []string{"temperature", "top_k", "top_p", "min_p", "presence_penalty", "seed"}
)

func (fc *knobs) knobEntries() map[string]*widget.Entry {
	u := fc.ui
	c := u.controls
	return map[string]*widget.Entry{
		"max_tokens": c.MaxTokens, "temperature": c.Temperature, "top_k": c.TopK, "top_p": c.TopP,
		"min_p": c.MinP, "presence_penalty": c.Presence, "seed": c.Seed, "threads": c.Threads,
	}
}

// knobDefaults are the values the controls start with (views.NewControls),
// read before anything is restored: what Settings › Reset puts back.
type knobDefaults struct {
	entries       map[string]string
	mode, kernels string
}

func (fc *knobs) readKnobDefaults() {
	u := fc.ui
	d := knobDefaults{entries: map[string]string{}, mode: u.controls.Mode.Value(), kernels: u.controls.Kernels.Selected}
	for name, e := range u.knobs.knobEntries() {
		d.entries[name] = e.Text
	}
	fc.defaults = d
}

// modelKey names the loaded model in the preferences: its path, "demo"
// for the demo model (its folder name changes with its version).
func (fc *knobs) modelKey() string {
	u := fc.ui
	if u.modelPath == "" || u.modelPath == u.demoDir {
		return "demo"
	}
	return u.modelPath
}

// saveKnobs remembers the knobs of a generation that started; the values
// they replace are kept until the run ends (unsaveKnobs).
func (fc *knobs) saveKnobs() {
	u := fc.ui
	p := u.app.Preferences()
	fc.before = map[string]string{}
	for _, k := range fc.knobKeys() {
		fc.before[k] = p.String(k)
	}
	e := u.knobs.knobEntries()
	for _, name := range globalKnobs {
		p.SetString("knob."+name, e[name].Text)
	}
	p.SetString("knob.kernels", u.controls.Kernels.Selected)
	m := "knob." + u.knobs.modelKey() + "."
	for _, name := range samplingKnobs {
		p.SetString(m+name, e[name].Text)
	}
	p.SetString(m+"mode", u.controls.Mode.Value())
}

// knobKeys are the preferences saveKnobs writes.
func (fc *knobs) knobKeys() []string {
	keys := []string{"knob.kernels"}
	for _, name := range globalKnobs {
		keys = append(keys, "knob."+name)
	}
	m := "knob." + fc.modelKey() + "."
	for _, name := range samplingKnobs {
		keys = append(keys, m+name)
	}
	return append(keys, m+"mode")
}

// unsaveKnobs puts back the knobs saved before a run the engine refused
// (--max-tokens 100000 on a 512-token model): saved, the next plain
// launch failed the same way.
func (fc *knobs) unsaveKnobs() {
	p := fc.ui.app.Preferences()
	if fc.before == nil {
		return
	}
	for k, v := range fc.before {
		if v == "" {
			p.RemoveValue(k)
		} else {
			p.SetString(k, v)
		}
	}
	fc.before = nil
}

// restoreKnobs puts back the knobs of the last session that are not a
// model's (restoreSampling does those when a model loads).
func (fc *knobs) restoreKnobs() {
	u := fc.ui
	p := u.app.Preferences()
	e := u.knobs.knobEntries()
	for _, name := range globalKnobs {
		if v := p.String("knob." + name); v != "" {
			e[name].SetText(v)
		}
	}
	if k := p.String("knob.kernels"); slices.Contains(u.controls.Kernels.Options, k) {
		u.controls.Kernels.SetSelected(k)
	}
}

// restoreSampling puts back the sampling knobs last used with the model
// just loaded, or the defaults when it was never used.
func (fc *knobs) restoreSampling() {
	u := fc.ui
	p := u.app.Preferences()
	e := u.knobs.knobEntries()
	m := "knob." + u.knobs.modelKey() + "."
	for _, name := range samplingKnobs {
		v := p.String(m + name)
		if v == "" {
			v = fc.defaults.entries[name]
		}
		e[name].SetText(v)
	}
	mode := p.String(m + "mode")
	if !slices.Contains(u.controls.Mode.Values(), mode) {
		mode = fc.defaults.mode
	}
	u.controls.Mode.SetValue(mode)
}

// resetKnobs is Settings › Reset: every knob back to its default, and
// forgotten for the loaded model and the machine.
func (fc *knobs) resetKnobs() {
	u := fc.ui
	p := u.app.Preferences()
	e := u.knobs.knobEntries()
	for name, v := range fc.defaults.entries {
		e[name].SetText(v)
	}
	u.controls.Mode.SetValue(fc.defaults.mode)
	u.controls.Kernels.SetSelected(fc.defaults.kernels)
	for _, name := range globalKnobs {
		p.RemoveValue("knob." + name)
	}
	p.RemoveValue("knob.kernels")
	m := "knob." + u.knobs.modelKey() + "."
	for _, name := range append(slices.Clone(samplingKnobs), "mode") {
		p.RemoveValue(m + name)
	}
	u.controls.Status.SetText(tr("app.settings.reset_done", nil))
}

// settingsMenu holds Reset.
func (fc *knobs) settingsMenu() *fyne.Menu {
	u := fc.ui
	return fyne.NewMenu(tr("app.menu.settings", nil), u.menus.item(tr("app.menu.reset", nil), u.knobs.resetKnobs))
}
