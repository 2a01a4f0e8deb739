package app

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"

	"loupe/kernels"
	"loupe/session"
	"loupe/trace"
	"loupe/views"
)

// newUI builds the window's content, menus and shortcuts.
func newUI(a fyne.App, w fyne.Window, opt Options, load Loader) *UI {
	u := &UI{app: a, win: w, opt: opt, load: load, st: session.New()}
	u.facets = facets{insideJobs: &insideJobs{ui: u}, host: &host{ui: u}, chatArea: &chatArea{ui: u}, menus: &menus{ui: u}, knobs: &knobs{ui: u}, modelsMenu: &modelsMenu{ui: u}, sessionFile: &sessionFile{ui: u}, experimentRunner: &experimentRunner{ui: u}, lessonMode: &lessonMode{ui: u}}
	u.ctx, u.closeAll = context.WithCancel(context.Background())
	u.controls = views.NewControls(u.guard(u.generate), u.guard(u.stop))
	u.chatPanel = u.chatArea.newChatPanel()
	u.stream = views.NewTokenStream()
	u.stream.OnSelect = guard1(u, u.selectQuery)
	u.stream.OnSource = guard1(u, u.selectSource)
	u.tabs = u.newPanels()
	u.left = container.NewVScroll(container.NewVBox(u.chatPanel.Box, u.controls.Box))
	u.lessonMode.note = guessNote()
	right := container.NewVSplit(u.stream, container.NewStack(u.tabs, container.NewCenter(u.lessonMode.note)))
	right.Offset = 0.17 // two rows of tokens and the hover line: the grid needs the height at 768 pixels
	u.lessonMode.strip = right
	split := container.NewHSplit(u.left, u.lessonMode.newLessonArea(right))
	split.Offset = 0.24
	u.lessonMode.split = split
	w.SetContent(split)
	u.controls.SetKernelOptions(kernelOptions(), "auto")
	u.controls.SetHistory(u.promptHistory())
	u.menus.buildMenu()
	u.addShortcuts()
	w.SetOnDropped(func(p fyne.Position, uris []fyne.URI) { defer u.rescue(); u.dropped(p, uris) })
	return u
}

// newPanels makes the tabs that follow the selected token.
func (u *UI) newPanels() *container.AppTabs {
	u.attn = views.NewAttentionPanel()
	u.attn.OnQuery = guard1(u, func(pos int) { u.stream.Select(pos) })
	u.next = views.NewNextTokenPanel()
	u.timing = views.NewTimingPanel()
	u.model = views.NewModelPanel()
	u.mlp = views.NewMLPPanel()
	u.inside = u.insideJobs.newInside()
	u.deltaNet = views.NewDeltaNetPanel()
	u.experts = views.NewExpertsPanel()
	u.experts.OnRerun = u.guard(u.switchExpertsOff)
	u.attn.OnExport = func(fig, f string) { defer u.rescue(); u.menus.export(fig, f) } // the grid or the head
	u.next.OnBranch = u.guard(u.branchDialog)
	u.timing.OnRemeasure = u.guard(u.host.remeasure)
	u.newCompare()
	u.experiments = u.experimentRunner.newExperiments()
	in := u.inside
	// The tabs, in order: a new panel is one more line here.
	u.panels = []views.Panel{u.attn, u.next, u.timing, u.model, u.mlp, u.experts, u.deltaNet,
		in.embed, in.kv, in.lens, in.sampler, u.compare, experimentExport{u.experiments, u}}
	tabs := container.NewAppTabs()
	for _, p := range u.panels {
		p.SetTheme(u.vizTheme)
		p.SetOnExport(guard1(u, func(f string) { u.menus.export(p.Name(), f) }))
		it := container.NewTabItem(p.Tab(), p.Object())
		if p == views.Panel(u.experts) {
			u.expertTab = it // shown only while an MoE model is open
			continue
		}
		if p == views.Panel(u.deltaNet) {
			u.deltaNetTab = it // shown only while a hybrid model is open
			continue
		}
		tabs.Append(it)
	}
	tabs.OnSelected = func(*container.TabItem) { defer u.rescue(); u.dirty = true; u.refreshPanels() }
	u.menus.exports = u.exportersByName()
	return tabs
}

// addShortcuts makes Ctrl+Enter generate and Esc stop wherever the focus is.
func (u *UI) addShortcuts() {
	for _, k := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter} {
		u.win.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierControl},
			func(fyne.Shortcut) { defer u.rescue(); u.generate() })
	}
	u.win.Canvas().SetOnTypedKey(guard1(u, u.typedKey))
}

