package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"

	"loupe/engine/hub"
	"loupe/i18n"
	"loupe/trace/stats"
	"loupe/views"
)

// modelsMenu is File › Models on this computer and Get a model…: listing, downloading and opening models.
type modelsMenu struct {
	ui      *UI
	dialogs modelDialogs // File › Models on this computer, Get a model…
}

// modelDialogs holds the two dialogs of the model catalogue, so that one
// download runs at a time and a closed window cancels it.
type modelDialogs struct {
	pulling bool
	cancel  context.CancelFunc
	get     *views.GetModel // the open "Get a model…" dialog, nil when closed
}

// modelItems are File menu entries: the models on disk and the download
// dialog.
func (fc *modelsMenu) modelItems() []*fyne.MenuItem {
	u := fc.ui
	return []*fyne.MenuItem{
		u.menus.item(tr("app.menu.local_models", nil), u.modelsMenu.showLocalModels),
		u.menus.item(tr("app.menu.get_model", nil), u.modelsMenu.showGetModel),
	}
}

// showDialog opens the dialog named by --dialog.
func (fc *modelsMenu) showDialog(name string) {
	u := fc.ui
	switch name {
	case "":
	case "models":
		u.modelsMenu.showLocalModels()
	case "get-model":
		u.modelsMenu.showGetModel()
	default:
		u.fail(tr("app.err.unknown_dialog", nil), fmt.Errorf("--dialog %q: use models or get-model", name))
	}
}

// places is where models are looked for.
func places() []hub.Place { return hub.Places() }

// searched names the folders looked in, for the status line.
func searched(ps []hub.Place) string {
	var names []string
	for _, p := range ps {
		if st, err := os.Stat(p.Dir); p.HF || (err == nil && st.IsDir()) {
			names = append(names, p.Dir)
		}
	}
	return strings.Join(names, ", ")
}

// showLocalModels lists the models found on disk (scanned in the
// background: a big cache takes a moment) and opens the chosen one.
func (fc *modelsMenu) showLocalModels() {
	u := fc.ui
	v := views.NewLocalModels()
	d := dialog.NewCustom(tr("app.models.local_title", nil), tr("app.close", nil), v.Box, u.win)
	v.OnOpen = func(path string) { d.Hide(); u.openModel(path) }
	v.OnGet = func() { d.Hide(); u.modelsMenu.showGetModel() }
	v.OnBrowse = func() { d.Hide(); u.pickFolder() }
	d.Resize(dialogSize(u.win, 1000, 760))
	d.Show()
	ps := places()
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		found := hub.Scan(ps)
		u.do(func() { v.Set(localRows(found), searched(ps)) })
	}()
}

func localRows(found []hub.Local) []views.LocalModel {
	rows := make([]views.LocalModel, len(found))
	for i, m := range found {
		name := m.Name
		if m.Revision != "" && m.Revision != "main" {
			name += " @ " + m.Revision
		}
		rows[i] = views.LocalModel{Name: name, Size: nums().Bytes(float64(m.Bytes)), Source: m.Source, Path: m.Path,
			CanOpen: m.CanOpen, Why: m.Why}
	}
	return rows
}

// dialogSize is w × h, or less on a small window.
func dialogSize(win fyne.Window, w, h float32) fyne.Size {
	s := win.Canvas().Size()
	return fyne.NewSize(min(w, s.Width*0.95), min(h, s.Height*0.92))
}

// offers is the catalogue as the dialog shows it, with what is on disk.
func offers(cache string) []views.ModelOffer {
	out := make([]views.ModelOffer, len(hub.Catalog))
	for i, e := range hub.Catalog {
		ok, why := e.Supported()
		_, local := e.Local(cache)
		out[i] = views.ModelOffer{ID: e.ID, Title: e.Title, Size: tr("app.models.about", nil) + " " + nums().Bytes(float64(e.Bytes)), Licence: e.Licence,
			Shows: shows(e), CanRun: ok, Why: why, Local: local && ok}
	}
	return out
}

// shows is what a catalogue entry shows well, in the window's language:
// the key "app.models.shows." and its id; the catalogue's English
// sentence for an entry the files do not have yet.
func shows(e hub.Entry) string {
	k := "app.models.shows." + e.ID
	if s := tr(k, nil); s != k {
		return s
	}
	return e.Shows
}

