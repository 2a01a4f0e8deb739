package views

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"loupe/engine/experiment"
	"loupe/session"
	"loupe/viz"
)

// Experiment names one experiment of the Experiments panel: Key is its
// name in code (experiment.Context, …), Title the one the list shows.
type Experiment struct{ Key, Title string }

// ExperimentsPanel runs the measurements that show the two times on this
// machine: a list of experiments, the sentence saying what the chosen one
// runs and about how long, Run and Cancel with a progress bar, then its
// figure and the sentence that reads it.
type ExperimentsPanel struct {
	widget.BaseWidget
	panelBase                  // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)
	OnChoose  func(key string) // an experiment was picked: set Plan
	OnRun     func(key string)
	OnCancel  func()
	OnSave    func() // save the result with what reruns it
	OnOpen    func() // open a saved result
	OnRerun   func() // rerun the opened result and compare

	List     *widget.Select
	Plan     *widget.Label // what it will run, about how long
	Run      *widget.Button
	Cancel   *widget.Button
	Save     *widget.Button
	Open     *widget.Button
	Rerun    *widget.Button // shown once a saved result is open
	Progress *widget.ProgressBar
	Status   *widget.Label // what runs now, or why it stopped
	Reading  *widget.Label // the sentence under the figure
	Notes    *widget.Label // what the figures are and are not

	keys    []Experiment
	shown   shownExperiment // what ShowView drew last
	running bool            // drawn running: Cancel and the progress bar
	drawing bool            // ShowView chooses in the list: not the user's pick
	fig     *fitFigure
	box     *fyne.Container
	// tools holds the file buttons and the export buttons: on one row,
	// or on two in projector mode (Compact), where at 1.5 × type the row
	// was wider than the room beside the lesson card in French.
	tools, files, exports *fyne.Container
}

// NewExperimentsPanel makes the panel for the given experiments.
func NewExperimentsPanel(list []Experiment) *ExperimentsPanel {
	p := &ExperimentsPanel{keys: list, Plan: caption(""), Status: caption(""), Reading: boldLabel(""), Notes: caption(""),
		Progress: widget.NewProgressBar(), fig: newFitFigure()}
	titles := make([]string, len(list))
	for i, e := range list {
		titles[i] = e.Title
	}
	p.List = widget.NewSelect(titles, func(title string) {
		p.Plan.Show()
		if k := p.keyOf(title); k != "" && p.OnChoose != nil && !p.drawing {
			p.OnChoose(k)
		}
	})
	p.Run = widget.NewButton(tr("views.experiments.run", nil), func() {
		if k := p.Selected(); k != "" && p.OnRun != nil {
			p.OnRun(k)
		}
	})
	p.Run.Importance = widget.HighImportance
	p.Cancel = widget.NewButton(tr("views.cancel", nil), func() {
		if p.OnCancel != nil {
			p.OnCancel()
		}
	})
	p.Cancel.Disable()
	p.Progress.Hide()
	call := func(f *func()) func() {
		return func() {
			if *f != nil {
				(*f)()
			}
		}
	}
	p.Save = widget.NewButton(tr("views.experiments.save", nil), call(&p.OnSave))
	p.Save.Disable()
	p.Open = widget.NewButton(tr("views.experiments.open", nil), call(&p.OnOpen))
	p.Rerun = widget.NewButton(tr("views.experiments.rerun", nil), call(&p.OnRerun))
	p.Rerun.Hide()
	head := container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel(tr("views.experiments.label", nil)), container.NewHBox(p.Run, p.Cancel), p.List),
		p.Plan, p.Progress, p.Status)
	// The sentence reading the result sits above the figure and the notes
	// below it; the figure takes the room left (fitFigure), so at 1,366 ×
	// 768 all three are on screen without scrolling.
	notes := container.NewVScroll(p.Notes)
	line := fyne.MeasureText("Mg", theme.TextSize(), fyne.TextStyle{}).Height
	notes.SetMinSize(fyne.NewSize(0, 2*line+2*theme.InnerPadding())) // two lines; more scroll
	body := container.NewBorder(p.Reading, notes, nil, nil, p.fig)
	p.files = container.NewHBox(p.Save, p.Open, p.Rerun)
	p.exports = exportButtons(func(f string) {
		if p.OnExport != nil {
			p.OnExport(f)
		}
	})
	p.tools = container.NewBorder(nil, nil, p.files, nil, p.exports)
	p.box = container.NewBorder(container.NewVBox(p.tools, head), nil, nil, nil, body)
	p.ExtendBaseWidget(p)
	return p
}

