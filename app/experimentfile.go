package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	nativedialog "github.com/sqweek/dialog"

	"loupe/engine"
	"loupe/engine/experiment"
	"loupe/engine/fingerprint"
	"loupe/i18n"
	"loupe/kernels"
	"loupe/session"
	"loupe/views"
	"loupe/viz"
)

// experimentCSV is the last experiment's points.
func (fc *experimentRunner) experimentCSV() ([]byte, error) {
	u := fc.ui
	r := u.st.Experiment.Result
	if r == nil {
		return nil, errors.New(tr("app.exp.none_yet", nil))
	}
	var b bytes.Buffer
	err := experiment.WriteCSV(&b, *r)
	return b.Bytes(), err
}

// experimentExport exports the Experiments panel: the figure of the last
// result and the experiment's own CSV.
type experimentExport struct {
	*views.ExperimentsPanel
	u *UI
}

// Figure is the last result with the sentence reading it under the
// figure: the export, read away from the window.
func (e experimentExport) Figure() viz.Figure {
	return views.ExperimentFigure(e.u.st.Experiment.Result, true, e.u.vizTheme())
}
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
	u.menus.saveFile(tr("app.save.exp_title", nil), "loupe-experiment-"+u.st.Experiment.Result.What+".json", "json", data)
}

// experimentJSON is the last result as a saved experiment.
func (fc *experimentRunner) experimentJSON() ([]byte, error) {
	u := fc.ui
	r := u.st.Experiment.Result
	m, ok := u.backend.(*engine.Model)
	if r == nil || !ok {
		return nil, errors.New("run an experiment first")
	}
	fp, err := fingerprint.Of(u.st.Info.Path)
	if err != nil {
		return nil, err
	}
	rec := experiment.NewRecord(*r, fc.opt, u.st.Info.Path, fp, recordedKernels(fc.opt.Kernels), m.Threads())
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
			fc.record = &rec
			u.showTab("experiments")
			fc.show(func(e *session.Experiment) {
				*e = session.Experiment{Result: &r, Reading: rec.Reading, Key: rec.What, Saved: true,
					Plan: tr("app.exp.saved_plan", i18n.Args{"When": rec.When.Local().Format("2006-01-02 15:04"),
						"Model": filepath.Base(rec.ModelPath), "Kernels": rec.Kernels, "Threads": rec.Threads})}
			})
			return
		}
	}
	u.fail(tr("app.err.open_exp", nil), fmt.Errorf("%s: %w", path, err))
}

// rerunExperiment measures the opened result again: the same model
// (checked by its fingerprint), options, kernel level and threads.
func (fc *experimentRunner) rerunExperiment() {
	u := fc.ui
	rec := fc.record
	m, ok := u.backend.(*engine.Model)
	switch {
	case rec == nil:
		u.fail(tr("app.exp.nothing_rerun", nil), errors.New(tr("app.hint.open_experiment", nil)))
		return
	case u.st.Running || u.loading:
		fc.show(func(e *session.Experiment) { e.Status = tr("app.lesson.busy", nil) })
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
		u.host.threads = rec.Threads
	}
	u.experimentRunner.startExperiment(m, opt)
}
