package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	nativedialog "github.com/sqweek/dialog"

	"loupe/engine"
	"loupe/engine/experiment"
	"loupe/engine/fingerprint"
	"loupe/i18n"
	"loupe/kernels"
	"loupe/views"
	"loupe/viz"
)

// experimentFigure draws the last experiment's result, with the sentence
// reading it under the figure: the export, read away from the window.
func (fc *experimentRunner) experimentFigure() viz.Figure {
	u := fc.ui
	return u.experimentRunner.experimentFigureWith(true)
}

// experimentPanelFigure is the figure the panel shows: without the
// sentences, which the panel writes above and below it in full (in the
// figure they would be cut to a line at 1,366 px). It reads at about 19
// px a bar row plus 110 px of title and axis; the two texts' figure at
// 380 px (less drops the second text's bar).
func (fc *experimentRunner) experimentPanelFigure() viz.Figure {
	u := fc.ui
	need := float32(0)
	if r := u.experiment; r != nil {
		need = float32(110 + 2*19*len(r.Points))
		if r.What == experiment.Texts {
			need = 380
		}
		if r.What == experiment.Batch { // three bars a point (batchexperiment.go)
			need = float32(110 + 3*19*len(r.Points))
		}
	}
	u.experiments.SetFigureNeed(need)
	return u.experimentRunner.experimentFigureWith(false)
}

// experimentFigureWith draws the last result, notes: with the reading
// sentence and where the sweep stopped under the figure.
func (fc *experimentRunner) experimentFigureWith(withNotes bool) viz.Figure {
	u := fc.ui
	th := u.vizTheme()
	r := u.experiment
	if r == nil {
		return viz.NoData(th, tr("app.exp.none_yet", nil))
	}
	if r.What == experiment.Texts {
		rows := make([]viz.TimingRow, len(r.Points))
		for i, p := range r.Points {
			rows[i] = viz.TimingRow{Label: p.Label, PrefillTokens: p.PrefillTokens, PrefillSeconds: p.PrefillSeconds,
				DecodeTokens: p.DecodeTokens, DecodeSeconds: p.DecodeSeconds, BytesPerToken: p.BytesPerToken}
		}
		return viz.TimingBars(rows, r.BandwidthGBs, th)
	}
	if r.What == experiment.Batch {
		return batchFigure(*r, withNotes, th)
	}
	pts := make([]viz.SweepPoint, len(r.Points))
	for i, p := range r.Points {
		pts[i] = viz.SweepPoint{Label: p.Label, PrefillTokS: p.PrefillTokS, DecodeTokS: p.DecodeTokS,
			PredictedTokS: p.PredictedDecodeTokS, BytesPerToken: p.BytesPerToken}
	}
	var notes []string
	if withNotes {
		notes = append(notes, experiment.ReadingIn(*r, views.Lang))
		if r.Stopped != "" {
			notes = append(notes, r.Stopped)
		}
	}
	return viz.Sweep(experimentTitle(r.What), pts, notes, th)
}

// experimentCSV is the last experiment's points.
func (fc *experimentRunner) experimentCSV() ([]byte, error) {
	u := fc.ui
	if u.experiment == nil {
		return nil, errors.New(tr("app.exp.none_yet", nil))
	}
	var b bytes.Buffer
	err := experiment.WriteCSV(&b, *u.experiment)
	return b.Bytes(), err
}

// experimentExport exports the Experiments panel: the figure of the last
// result and the experiment's own CSV.
type experimentExport struct {
	*views.ExperimentsPanel
	u *UI
}

func (e experimentExport) Figure() viz.Figure { return e.u.experimentRunner.experimentFigure() }
func (e experimentExport) CSV(*views.CSV) error {
	return errors.New("the experiments write their CSV whole")
}
func (e experimentExport) WholeCSV() ([]byte, error) { return e.u.experimentRunner.experimentCSV() }

// saveExperiment writes the last result with what reruns it (model
// fingerprint, options, kernel level, threads).
func (fc *experimentRunner) saveExperiment() {
	u := fc.ui
	data, err := u.experimentRunner.experimentJSON()
	if err != nil {
		u.fail(tr("app.err.save_exp", nil), err)
		return
	}
	u.menus.saveFile(tr("app.save.exp_title", nil), "loupe-experiment-"+u.experiment.What+".json", "json", data)
}

