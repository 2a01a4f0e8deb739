package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// The dialogs the app opens; it shows them and acts on their answer.

// VariantDialog asks for prompt B of a comparison, prefilled with run A's
// prompt; onRun gets the text when the variant is run.
func VariantDialog(prompt string, onRun func(string), win fyne.Window) dialog.Dialog {
	e := widget.NewMultiLineEntry()
	e.Wrapping = fyne.TextWrapWord
	e.SetText(prompt)
	e.SetMinRowsVisible(3)
	d := dialog.NewForm(tr("views.variant.title", nil), tr("views.variant.run", nil), tr("views.cancel", nil),
		[]*widget.FormItem{widget.NewFormItem(tr("views.variant.prompt_b", nil), e),
			widget.NewFormItem("", widget.NewLabel(tr("views.variant.hint", nil)))},
		func(ok bool) {
			if ok {
				onRun(e.Text)
			}
		}, win)
	d.Resize(d.MinSize().AddWidthHeight(300, 0))
	return d
}
