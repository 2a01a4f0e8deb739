package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

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
	OnChoose func(key string) // an experiment was picked: set Plan
	OnRun    func(key string)
	OnCancel func()
	OnExport func(format string)
	OnSave   func() // save the result with what reruns it
	OnOpen   func() // open a saved result
	OnRerun  func() // rerun the opened result and compare
	Theme    func() viz.Theme

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

	keys []Experiment
	fig  *figureBox
	box  *fyne.Container
}

// NewExperimentsPanel makes the panel for the given experiments.
func NewExperimentsPanel(list []Experiment) *ExperimentsPanel {
	p := &ExperimentsPanel{keys: list, Plan: caption(""), Status: caption(""), Reading: boldLabel(""), Notes: caption(""),
		Progress: widget.NewProgressBar(), fig: newFigureBox(900, 420)}
	titles := make([]string, len(list))
	for i, e := range list {
		titles[i] = e.Title
	}
	p.List = widget.NewSelect(titles, func(title string) {
		if k := p.keyOf(title); k != "" && p.OnChoose != nil {
			p.OnChoose(k)
		}
	})
	p.Run = widget.NewButton("Run experiment", func() {
		if k := p.Selected(); k != "" && p.OnRun != nil {
			p.OnRun(k)
		}
	})
	p.Run.Importance = widget.HighImportance
	p.Cancel = widget.NewButton("Cancel", func() {
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
	p.Save = widget.NewButton("Save result…", call(&p.OnSave))
	p.Save.Disable()
	p.Open = widget.NewButton("Open result…", call(&p.OnOpen))
	p.Rerun = widget.NewButton("Re-run and compare", call(&p.OnRerun))
	p.Rerun.Hide()
	head := container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("Experiment:"), container.NewHBox(p.Run, p.Cancel), p.List),
		p.Plan, p.Progress, p.Status)
	body := container.NewVBox(p.fig.img, p.Reading, p.Notes)
	files := container.NewHBox(p.Save, p.Open, p.Rerun)
	p.box = container.NewBorder(container.NewVBox(container.NewBorder(nil, nil, files, nil, exportButtons(func(f string) {
		if p.OnExport != nil {
			p.OnExport(f)
		}
	})), head), nil, nil, nil, container.NewVScroll(body))
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

// SetRunning switches between running (progress, Cancel) and idle.
func (p *ExperimentsPanel) SetRunning(on bool) {
	if on {
		p.Run.Disable()
		p.Save.Disable()
		p.Open.Disable()
		p.Rerun.Disable()
		p.List.Disable()
		p.Cancel.Enable()
		p.Progress.SetValue(0)
		p.Progress.Show()
		return
	}
	p.Run.Enable()
	p.Open.Enable()
	p.Rerun.Enable()
	p.List.Enable()
	p.Cancel.Disable()
	p.Progress.Hide()
}

// SetProgress shows the share done and what runs now.
func (p *ExperimentsPanel) SetProgress(frac float64, what string) {
	p.Progress.SetValue(frac)
	p.Status.SetText(what)
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
}

// Figure is the figure shown (nil when none).
func (p *ExperimentsPanel) Figure() viz.Figure { return p.fig.fig }