// typedKey handles keys nothing focused took: Esc stops, ← and → move the
// selected token (after a click on the stream).
func (u *UI) typedKey(k *fyne.KeyEvent) {
	if u.lessonMode.lessonKey(k) {
		return
	}
	switch k.Name {
	case fyne.KeyEscape:
		u.stop()
	case fyne.KeyLeft:
		if u.st.Query > 0 {
			u.stream.Select(u.st.Query - 1)
		}
	case fyne.KeyRight:
		if u.st.Query >= 0 && u.st.Query < len(u.st.Tokens)-1 {
			u.stream.Select(u.st.Query + 1)
		}
	}
}

// start applies the flags, measures the bandwidth and opens the first model.
// selectKernels sets the menu from --kernels, else LOUPE_KERNELS (the
// saved choice stays when neither is given).
func (u *UI) selectKernels() {
	k, what := u.opt.Kernels, "--kernels "
	if k == "" {
		k, what = os.Getenv("LOUPE_KERNELS"), "LOUPE_KERNELS="
	}
	if k == "" {
		return
	}
	l, ok := parseKernelLabel(k)
	switch {
	case ok && kernelName(k) == "auto":
		u.controls.Kernels.SetSelected("auto")
	case ok && kernelName(k) == "exact":
		u.controls.Kernels.SetSelected(exactLabel)
	case ok && kernels.Supported(l):
		u.controls.Kernels.SetSelected(kernelLabel(l))
	case ok:
		u.fail(tr("app.err.kernel_level", nil), fmt.Errorf("%s%s: this CPU cannot run it (it can: %s)", what, k,
			strings.Join(kernelOptions(), ", ")))
	default:
		u.fail(tr("app.err.unknown_kernel_level", nil), fmt.Errorf("%s%q: use one of %s", what, k, kernels.ChoiceNames()))
	}
}

func (u *UI) start() {
	go views.CanDraw('é') // reads the fonts (~90 ms) before the first token needs them
	u.knobs.readKnobDefaults()
	u.knobs.restoreKnobs()
	u.restoreNumbering()
	if u.opt.Prompt != "" {
		u.controls.Prompt.SetText(u.opt.Prompt)
	}
	if u.opt.MaxTokens > 0 {
		u.controls.MaxTokens.SetText(fmt.Sprint(u.opt.MaxTokens))
	}
	if u.opt.Threads >= 0 {
		u.controls.Threads.SetText(fmt.Sprint(u.opt.Threads))
	}
	u.selectKernels()
	u.showTab(u.opt.Tab)
	if u.opt.UILatency {
		u.host.startUILatency()
	}
	u.modelsMenu.showDialog(u.opt.Dialog)
	u.generateAfter = u.opt.Generate
	u.lessonMode.startLesson()
	if u.opt.Ablate != "" || u.opt.Variant != "" || u.opt.DisableExperts != "" || u.opt.TopKExperts > 0 {
		u.cmp.then = u.flagExperiments
	}
	u.host.startBandwidth()
	path := u.opt.Model
	if path == "" {
		dir, err := demoModel()
		if err != nil {
			u.fail(tr("app.err.no_model", nil), fmt.Errorf("the demo model could not be prepared: %w; open a model folder (File › Open model folder…)", err))
			return
		}
		path, u.demoDir = dir, dir
		u.lessonReady()
	}
	u.openModel(path)
}

// demoMaxTokens is the demo's first run: a short answer that stays in view
// beside its prompt (100 tokens scrolled the prompt away).
const demoMaxTokens = 12

// lessonReady sets up a first launch on the demo model for a class: the
// article's prompt in the box and a short greedy run, unless the flags or
// the last session chose otherwise.
func (u *UI) lessonReady() {
	if u.controls.Prompt.Text == "" {
		if p := demoPrompts(); len(p) > 0 {
			u.controls.Prompt.SetText(p[0])
		}
	}
	if u.opt.MaxTokens == 0 && u.app.Preferences().String("knob.max_tokens") == "" {
		u.controls.MaxTokens.SetText(fmt.Sprint(demoMaxTokens))
	}
}

// showTab selects a panel by its export name.
func (u *UI) showTab(name string) {
	for _, p := range u.panels {
		for i, it := range u.tabs.Items {
			if p.Name() == name && it.Content == p.Object() {
				u.tabs.SelectIndex(i)
			}
		}
	}
}

// panelOn is the panel on screen; nil when none is.
func (u *UI) panelOn() views.Panel {
	for _, p := range u.panels {
		if u.selected(p.Object()) {
			return p
		}
	}
	return nil
}

// selected reports whether obj is the tab on screen.
func (u *UI) selected(obj fyne.CanvasObject) bool {
	return u.tabs.Selected() != nil && u.tabs.Selected().Content == obj
}

