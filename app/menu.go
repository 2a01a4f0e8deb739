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
	"loupe/i18n"
	"loupe/views"
)

// menus build the window's menu bar from the current state.
type menus struct {
	ui      *UI
	exports map[string]views.Exporter // every panel by its export name, and the head view (figures.go)
}

// buildMenu (re)makes the main menu; the recent models change it.
func (fc *menus) buildMenu() {
	u := fc.ui
	open := u.menus.item(tr("app.menu.open_folder", nil), u.pickFolder)
	open.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierControl}
	recent := u.menus.item(tr("app.menu.recent", nil), nil)
	prefs := u.app.Preferences()
	for _, p := range prefs.StringList(prefRecentModels) {
		label := recentLabel(p, prefs.String(prefModelName+p))
		recent.ChildMenu = appendItem(recent.ChildMenu, u.menus.item(label, func() { u.openModel(p) }))
	}
	if recent.ChildMenu == nil {
		recent.Disabled = true
	}
	demo := u.menus.item(tr("app.menu.demo", nil), func() {
		if dir, err := demoModel(); err != nil {
			u.fail(tr("app.err.no_demo", nil), err)
		} else {
			u.demoDir = dir
			u.openModel(dir)
		}
	})
	save := u.menus.item(tr("app.menu.save_run", nil), u.menus.saveRun)
	save.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl}
	file := fyne.NewMenu(tr("app.menu.file", nil), append(u.modelsMenu.modelItems(), open, u.menus.item(tr("app.menu.open_file", nil), u.pickFile), recent, demo,
		fyne.NewMenuItemSeparator(), save,
		u.menus.item(tr("app.menu.save_session", nil), u.sessionFile.saveSession), u.menus.item(tr("app.menu.open_session", nil), u.sessionFile.pickSession),
		u.menus.item(tr("app.menu.save_lesson", nil), u.lessonMode.saveLesson),
		u.menus.item(tr("app.menu.export_png", nil), func() { u.menus.export(u.menus.currentPanel(), "png") }),
		u.menus.item(tr("app.menu.export_svg", nil), func() { u.menus.export(u.menus.currentPanel(), "svg") }),
		u.menus.item(tr("app.menu.export_csv", nil), func() { u.menus.export(u.menus.currentPanel(), "csv") }),
		fyne.NewMenuItemSeparator(), u.menus.quitItem())...)
	gen := u.menus.item(tr("app.menu.generate", nil), u.generate)
	gen.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl}
	experiments := u.menus.item(tr("app.menu.experiments", nil), func() {
		u.showTab("experiments")
		if k := u.st.Experiment.Key; k != "" {
			u.experimentRunner.planExperiment(k)
		}
	})
	experiments.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyE, Modifier: fyne.KeyModifierControl}
	branch := u.menus.item(tr("app.menu.branch", nil), u.branchDialog)
	branch.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyB, Modifier: fyne.KeyModifierControl}
	run := fyne.NewMenu(tr("app.menu.run", nil), gen, u.menus.item(tr("app.menu.stop", nil), u.stop), branch, fyne.NewMenuItemSeparator(), experiments)
	prompts := fyne.NewMenu(tr("app.menu.prompts", nil))
	for _, p := range u.promptHistory() {
		prompts.Items = append(prompts.Items, u.menus.item(promptLabel(p), func() { u.menus.choosePrompt(p) }))
	}
	u.win.SetMainMenu(fyne.NewMainMenu(file, run, prompts, u.menus.viewMenu(), u.knobs.settingsMenu()))
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
		return tr("app.where.hf_cache", nil)
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
func (fc *menus) quitItem() *fyne.MenuItem {
	u := fc.ui
	quit := u.menus.item(tr("app.menu.quit", nil), u.win.Close)
	quit.IsQuit = true
	quit.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierControl}
	return quit
}