// CreateRenderer implements fyne.Widget.
func (p *ExperimentsPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.box)
}

func (p *ExperimentsPanel) keyOf(title string) string {
	for _, e := range p.keys {
		if e.Title == title {
			return e.Key
		}
	}
	return ""
}

// Selected is the key of the chosen experiment ("" none).
func (p *ExperimentsPanel) Selected() string { return p.keyOf(p.List.Selected) }

// Choose selects the experiment key.
func (p *ExperimentsPanel) Choose(key string) {
	for _, e := range p.keys {
		if e.Key == key {
			p.List.SetSelected(e.Title)
		}
	}
}

// setRunning switches between running (progress, Cancel) and idle.
func (p *ExperimentsPanel) setRunning(on bool) {
	p.running = on
	if on {
		p.Run.Disable()
		p.Save.Disable()
		p.Open.Disable()
		p.Rerun.Disable()
		p.List.Disable()
		p.Cancel.Enable()
		p.Progress.SetValue(0)
		p.Progress.Show()
		p.Plan.Show()
		p.Status.Show()
		return
	}
	p.Run.Enable()
	p.Open.Enable()
	p.Rerun.Enable()
	p.List.Enable()
	p.Cancel.Disable()
	p.Progress.Hide()
}

// Display draws a result: its figure (nil clears), the sentence reading it
// and its notes.
func (p *ExperimentsPanel) Display(fig viz.Figure, reading, notes string) {
	if fig != nil {
		p.Save.Enable()
	} else {
		p.Save.Disable()
	}
	p.fig.show(fig)
	p.Reading.SetText(reading)
	p.Notes.SetText(notes)
	// With a result on screen the plan is old news and an empty status
	// says nothing: the figure gets their lines (at 1,366 × 768 it has
	// about 300 px).
	if fig != nil {
		p.Plan.Hide()
	}
	if p.Status.Text == "" {
		p.Status.Hide()
	}
}

// SetFigureNeed sets the least height in pixels the next figure reads at
// (0: any); in less room it is drawn at that height and scaled down.
func (p *ExperimentsPanel) SetFigureNeed(h float32) { p.fig.need = h }

// Figure is the figure shown (nil when none).
func (p *ExperimentsPanel) Figure() viz.Figure { return p.fig.fig }

// fitFigure draws its figure at the size the layout gives it, in pixels
// of the window's canvas: the text stays at the window's size and the
// figure fits the room (about 960 × 300 at 1,366 × 768) instead of being
// scaled down or cut by a scroll. It draws again only when the size
// changes by more than a few pixels.
type fitFigure struct {
	widget.BaseWidget
	img   *canvas.Image
	fig   viz.Figure
	drawn fyne.Size
	// need is the least height the figure reads at: a smaller room gets
	// it drawn at need and scaled down (text a little smaller) rather than
	// rows dropped or the window grown past the screen.
	need float32
}

// fitMin is the smallest a fitted figure gets; below it the window is too
// small for any figure to be read.
var fitMin = fyne.NewSize(FigureMinWidth, 220)

func newFitFigure() *fitFigure {
	f := &fitFigure{img: canvas.NewImageFromImage(nil)}
	f.img.FillMode = canvas.ImageFillContain
	f.ExtendBaseWidget(f)
	return f
}

// show draws fig at the current size (nil: clears).
func (f *fitFigure) show(fig viz.Figure) {
	f.fig, f.drawn = fig, fyne.Size{}
	f.draw(f.Size())
}

