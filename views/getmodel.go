package views

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
)

// ModelOffer is one model of the "Get a model…" list, as plain text.
type ModelOffer struct {
	ID, Title, Size, Licence, Shows string
	CanRun                          bool   // this version of Loupe runs its architecture
	Why                             string // why not, when CanRun is false
	Local                           bool   // already downloaded: the button opens it
}

// GetModel is the content of the "Get a model…" dialog: a short list of
// models, a field for any ORG/NAME, a progress bar and the buttons. The
// app does the downloading; it calls SetProgress, SetBusy and SetError.
type GetModel struct {
	Box    fyne.CanvasObject
	Repo   *widget.Entry
	Bar    *widget.ProgressBar
	Status *widget.Label
	Get    *widget.Button
	Cancel *widget.Button

	OnGet    func(id string) // download (or open, when on disk) this repo id
	OnCancel func()

	offers []ModelOffer
	list   *widget.List
	busy   bool
}

// NewGetModel lays out the dialog for offers; where is the cache folder,
// named so that a teacher knows where the files go.
func NewGetModel(offers []ModelOffer, where string) *GetModel {
	g := &GetModel{offers: offers}
	g.list = widget.NewList(func() int { return len(g.offers) }, newOfferRow, func(i widget.ListItemID, o fyne.CanvasObject) {
		fillOfferRow(o, g.offers[i])
	})
	g.list.OnSelected = func(i widget.ListItemID) {
		if i >= 0 && i < len(g.offers) && !g.busy {
			g.Repo.SetText(g.offers[i].ID)
		}
	}
	g.Repo = widget.NewEntry()
	g.Repo.SetPlaceHolder(tr("views.get.placeholder", nil))
	g.Repo.OnChanged = func(string) { g.refreshButton() }
	g.Repo.OnSubmitted = func(string) { g.get() }
	g.Bar = widget.NewProgressBar()
	g.Bar.Hide()
	g.Status = widget.NewLabel("")
	g.Status.Wrapping = fyne.TextWrapWord
	g.Get = widget.NewButton(tr("views.get.download", nil), g.get)
	g.Get.Importance = widget.HighImportance
	g.Cancel = widget.NewButton(tr("views.get.cancel", nil), func() {
		if g.OnCancel != nil {
			g.OnCancel()
		}
	})
	g.Cancel.Disable()
	intro := widget.NewLabel(tr("views.get.intro", i18n.Args{"Where": where}))
	intro.Wrapping = fyne.TextWrapWord
	field := container.NewBorder(nil, nil, widget.NewLabel(tr("views.get.id", nil)), nil, g.Repo)
	bottom := container.NewVBox(field, g.Bar, g.Status,
		container.NewHBox(layout.NewSpacer(), g.Cancel, g.Get))
	g.Box = container.NewBorder(intro, bottom, nil, nil, g.list)
	g.refreshButton()
	return g
}

// newOfferRow is a list row: title, size and licence; what it shows; status.
func newOfferRow() fyne.CanvasObject {
	title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	meta := widget.NewLabel("")
	shows := widget.NewLabel("")
	shows.Truncation = fyne.TextTruncateEllipsis
	status := widget.NewLabel("")
	status.Truncation = fyne.TextTruncateEllipsis
	status.Importance = widget.LowImportance
	return container.NewVBox(container.NewHBox(title, meta), shows, status)
}

func fillOfferRow(o fyne.CanvasObject, m ModelOffer) {
	box := o.(*fyne.Container)
	head := box.Objects[0].(*fyne.Container)
	head.Objects[0].(*widget.Label).SetText(m.Title)
	head.Objects[1].(*widget.Label).SetText(m.Size + " · " + m.Licence + " · " + m.ID)
	box.Objects[1].(*widget.Label).SetText(m.Shows)
	status := box.Objects[2].(*widget.Label)
	switch {
	case m.Local:
		status.SetText(tr("views.get.local", nil))
		status.Importance = widget.SuccessImportance
	case !m.CanRun:
		status.SetText(m.Why)
		status.Importance = widget.WarningImportance
	default:
		status.SetText(tr("views.get.runs", i18n.Args{"Size": m.Size}))
		status.Importance = widget.MediumImportance
	}
	status.Refresh()
}

// offer is the list entry for id, if it is one.
func (g *GetModel) offer(id string) (ModelOffer, bool) {
	for _, o := range g.offers {
		if strings.EqualFold(o.ID, id) {
			return o, true
		}
	}
	return ModelOffer{}, false
}

// refreshButton names what the button will do for the id in the field.
func (g *GetModel) refreshButton() {
	id := strings.TrimSpace(g.Repo.Text)
	o, listed := g.offer(id)
	switch {
	case g.busy:
		g.Get.Disable()
	case id == "":
		g.Get.SetText(tr("views.get.download", nil))
		g.Get.Disable()
	case listed && o.Local:
		g.Get.SetText(tr("views.local.open", nil))
		g.Get.Enable()
	case listed && !o.CanRun:
		g.Get.SetText(tr("views.get.unsupported", nil))
		g.Get.Disable()
	default:
		g.Get.SetText(tr("views.get.download", nil))
		g.Get.Enable()
	}
}

func (g *GetModel) get() {
	id := strings.TrimSpace(g.Repo.Text)
	if id == "" || g.busy || g.OnGet == nil || g.Get.Disabled() {
		return
	}
	g.OnGet(id)
}

// Select picks the list entry for id (and fills the field).
func (g *GetModel) Select(id string) {
	for i, o := range g.offers {
		if o.ID == id {
			g.list.Select(i)
			return
		}
	}
	g.Repo.SetText(id)
}

// SetBusy switches between choosing and downloading.
func (g *GetModel) SetBusy(busy bool) {
	g.busy = busy
	if busy {
		g.Repo.Disable()
		g.Cancel.Enable()
		g.Bar.SetValue(0)
		g.Bar.Show()
	} else {
		g.Repo.Enable()
		g.Cancel.Disable()
	}
	g.refreshButton()
}

// SetProgress shows the share done and a line such as
// "model.safetensors (3 of 7) · 1.2 GB of 3.1 GB · 21 MB/s · 1 min 30 s left".
func (g *GetModel) SetProgress(frac float64, line string) {
	g.Bar.Show()
	g.Bar.SetValue(frac)
	g.Status.Importance = widget.MediumImportance
	g.Status.SetText(line)
}

// SetError shows what went wrong under the bar.
func (g *GetModel) SetError(msg string) {
	g.Status.Importance = widget.DangerImportance
	g.Status.SetText(msg)
}
