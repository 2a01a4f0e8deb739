package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	nativedialog "github.com/sqweek/dialog"

	"loupe/assets"
	"loupe/engine"
	"loupe/i18n"
	"loupe/trace"
)

// expected says what a model folder must hold, in the window's language;
// every load error ends with it.
func expected() string {
	archs, gguf, types := engine.SupportedNames()
	return tr("app.err.expected", i18n.Args{"Archs": archs, "GGUF": gguf, "Types": types})
}

// openModel loads path in the background; the current model stays usable
// until the new one is ready, and stays if the new one fails.
func (u *UI) openModel(path string) {
	if u.loading {
		return
	}
	if u.st.Running {
		u.fail(tr("app.err.busy", nil), errors.New(tr("app.hint.stop_before_model", nil)))
		return
	}
	u.loading = true
	u.controls.Progress.SetValue(0)
	u.controls.Progress.Show()
	u.controls.Status.SetText(tr("app.status.opening", i18n.Args{"Path": path}))
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		b, err := u.safeLoad(path)
		u.do(func() { u.loaded(path, b, err) })
	}()
}

// safeLoad calls the loader, turning a panic into an error.
func (u *UI) safeLoad(path string) (b Backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("internal error while loading: %v", r)
		}
	}()
	return u.load(path, func(frac float64, what string) {
		u.do(func() {
			u.controls.Progress.SetValue(frac)
			if what != "" {
				u.controls.Status.SetText(tr("app.status.loading", i18n.Args{"What": what}))
			}
		})
	})
}

// loaded swaps in the new model, or says why it could not be opened.
func (u *UI) loaded(path string, b Backend, err error) {
	u.loading = false
	u.controls.Progress.Hide()
	if err != nil {
		u.generateAfter = false
		u.controls.Status.SetText(tr("app.status.could_not_open", i18n.Args{"Path": path}))
		u.fail(tr("app.err.open_model", nil), fmt.Errorf("%s\n\n%s", engine.LoadFailure(path, err), expected()))
		u.idle()
		u.host.probeAfterRun() // one start-up made due: beside the model still open, if any
		return
	}
	u.insideJobs.forgetInspect() // before Close: an Inspect may be running on the old model
	u.waitProbe()                // and the bandwidth probe may be reading its weights
	if u.backend != nil {
		u.backend.Close()
	}
	u.backend, u.st.Info, u.host.threads = b, b.Info(), 0
	u.modelPath = path
	u.knobs.restoreSampling()
	u.chatArea.chatModelLoaded()
	if path != "" && path == u.demoDir && strings.HasPrefix(u.st.Info.Name, "demo-") { // not the random fallback
		u.st.Info.Name = demoName
	}
	u.win.SetTitle("Loupe — " + u.shownInfo().Name)
	u.model.ShowView(u.view()) // the other panels still show the last run, read with its model
	u.controls.PromptTokens = func(p string) int { return len(b.Encode(p)) }
	u.showModelTabs(u.st.Info)
	u.controls.SetKVCost(u.st.Info.KVBytesPerToken, u.st.Info.MaxPositions)
	u.controls.Status.SetText(tr("app.status.loaded", i18n.Args{"Name": u.shownInfo().Name, "Layers": u.st.Info.Layers,
		"Heads": u.st.Info.Heads, "DType": u.st.Info.DType}))
	if path != "" && path != u.demoDir {
		u.rememberModel(path, u.st.Info.Name)
	}
	u.host.modelLoaded()
	if u.generateAfter {
		u.generateAfter = false
		u.generate()
	}
	if !u.st.Running {
		u.afterRun(nil)
		u.idle()
		u.host.probeAfterRun()
	}
}

// dropped opens the first folder or file dropped on the window.
func (u *UI) dropped(_ fyne.Position, uris []fyne.URI) {
	if len(uris) > 0 && uris[0].Scheme() == "file" {
		u.openModel(uris[0].Path())
	}
}

// errNoNative says the native dialog could not be shown (no display, no GTK).
var errNoNative = errors.New("native dialog unavailable")

// native runs a sqweek/dialog call, which panics without a display.
func native(show func() (string, error)) (path string, err error) {
	defer func() {
		if r := recover(); r != nil {
			path, err = "", errNoNative
		}
	}()
	return show()
}

// pick asks for a path with the native dialog, falling back to Fyne's own
// when there is none, and calls use with the answer on the UI goroutine.
func (u *UI) pick(nativeShow func() (string, error), fallback func(use func(string)), use func(string)) {
	go func() {
		path, err := native(nativeShow)
		u.do(func() {
			switch {
			case errors.Is(err, nativedialog.ErrCancelled):
			case err != nil:
				fallback(use)
			case path != "":
				use(path)
			}
		})
	}()
}

// pickFolder opens a model folder.
func (u *UI) pickFolder() {
	u.pick(func() (string, error) {
		return nativedialog.Directory().Title(tr("app.pick.folder", nil)).Browse()
	}, func(use func(string)) {
		dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
			if err == nil && l != nil {
				use(l.Path())
			}
		}, u.win)
	}, u.openModel)
}

// pickFile opens a model file: a .gguf file, or a .safetensors file (the
// folder around it is used).
func (u *UI) pickFile() {
	u.pick(func() (string, error) {
		return nativedialog.File().Title(tr("app.pick.file", nil)).Filter(tr("app.pick.filter", nil), "safetensors", "gguf").Load()
	}, func(use func(string)) {
		dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
			if err == nil && r != nil {
				r.Close()
				use(r.URI().Path())
			}
		}, u.win)
	}, u.openModel)
}

const (
	prefRecentModels = "recent_models"
	prefModelName    = "model_name." // + path: the name the model had when it was loaded
	prefPrompts      = "prompt_history"
	prefBandwidth    = "read_bandwidth_gbs"
	maxRecent        = 8
)

// pushFront puts s first in list, without duplicates, at most n long.
func pushFront(list []string, s string, n int) []string {
	out := []string{s}
	for _, x := range list {
		if x != s && len(out) < n {
			out = append(out, x)
		}
	}
	return out
}

// demoName is the embedded demo model's name in the title (its folder is
// named after a hash of its files).
const demoName = assets.DemoName

// shownInfo is the loaded model's information as the window shows it:
// the demo model's name, an English description in runs and sessions
// (what programs and the lesson compare), said in the window's language.
func (u *UI) shownInfo() trace.ModelInfo {
	info := u.st.Info
	if info.Name == demoName {
		info.Name = tr("demo.name", nil)
	}
	return info
}

func (u *UI) rememberModel(path, name string) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	p := u.app.Preferences()
	old := p.StringList(prefRecentModels)
	list := pushFront(old, path, maxRecent)
	for _, gone := range old {
		if !slices.Contains(list, gone) {
			p.RemoveValue(prefModelName + gone)
		}
	}
	p.SetString(prefModelName+path, name)
	p.SetStringList(prefRecentModels, list)
	u.menus.buildMenu()
}

func (u *UI) rememberPrompt(prompt string) {
	p := u.app.Preferences()
	p.SetStringList(prefPrompts, pushFront(p.StringList(prefPrompts), prompt, maxRecent))
	u.controls.SetHistory(u.promptHistory())
	u.menus.buildMenu()
}

// promptHistory is the recent prompts then the demo prompts.
func (u *UI) promptHistory() []string {
	list := u.app.Preferences().StringList(prefPrompts)
	for _, d := range demoPrompts() {
		list = append(list[:len(list):len(list)], d)
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