// viewMenu chooses the theme (the system's, or dark or light whatever it
// is) and how layers and heads are counted.
func (fc *menus) viewMenu() *fyne.Menu {
	u := fc.ui
	current := u.app.Preferences().String(prefTheme)
	item := func(label, mode string) *fyne.MenuItem {
		it := u.menus.item(label, func() { u.setTheme(mode) })
		it.Checked = current == mode
		return it
	}
	m := fyne.NewMenu(tr("app.menu.view", nil), item(tr("app.menu.theme_system", nil), ""), item(tr("app.menu.theme_dark", nil), "dark"),
		item(tr("app.menu.theme_light", nil), "light"), fyne.NewMenuItemSeparator())
	m.Items = append(m.Items, u.numberingItems()...)
	m.Items = append(m.Items, fyne.NewMenuItemSeparator(), u.confidenceItem(), fyne.NewMenuItemSeparator())
	m.Items = append(m.Items, u.lessonMode.lessonMenuItems()...)
	m.Items = append(m.Items, fyne.NewMenuItemSeparator(), u.menus.languageItems())
	return m
}

// item is a menu item whose action cannot crash the window.
func (fc *menus) item(label string, action func()) *fyne.MenuItem {
	u := fc.ui
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
	if c := demoCaption(p); c != "" {
		return c + "  —  " + menuText(p)
	}
	return menuText(p)
}

// choosePrompt puts p in the prompt box and a demo prompt's caption in the
// status line, so the lesson stays on screen while it runs.
func (fc *menus) choosePrompt(p string) {
	u := fc.ui
	u.controls.Prompt.SetText(p)
	if c := demoCaption(p); c != "" {
		u.controls.Status.SetText(tr("app.status.look", i18n.Args{"Caption": c}))
	}
}

// demoCaption is a demo prompt's caption in the window's language (the
// key "demo.caption." and its place in assets.DemoExamples, counted from
// 1), "" for any other text.
func demoCaption(p string) string {
	for i, d := range assets.DemoExamples {
		if d.Text == p {
			k := fmt.Sprintf("demo.caption.%d", i+1)
			if s := tr(k, nil); s != k {
				return s
			}
			return d.Caption
		}
	}
	return ""
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
func (fc *menus) currentPanel() string {
	u := fc.ui
	if p := u.panelOn(); p != nil {
		return p.Name()
	}
	return "attention"
}

// saveRun writes the last finished run as JSON.
func (fc *menus) saveRun() {
	u := fc.ui
	if u.st.LastRun == nil {
		u.fail(tr("app.err.nothing_to_save", nil), errors.New(tr("app.hint.generate_to_save", nil)))
		return
	}
	data, err := runJSON(u.st.LastRun)
	if err != nil {
		u.fail(tr("app.err.encode_run", nil), err)
		return
	}
	u.menus.saveFile(tr("app.save.run_title", nil), "loupe-run.json", "json", data)
}

// saveFile asks where to write data (the dialogs confirm an overwrite).
func (fc *menus) saveFile(title, name, ext string, data []byte) {
	u := fc.ui
	write := func(path string) {
		if filepath.Ext(path) == "" {
			path += "." + ext
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			u.fail(tr("app.err.save", nil), err)
			return
		}
		u.controls.Status.SetText(tr("app.status.saved", i18n.Args{"Path": path}))
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
func (fc *menus) export(panel, format string) {
	u := fc.ui
	if format == "csv" {
		data, err := u.csvData(panel)
		if err != nil {
			u.fail(tr("app.err.export_csv", i18n.Args{"Panel": panel}), err)
			return
		}
		u.menus.saveFile(tr("app.save.export_csv", i18n.Args{"Panel": panel}), "loupe-"+panel+".csv", "csv", data)
		return
	}
	data, err := u.menus.render(panel, format)
	if err != nil {
		u.fail(tr("app.err.export", i18n.Args{"Panel": panel}), err)
		return
	}
	u.menus.saveFile(tr("app.save.export", i18n.Args{"Panel": panel}), "loupe-"+panel+"."+format, format, data)
}

// render draws a panel's figure in the given format.
func (fc *menus) render(panel, format string) ([]byte, error) {
	u := fc.ui
	if fig, ok := u.figure(panel); ok && fig != nil {
		return renderFigure(fig, format)
	}
	if format != "png" {
		return nil, fmt.Errorf("%s: nothing to draw yet", panel)
	}
	return u.menus.capturePanel(panel)
}

// capturePanel is the PNG of the panel as the window shows it.
func (fc *menus) capturePanel(panel string) ([]byte, error) {
	u := fc.ui
	obj, ok := u.menus.exports[panel]
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
