package views

import (
	"loupe/format"
	"loupe/i18n"
)

// Lang is the window's language. The app sets it once, before it builds
// any panel, from --lang, the remembered choice or the system: the
// panels read it when they make their labels, so a choice made in
// View › Language applies at the next launch.
var Lang = i18n.English

// tr is the sentence of key in the window's language.
func tr(key string, args i18n.Args) string { return Lang.T(key, args) }

// nums writes numbers the way the window's language does.
func nums() format.Lang { return Lang.Numbers() }

// counting is format.Numbering that names layers and heads in the
// window's language: "couche 19", "tête 2".
type counting struct{ format.Numbering }

// Layer is "layer 19" for index 18 counted from 1.
func (c counting) Layer(i int) string { return tr("viz.layer", i18n.Args{"N": c.Index(i)}) }

// Head is "head 2" for index 1 counted from 1.
func (c counting) Head(i int) string { return tr("viz.head", i18n.Args{"N": c.Index(i)}) }

// KVHead is "K/V head 1" for index 0 counted from 1.
func (c counting) KVHead(i int) string { return tr("views.kvhead", i18n.Args{"N": c.Index(i)}) }

// Range is "1…28" for 28 indices counted from 1, "none" for none.
func (c counting) Range(count int) string {
	if count <= 0 {
		return tr("views.none", nil)
	}
	return c.Numbering.Range(count)
}

// thousands is n with its thousands apart, as the window's language
// writes them: "1,536", "1 536".
func thousands[T ~int | ~int64](n T) string { return nums().Thousands(int64(n)) }
