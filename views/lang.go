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