// shutdown cancels what runs, waits a little for it, and frees the model,
// once: Main and the quit watchdog (exitIfStuck) may both call it.
func (u *UI) shutdown() { u.shutdownOnce.Do(u.shutdownNow) }

func (u *UI) shutdownNow() {
	u.host.stopUILatency()
	u.closeAll()
	done := make(chan struct{})
	go func() { u.wg.Wait(); close(done) }()
	select {
	case <-done:
		if u.backend != nil {
			u.backend.Close()
		}
	case <-timeAfter(3):
		// A stuck worker must not keep the process alive: the OS frees the model.
	}
}

// fail reports err in a dialog and on stderr; with --quit it also sets
// the exit code and leaves once the generation has nothing more to do.
func (u *UI) fail(title string, err error) {
	if u.onFail != nil {
		u.onFail(title, err)
		return
	}
	fmt.Fprintf(os.Stderr, "loupe: %s: %v\n", title, err)
	if u.opt.Quit {
		u.exitCode = 1
		if !u.st.Running && !u.loading {
			quitScripted(u)
		}
		return
	}
	d := dialog.NewError(fmt.Errorf("%s\n\n%w", title, err), u.win)
	d.Show()
}

// hint is what to do before an action can start: the user has done
// nothing wrong, so it is told as information, not as an error.
type hint struct{ what string }

func (h *hint) Error() string { return h.what }

// inform shows a hint in a dialog titled after the action (the tests
// watch onInform instead).
func (u *UI) inform(title, what string) {
	if u.onInform != nil {
		u.onInform(title, what)
		return
	}
	if u.opt.Quit {
		fmt.Fprintf(os.Stderr, "loupe: %s: %s\n", title, what)
		return
	}
	dialog.NewInformation(title, what, u.win).Show()
}

// do runs f on the UI goroutine, unless the window is closing: after the
// event loop has stopped nobody would run it.
func (u *UI) do(f func()) {
	if u.ctx.Err() == nil {
		fyne.Do(func() {
			if serialDo != nil {
				serialDo.Lock()
				defer serialDo.Unlock()
			}
			defer u.rescue()
			f()
		})
	}
}

// guard wraps a UI callback so that a panic in it becomes an error dialog:
// no panic reaches the user.
func (u *UI) guard(f func()) func() {
	if f == nil {
		return nil
	}
	return func() { defer u.rescue(); f() }
}

// guard1 is guard for callbacks with one argument.
func guard1[T any](u *UI, f func(T)) func(T) {
	return func(x T) { defer u.rescue(); f(x) }
}

// rescue turns a panic of the UI goroutine into an error dialog; the
// session stays usable. It must be deferred directly.
func (u *UI) rescue() {
	if r := recover(); r != nil {
		u.fail(tr("app.err.internal", nil), fmt.Errorf("%v (the window stays usable; please report it)", r))
	}
}

func (u *UI) idle() {
	if u.onIdle != nil {
		u.onIdle()
	}
}

// showModelTabs puts the Experts tab after MLP while a mixture-of-experts
// model is open, and the DeltaNet tab after MLP (and Experts) while a
// model with Gated DeltaNet layers is; each is taken away on the others:
// there it only said that the model has none, and took a place the
// 1,366-pixel tab bar needs.
func (u *UI) showModelTabs(m trace.ModelInfo) {
	u.showTabIf(u.expertTab, m.Experts > 0, "experts", "MLP")
	u.showTabIf(u.deltaNetTab, m.DeltaNetHeads > 0, "deltanet", "MLP", "Experts")
}

// showTabIf adds it after the last of the tabs named after (at the end
// when none is there) or removes it; name is its --tab name.
func (u *UI) showTabIf(it *container.TabItem, on bool, name string, after ...string) {
	at := -1
	for i, x := range u.tabs.Items {
		if x == it {
			at = i
		}
	}
	switch {
	case on && at < 0:
		pos := len(u.tabs.Items)
		for i, x := range u.tabs.Items {
			if slices.ContainsFunc(after, func(a string) bool { return x.Text == tr("views.tab."+panelOfTab(a), nil) }) {
				pos = i + 1
			}
		}
		shown := u.tabs.Selected()
		items := append([]*container.TabItem{}, u.tabs.Items[:pos]...)
		items = append(items, it)
		u.tabs.SetItems(append(items, u.tabs.Items[pos:]...))
		if shown != nil {
			u.tabs.Select(shown)
		}
		if u.opt.Tab == name {
			u.showTab(name) // --tab names a tab that needed the model
		}
	case !on && at >= 0:
		u.tabs.Remove(it)
	}
}
