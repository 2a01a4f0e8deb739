package app

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	nativedialog "github.com/sqweek/dialog"

	"loupe/assets"
	"loupe/engine"
)

// buildMenu (re)makes the main menu; the recent models change it.
func (u *UI) buildMenu() {
	open := u.item("Open model folder…", u.pickFolder)
	open.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierControl}
	recent := u.item("Recent models", nil)
	prefs := u.app.Preferences()
	for _, p := range prefs.StringList(prefRecentModels) {
		label := recentLabel(p, prefs.String(prefModelName+p))
		recent.ChildMenu = appendItem(recent.ChildMenu, u.item(label, func() { u.openModel(p) }))
	}
	if recent.ChildMenu == nil {
		recent.Disabled = true
	}
	demo := u.item("Open the demo model", func() {
		if dir, err := demoModel(); err != nil {
			u.fail("No demo model", err)
		} else {
			u.demoDir = dir
			u.openModel(dir)
		}
	})
	save := u.item("Save run as JSON…", u.saveRun)
	save.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl}
	file := fyne.NewMenu("File", append(u.modelItems(), open, u.item("Open model file…", u.pickFile), recent, demo,
		fyne.NewMenuItemSeparator(), save,
		u.item("Save session…", u.saveSession), u.item("Open session…", u.pickSession),
		u.item("Save lesson…", u.saveLesson),
		u.item("Export panel as PNG…", func() { u.export(u.currentPanel(), "png") }),
		u.item("Export panel as SVG…", func() { u.export(u.currentPanel(), "svg") }),
		u.item("Export panel as CSV…", func() { u.export(u.currentPanel(), "csv") }),
		fyne.NewMenuItemSeparator(), u.quitItem())...)
	gen := u.item("Generate", u.generate)
	gen.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl}
	experiments := u.item("Experiments…", func() {
		u.showTab("experiments")
		if k := u.experiments.Selected(); k != "" {
			u.planExperiment(k)
		}
	})
	experiments.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyE, Modifier: fyne.KeyModifierControl}
	branch := u.item("Branch from the selected token…", u.branchDialog)
	branch.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyB, Modifier: fyne.KeyModifierControl}
	run := fyne.NewMenu("Run", gen, u.item("Stop (Esc)", u.stop), branch, fyne.NewMenuItemSeparator(), experiments)
	prompts := fyne.NewMenu("Prompts")
	for _, p := range u.promptHistory() {
		prompts.Items = append(prompts.Items, u.item(promptLabel(p), func() { u.choosePrompt(p) }))
	}
	u.win.SetMainMenu(fyne.NewMainMenu(file, run, prompts, u.viewMenu(), u.settingsMenu()))
}

// recentLabel names a recent model as people know it: name is the one
// the model had when it was loaded (a GGUF's general.name, a Hub repo id);
// "" names it from its path alone. Where it lies comes after, short: two
// copies of a model stay apart, and the name still comes first.
func recentLabel(path, name string) string {
	if name == "" {
		name = engine.NameFromPath(path)
	}
	return name + "  (" + whereIs(path) + ")"
}

// whereIs says where a model lies in a few words: "Hugging Face cache" for
// a snapshot there, else "in" its folder, the home folder written ~.
func whereIs(path string) string {
	slash := filepath.ToSlash(path)
	if strings.Contains(slash, "/models--") && strings.Contains(slash, "/snapshots/") {
		return "Hugging Face cache"
	}
	dir := filepath.Dir(path)
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		if rel, err := filepath.Rel(home, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "in " + filepath.Join("~", rel)
		}
	}
	return "in " + dir
}

// quitItem closes the window (Ctrl+Q), the same way as its close button:
// a running generation is cancelled and the model freed.
func (u *UI) quitItem() *fyne.MenuItem {
	quit := u.item("Quit", u.win.Close)
	quit.IsQuit = true
	quit.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierControl}
	return quit
}

// viewMenu chooses the theme (the system's, or dark or light whatever it
// is) and how layers and heads are counted.
func (u *UI) viewMenu() *fyne.Menu {
	current := u.app.Preferences().String(prefTheme)
	item := func(label, mode string) *fyne.MenuItem {
		it := u.item(label, func() { u.setTheme(mode) })
		it.Checked = current == mode
		return it
	}
	m := fyne.NewMenu("View", item("Theme of the system", ""), item("Dark theme", "dark"),
		item("Light theme (projectors)", "light"), fyne.NewMenuItemSeparator())
	m.Items = append(m.Items, u.numberingItems()...)
	m.Items = append(m.Items, fyne.NewMenuItemSeparator(), u.confidenceItem(), fyne.NewMenuItemSeparator())
	m.Items = append(m.Items, u.lessonMenuItems()...)
	return m
}

