package app

import (
	"fyne.io/fyne/v2"

	"loupe/viz"
)

// prefCountFrom remembers View › Count layers and heads: "1" (the
// default, as the article counts) or "0" (as in code).
const prefCountFrom = "count_from"

// restoreNumbering applies the remembered way of counting layers and heads.
func (u *UI) restoreNumbering() {
	u.st.Count = viz.FromOne
	if u.app.Preferences().String(prefCountFrom) == "0" {
		u.st.Count = viz.FromZero
	}
	u.countPanels()
}

// countPanels makes every panel count layers and heads as the session does.
func (u *UI) countPanels() {
	for _, p := range u.panels {
		p.SetCount(u.st.Count)
	}
}

// setNumbering applies and remembers a View › Count choice; every panel is
// redrawn and later exports follow (vizTheme carries it).
func (u *UI) setNumbering(n viz.Numbering) {
	u.rebaseKind(u.st.Count.Base(), n.Base())
	u.st.Count = n
	u.countPanels()
	u.app.Preferences().SetString(prefCountFrom, map[viz.Numbering]string{viz.FromOne: "1", viz.FromZero: "0"}[n])
	u.menus.buildMenu()
	u.showHeads(true) // the heads field is written in the new numbering
	u.attn.ResetHover()
	u.dirty = true
	u.refreshPanels()
	u.lessonMode.lessonRunFinished() // the card's text counts the new way
}

// numberingItems are the two View › Count choices, the current one checked.
func (u *UI) numberingItems() []*fyne.MenuItem {
	item := func(label string, n viz.Numbering) *fyne.MenuItem {
		it := u.menus.item(label, func() { u.setNumbering(n) })
		it.Checked = u.st.Count == n
		return it
	}
	return []*fyne.MenuItem{
		item(tr("app.menu.count_one", nil), viz.FromOne),
		item(tr("app.menu.count_zero", nil), viz.FromZero),
	}
}