// draw renders the figure at size s, once per size.
func (f *fitFigure) draw(s fyne.Size) {
	s = s.Max(fitMin)
	if f.fig == nil {
		f.img.Image = nil
		f.img.Refresh()
		return
	}
	if abs32(s.Width-f.drawn.Width) < 4 && abs32(s.Height-f.drawn.Height) < 4 {
		return
	}
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(f); c != nil {
		scale = c.Scale()
	}
	h := max(s.Height, f.need)
	if img, err := viz.Image(f.fig, int(s.Width*scale), int(h*scale), viz.DPI); err == nil {
		f.img.Image, f.drawn = img, s
	}
	f.img.Refresh()
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// CreateRenderer implements fyne.Widget.
func (f *fitFigure) CreateRenderer() fyne.WidgetRenderer { return &fitRenderer{f: f} }

type fitRenderer struct{ f *fitFigure }

func (r *fitRenderer) Layout(s fyne.Size) {
	r.f.img.Resize(s)
	r.f.draw(s)
}

// MinSize is less than fitMin: a room smaller than the figure's scales
// it down (ImageFillContain). At fitMin the tab's least height held the
// divider under the token strip where it was at 1,366 × 768.
func (r *fitRenderer) MinSize() fyne.Size           { return fyne.NewSize(fitMin.Width, fitMin.Height/2) }
func (r *fitRenderer) Refresh()                     { r.f.img.Refresh() }
func (r *fitRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.f.img} }
func (r *fitRenderer) Destroy()                     {}

// Tab is the tab's title.
func (p *ExperimentsPanel) Tab() string { return tr("views.tab.experiments", nil) }

// Name is the panel's name for exports and --tab.
func (p *ExperimentsPanel) Name() string { return "experiments" }

// Object is what the tab holds.
func (p *ExperimentsPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the experiment of v: its result, then the plan, the
// status and, while one runs, its progress.
func (p *ExperimentsPanel) ShowView(v session.View) {
	p.showResult(v.Experiment)
	p.showState(v.Experiment)
}

// showResult draws e's result. It does not change with the selection: it
// is drawn again only when it, its sentence or the figures' theme changed.
func (p *ExperimentsPanel) showResult(e session.Experiment) {
	th := figTheme(p.FigureTheme)
	key := shownExperiment{e.Result, e.Reading, fmt.Sprint(th.Background, th.Foreground, th.FontSize)}
	if key == p.shown || e.Result == nil && p.fig.fig == nil && p.Reading.Text == "" {
		return
	}
	p.shown = key
	if e.Result == nil {
		p.Display(nil, "", "")
		return
	}
	p.fig.need = experimentNeed(e.Result)
	p.Display(ExperimentFigure(e.Result, false, th), e.Reading, strings.Join(ExperimentNotes(*e.Result), "\n"))
}

// showState draws the experiment chosen in the list, what runs: Run or Cancel and the progress bar, the
// plan (shown again when it changes: with a result on screen an old plan
// is hidden), the status (hidden when empty) and Re-run for a result
// opened from its file.
func (p *ExperimentsPanel) showState(e session.Experiment) {
	if e.Key != "" && e.Key != p.Selected() {
		p.drawing = true
		p.Choose(e.Key)
		p.drawing = false
	}
	if e.Running != p.running {
		p.setRunning(e.Running)
	}
	if e.Plan != p.Plan.Text {
		p.Plan.SetText(e.Plan)
		p.Plan.Show()
	}
	p.Status.SetText(e.Status)
	if e.Status != "" || e.Running {
		p.Status.Show()
	} else {
		p.Status.Hide()
	}
	if e.Running {
		p.Progress.SetValue(e.Progress)
	}
	if e.Saved {
		p.Rerun.Show()
	} else {
		p.Rerun.Hide()
	}
}

// shownExperiment is what the panel drew: the result, its sentence and
// the theme.
type shownExperiment struct {
	result  *experiment.Result
	reading string
	theme   string
}

// Parts are the objects the panel lays out.
func (p *ExperimentsPanel) Parts() []fyne.CanvasObject { return parts(p.box) }

// The app wraps the panel with the experiment's figure and CSV to make it
// a Panel (the experiments know their runs, the panel only shows them).

// Compact puts the export buttons on a row of their own, under the file
// buttons, so that the panel is no wider than the room beside the lesson
// card in projector mode; off, both are on one row again.
func (p *ExperimentsPanel) Compact(on bool) {
	if on {
		p.tools.Layout = layout.NewVBoxLayout()
		p.tools.Objects = []fyne.CanvasObject{p.files, p.exports}
	} else {
		p.tools.Layout = layout.NewBorderLayout(nil, nil, p.files, nil)
		p.tools.Objects = []fyne.CanvasObject{p.exports, p.files}
	}
	p.tools.Refresh()
	p.Refresh()
}

var _ Compacter = (*ExperimentsPanel)(nil)