// item is a menu item whose action cannot crash the window.
func (u *UI) item(label string, action func()) *fyne.MenuItem {
	return fyne.NewMenuItem(label, u.guard(action))
}

func appendItem(m *fyne.Menu, it *fyne.MenuItem) *fyne.Menu {
	if m == nil {
		return fyne.NewMenu("", it)
	}
	m.Items = append(m.Items, it)
	return m
}

// promptLabel is a menu line: a demo prompt's caption first, then the prompt.
func promptLabel(p string) string {
	if c := assets.DemoCaption(p); c != "" {
		return c + "  —  " + menuText(p)
	}
	return menuText(p)
}

// choosePrompt puts p in the prompt box and a demo prompt's caption in the
// status line, so the lesson stays on screen while it runs.
func (u *UI) choosePrompt(p string) {
	u.controls.Prompt.SetText(p)
	if c := assets.DemoCaption(p); c != "" {
		u.controls.Status.SetText("Look: " + c)
	}
}

// menuText is a prompt on one short line.
func menuText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// currentPanel names the selected tab for exports.
func (u *UI) currentPanel() string {
	if u.tabs.Selected() == nil {
		return "attention"
	}
	return panelName(u.tabs.Selected().Text)
}

// panelName is the export name of a tab.
func panelName(tab string) string {
	return map[string]string{"Attention": "attention", "Next token": "next-token", "Timing": "timing",
		"Model": "model", "MLP": "mlp", "Compare": "compare", "DeltaNet": "deltanet", "Experts": "experts",
		"Embedding": "embedding", "KV cache": "kv-cache", "Logit lens": "logit-lens", "Sampler": "sampler",
		"Experiments": "experiments"}[tab]
}

// saveRun writes the last finished run as JSON.
func (u *UI) saveRun() {
	if u.lastRun == nil {
		u.fail("Nothing to save", errors.New("generate first: the run is saved once it has finished"))
		return
	}
	data, err := runJSON(u.lastRun)
	if err != nil {
		u.fail("Could not encode the run", err)
		return
	}
	u.saveFile("Save the run", "loupe-run.json", "json", data)
}

// saveFile asks where to write data (the dialogs confirm an overwrite).
func (u *UI) saveFile(title, name, ext string, data []byte) {
	write := func(path string) {
		if filepath.Ext(path) == "" {
			path += "." + ext
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			u.fail("Could not save", err)
			return
		}
		u.controls.Status.SetText("Saved " + path)
	}
	u.pick(func() (string, error) {
		return nativedialog.File().Title(title).Filter(strings.ToUpper(ext), ext).SetStartFile(name).Save()
	}, func(use func(string)) {
		d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
			if err == nil && w != nil {
				w.Close()
				use(w.URI().Path())
			}
		}, u.win)
		d.SetFileName(name)
		d.Show()
	}, write)
}

// export saves one panel as PNG or SVG.
func (u *UI) export(panel, format string) {
	if format == "csv" {
		data, err := u.csvData(panel)
		if err != nil {
			u.fail("Could not export the "+panel+" panel as CSV", err)
			return
		}
		u.saveFile("Export the "+panel+" panel as CSV", "loupe-"+panel+".csv", "csv", data)
		return
	}
	data, err := u.render(panel, format)
	if err != nil {
		u.fail("Could not export the "+panel+" panel", err)
		return
	}
	u.saveFile("Export the "+panel+" panel", "loupe-"+panel+"."+format, format, data)
}

// render draws a panel's figure in the given format.
func (u *UI) render(panel, format string) ([]byte, error) {
	if fig, ok := u.figure(panel); ok && fig != nil {
		return renderFigure(fig, format)
	}
	if format != "png" {
		return nil, fmt.Errorf("%s: nothing to draw yet", panel)
	}
	return u.capturePanel(panel)
}

// capturePanel is the PNG of the panel as the window shows it.
func (u *UI) capturePanel(panel string) ([]byte, error) {
	obj, ok := u.exports[panel]
	if !ok {
		return nil, fmt.Errorf("no panel %q", panel)
	}
	if size := obj.Size(); size.Width < 1 || size.Height < 1 || !obj.Visible() {
		return nil, fmt.Errorf("the %s panel is not on screen: select its tab first", panel)
	}
	img := u.win.Canvas().Capture()
	s := u.win.Canvas().Scale()
	pos := u.app.Driver().AbsolutePositionForObject(obj)
	size := obj.Size()
	r := image.Rect(int(pos.X*s), int(pos.Y*s), int((pos.X+size.Width)*s), int((pos.Y+size.Height)*s))
	if sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		img = sub.SubImage(r.Intersect(img.Bounds()))
	}
	var buf bytes.Buffer
	err := png.Encode(&buf, img)
	return buf.Bytes(), err
}