// experimentJSON is the last result as a saved experiment.
func (fc *experimentRunner) experimentJSON() ([]byte, error) {
	u := fc.ui
	r := u.experiment
	m, ok := u.backend.(*engine.Model)
	if r == nil || !ok {
		return nil, errors.New("run an experiment first")
	}
	fp, err := fingerprint.Of(u.st.Info.Path)
	if err != nil {
		return nil, err
	}
	rec := experiment.NewRecord(*r, u.experimentOpt, u.st.Info.Path, fp, recordedKernels(u.experimentOpt.Kernels), m.Threads())
	return json.MarshalIndent(rec, "", " ")
}

// recordedKernels names the kernel choice an experiment ran with, for its
// rerun: "auto", "exact" or a level (kernels.ChoiceOf reads it back).
func recordedKernels(c kernels.Choice) string {
	if c.IsZero() {
		c = kernels.Current()
	}
	return c.Name()
}

// pickExperiment asks for a saved experiment and opens it.
func (fc *experimentRunner) pickExperiment() {
	u := fc.ui
	u.pick(func() (string, error) {
		return nativedialog.File().Title(tr("app.pick.exp", nil)).Filter(tr("app.pick.exp_filter", nil), "json").Load()
	}, func(use func(string)) {
		dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
			if err == nil && r != nil {
				r.Close()
				use(r.URI().Path())
			}
		}, u.win)
	}, u.experimentRunner.openExperiment)
}

// openExperiment shows a saved result and offers to rerun it.
func (fc *experimentRunner) openExperiment(path string) {
	u := fc.ui
	data, err := os.ReadFile(path)
	if err == nil {
		var rec experiment.Record
		if rec, err = experiment.ReadRecord(data); err == nil {
			r := rec.Result()
			u.experiment, u.experimentRecord = &r, &rec
			u.showTab("experiments")
			u.experiments.Choose(rec.What)
			u.experiments.Display(u.experimentRunner.experimentPanelFigure(), rec.Reading, strings.Join(experimentNotes(r), "\n"))
			u.experiments.Plan.SetText(tr("app.exp.saved_plan", i18n.Args{"When": rec.When.Local().Format("2006-01-02 15:04"),
				"Model": filepath.Base(rec.ModelPath), "Kernels": rec.Kernels, "Threads": rec.Threads}))
			u.experiments.Rerun.Show()
			return
		}
	}
	u.fail(tr("app.err.open_exp", nil), fmt.Errorf("%s: %w", path, err))
}

// rerunExperiment measures the opened result again: the same model
// (checked by its fingerprint), options, kernel level and threads.
func (fc *experimentRunner) rerunExperiment() {
	u := fc.ui
	rec := u.experimentRecord
	m, ok := u.backend.(*engine.Model)
	switch {
	case rec == nil:
		u.fail(tr("app.exp.nothing_rerun", nil), errors.New(tr("app.hint.open_experiment", nil)))
		return
	case u.st.Running || u.loading:
		u.experiments.Status.SetText(tr("app.lesson.busy", nil))
		return
	case !ok:
		u.fail(tr("app.err.no_model_loaded", nil), fmt.Errorf("open %s first: the experiment reruns on it", rec.ModelPath))
		return
	}
	if fp, err := fingerprint.Of(u.st.Info.Path); err != nil || fp != rec.Fingerprint {
		u.fail(tr("app.exp.another_model", nil), fmt.Errorf("the experiment was measured on %s; the model open now is not that one (its files differ): open it, then re-run", rec.ModelPath))
		return
	}
	opt := rec.Opts() // with the recorded kernel choice, which its runs carry
	if err := kernels.Use(opt.Kernels); err != nil || opt.Kernels.IsZero() {
		u.fail(tr("app.err.kernel_level", nil), fmt.Errorf("the experiment ran with kernels %s, which this CPU does not have", rec.Kernels))
		return
	}
	if rec.Threads > 0 && rec.Threads != m.Threads() {
		m.SetThreads(rec.Threads)
		u.threads = rec.Threads
	}
	u.experimentRunner.startExperiment(m, opt)
}
