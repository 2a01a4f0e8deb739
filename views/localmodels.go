package views

import (
	"loupe/i18n"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// LocalModel is a model found on disk, as plain text.
type LocalModel struct {
	Name, Size, Source, Path string
	CanOpen                  bool
	Why                      string // why not, when CanOpen is false
}

// LocalModels is the content of File › Models on this computer: every
// model found in the Hugging Face cache and the GGUF folders, with its
// size and whether Loupe opens it (and why not).
type LocalModels struct {
	Box    fyne.CanvasObject
	Open   *widget.Button
	Status *widget.Label

	OnOpen   func(path string)
	OnGet    func() // "Get a model…"
	OnBrowse func() // "Open a folder…"

	models   []LocalModel
	list     *widget.List
	selected int
}

// NewLocalModels lays out an empty list ("Looking…" until Set).
func NewLocalModels() *LocalModels {
	v := &LocalModels{selected: -1}
	v.list = widget.NewList(func() int { return len(v.models) }, newLocalRow, func(i widget.ListItemID, o fyne.CanvasObject) {
		fillLocalRow(o, v.models[i])
	})
	v.list.OnSelected = func(i widget.ListItemID) {
		v.selected = i
		if i >= 0 && i < len(v.models) && v.models[i].CanOpen {
			v.Open.Enable()
		} else {
			v.Open.Disable()
		}
	}
	v.Status = widget.NewLabel(tr("views.local.looking", nil))
	v.Status.Wrapping = fyne.TextWrapWord
	v.Open = widget.NewButton(tr("views.local.open", nil), func() {
		if v.selected >= 0 && v.selected < len(v.models) && v.OnOpen != nil {
			v.OnOpen(v.models[v.selected].Path)
		}
	})
	v.Open.Importance = widget.HighImportance
	v.Open.Disable()
	get := widget.NewButton(tr("views.local.get", nil), func() {
		if v.OnGet != nil {
			v.OnGet()
		}
	})
	browse := widget.NewButton(tr("views.local.browse", nil), func() {
		if v.OnBrowse != nil {
			v.OnBrowse()
		}
	})
	v.Box = container.NewBorder(v.Status, container.NewHBox(get, browse, layout.NewSpacer(), v.Open), nil, nil, v.list)
	return v
}

func newLocalRow() fyne.CanvasObject {
	name := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	meta := widget.NewLabel("")
	path := widget.NewLabel("")
	path.Truncation = fyne.TextTruncateEllipsis
	path.Importance = widget.LowImportance
	status := widget.NewLabel("")
	status.Truncation = fyne.TextTruncateEllipsis
	return container.NewVBox(container.NewHBox(name, meta), status, path)
}

func fillLocalRow(o fyne.CanvasObject, m LocalModel) {
	box := o.(*fyne.Container)
	head := box.Objects[0].(*fyne.Container)
	head.Objects[0].(*widget.Label).SetText(m.Name)
	head.Objects[1].(*widget.Label).SetText(m.Size + " · " + m.Source)
	status := box.Objects[1].(*widget.Label)
	if m.CanOpen {
		status.SetText(tr("views.local.opens", nil))
		status.Importance = widget.SuccessImportance
	} else {
		status.SetText(m.Why)
		status.Importance = widget.WarningImportance
	}
	status.Refresh()
	box.Objects[2].(*widget.Label).SetText(m.Path)
}

// Set shows the models found; where says which folders were searched.
func (v *LocalModels) Set(models []LocalModel, where string) {
	v.models = models
	v.selected = -1
	v.Open.Disable()
	v.list.UnselectAll()
	v.list.Refresh()
	n := 0
	for _, m := range models {
		if m.CanOpen {
			n++
		}
	}
	switch {
	case len(models) == 0:
		v.Status.SetText(tr("views.local.none", i18n.Args{"Where": where}))
	default:
		v.Status.SetText(Lang.N("views.local.found", len(models), i18n.Args{"N": len(models), "Where": where, "Opens": n}))
	}
	for i, m := range models {
		if m.CanOpen {
			v.list.Select(i)
			break
		}
	}
}
