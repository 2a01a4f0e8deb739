package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// AblateBar sits under the attention grid: the heads to switch off (typed,
// or Ctrl+clicked on the grid), the button that reruns without them, the
// two presets of the article and the variant prompt.
type AblateBar struct {
	Heads        *widget.Entry
	N, Seed      *widget.Entry
	Run          *widget.Button
	Top, Random  *widget.Button
	Variant      *widget.Button
	Clear        *widget.Button
	Help         *widget.Label
	Box          fyne.CanvasObject
	OnRun        func()
	OnTop        func()
	OnRandom     func()
	OnVariant    func()
	OnClear      func()
	OnHeadsTyped func(text string)
}

// NewAblateBar makes the bar; the callbacks are set by the app.
func NewAblateBar() *AblateBar {
	b := &AblateBar{Heads: widget.NewEntry(), N: numEntry("10"), Seed: numEntry("1")}
	b.Heads.SetPlaceHolder(tr("views.ablate.placeholder", nil))
	b.Heads.OnChanged = func(s string) { call1(b.OnHeadsTyped, s) }
	b.Heads.OnSubmitted = func(string) { call(b.OnRun) }
	b.Run = widget.NewButton(tr("views.ablate.run", nil), func() { call(b.OnRun) })
	b.Run.Importance = widget.HighImportance
	b.Top = widget.NewButton(tr("views.ablate.top", nil), func() { call(b.OnTop) })
	b.Random = widget.NewButton(tr("views.ablate.random", nil), func() { call(b.OnRandom) })
	b.Variant = widget.NewButton(tr("views.ablate.variant", nil), func() { call(b.OnVariant) })
	b.Clear = widget.NewButton(tr("views.ablate.clear", nil), func() { call(b.OnClear) })
	b.Help = wrapLabel("")
	b.Help.Importance = widget.LowImportance
	n := container.NewGridWrap(fyne.NewSize(56, b.N.MinSize().Height), b.N)
	seed := container.NewGridWrap(fyne.NewSize(72, b.Seed.MinSize().Height), b.Seed)
	b.Box = container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel(tr("views.ablate.heads", nil)), container.NewHBox(b.Clear, b.Run), b.Heads),
		container.NewHBox(widget.NewLabel("N"), n, b.Top, b.Random, seed, b.Variant),
		Lines(2, b.Help))
	return b
}

func call(f func()) {
	if f != nil {
		f()
	}
}

func call1(f func(string), s string) {
	if f != nil {
		f(s)
	}
}