// showGetModel opens the download dialog. Closing it while a download
// runs cancels the download (the partial file is kept and resumed next time).
func (fc *modelsMenu) showGetModel() {
	u := fc.ui
	if fc.dialogs.get != nil {
		return
	}
	c := hub.NewClient()
	g := views.NewGetModel(offers(c.Cache), c.Cache)
	d := dialog.NewCustom(tr("app.models.get_title", nil), tr("app.close", nil), g.Box, u.win)
	fc.dialogs.get = g
	d.SetOnClosed(func() {
		if fc.dialogs.cancel != nil {
			fc.dialogs.cancel()
		}
		fc.dialogs.get = nil
	})
	g.OnCancel = func() {
		if fc.dialogs.cancel != nil {
			fc.dialogs.cancel()
		}
	}
	g.OnGet = func(id string) { u.modelsMenu.getModel(c, g, d, id) }
	d.Resize(dialogSize(u.win, 1000, 900))
	d.Show()
	g.Select(hub.Catalog[0].ID)
}

// getModel opens id when it is on disk, else downloads it with progress
// in the dialog and opens it when done.
func (fc *modelsMenu) getModel(c *hub.Client, g *views.GetModel, d dialog.Dialog, id string) {
	u := fc.ui
	if fc.dialogs.pulling {
		return
	}
	if err := hub.CheckRepoID(id); err != nil {
		g.SetError(err.Error())
		return
	}
	if dir, ok := (hub.Entry{ID: id}).Local(c.Cache); ok {
		d.Hide()
		u.openModel(dir)
		return
	}
	ctx, cancel := context.WithCancel(u.ctx)
	fc.dialogs.pulling, fc.dialogs.cancel = true, cancel
	g.SetBusy(true)
	g.SetProgress(0, tr("app.models.asking", i18n.Args{"Endpoint": c.Endpoint, "ID": id}))
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		defer cancel()
		dir, err := c.Pull(ctx, id, "main", func(p hub.Progress) {
			u.do(func() { g.SetProgress(progressShare(p), progressText(p)) })
		})
		u.do(func() { u.modelsMenu.pulled(g, d, id, dir, err) })
	}()
}

// pulled ends a download: open the model, or say why not.
func (fc *modelsMenu) pulled(g *views.GetModel, d dialog.Dialog, id, dir string, err error) {
	u := fc.ui
	fc.dialogs.pulling, fc.dialogs.cancel = false, nil
	g.SetBusy(false)
	switch {
	case errors.Is(err, context.Canceled):
		g.SetError(tr("app.models.cancelled", nil))
	case err != nil:
		g.SetError(err.Error())
	default:
		if ok, why := hub.CheckFolder(dir); !ok {
			g.SetError(tr("app.models.cannot_open", i18n.Args{"Dir": dir, "Why": why}))
			return
		}
		g.SetProgress(1, tr("app.models.downloaded", i18n.Args{"ID": id, "Dir": filepath.Clean(dir)}))
		d.Hide()
		u.openModel(dir)
	}
}

// progressShare is the share of the download done; 0 while its size is
// unknown (a progress bar cannot show NaN).
func progressShare(p hub.Progress) float64 {
	return stats.OrZero(stats.Ratio(float64(p.Done), float64(p.Total)))
}

// progressText is "model.safetensors (3 of 7) · 1.20 GB of 3.09 GB · 21.4 MB/s · 1 min 30 s left".
func progressText(p hub.Progress) string {
	if p.Finished {
		return tr("app.models.all_in_place", i18n.Args{"N": p.Files, "Bytes": nums().Bytes(float64(p.Total))})
	}
	s := tr("app.models.progress", i18n.Args{"File": p.File, "I": p.FileIndex, "N": p.Files, "Done": nums().Bytes(float64(p.Done)), "Total": nums().Bytes(float64(p.Total))})
	if p.BytesPerSec > 0 {
		s += " · " + nums().Bytes(p.BytesPerSec) + "/s"
	}
	if p.Remaining >= 0 {
		s += " · " + tr("app.models.left", i18n.Args{"Time": nums().Duration(p.Remaining.Seconds())})
	}
	if p.Note != "" {
		s += " · " + p.Note
	}
	return s
}
